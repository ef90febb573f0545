// A client for the MCP conformance suite's client scenarios, built on the TypeScript SDK, for
// TestConformanceThroughProxy. The suite runs `node client.mjs URL` with the scenario's name in
// MCP_CONFORMANCE_SCENARIO and, for some, its credentials in MCP_CONFORMANCE_CONTEXT (JSON); it
// judges what reaches its servers, so the client only has to do what the scenario asks: connect,
// list and call the tool, and authorize when the server says 401 or 403.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { UnauthorizedError, discoverOAuthServerInfo } from "@modelcontextprotocol/sdk/client/auth.js";
import { ClientCredentialsProvider, PrivateKeyJwtProvider } from "@modelcontextprotocol/sdk/client/auth-extensions.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { createHash, generateKeyPairSync, randomUUID, sign } from "node:crypto";

const url = new URL(process.argv[2]);
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? "";
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? "{}");

// The redirect URI is never listened on: the provider follows the authorization endpoint's
// redirect itself and reads the code from its Location.
const redirectUrl = "http://127.0.0.1:1/callback";

// An authorization-code client that registers itself (or uses the pre-registered client of the
// context), and plays the user agent: it asks the authorization endpoint and keeps the code.
class BrowserlessProvider {
  constructor({ clientInformation, clientMetadataUrl } = {}) {
    this.info = clientInformation;
    this.clientMetadataUrl = clientMetadataUrl;
    this.code = undefined;
  }
  get redirectUrl() {
    return redirectUrl;
  }
  get clientMetadata() {
    return {
      client_name: "toolscore-conformance-client",
      redirect_uris: [redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: this.info?.client_secret ? "client_secret_basic" : "none",
    };
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens) {
    this.saved = tokens;
  }
  saveCodeVerifier(v) {
    this.verifier = v;
  }
  codeVerifier() {
    return this.verifier;
  }
  async redirectToAuthorization(authorizationUrl) {
    const res = await fetch(authorizationUrl, { redirect: "manual" });
    const location = res.headers.get("location");
    if (!location) throw new Error(`the authorization endpoint answered ${res.status} with no redirect`);
    this.code = new URL(location).searchParams.get("code") ?? undefined;
  }
}

// Cross-app access (SEP-990): the ID token is exchanged at the identity provider for an ID-JAG
// naming the authorization server and the resource, which the authorization server takes as a
// jwt-bearer grant from this client, authenticated with its secret.
class CrossAppAccessProvider {
  constructor(assertion) {
    this.assertion = assertion;
  }
  get redirectUrl() {
    return undefined;
  }
  get clientMetadata() {
    return { client_name: "toolscore-conformance-client", redirect_uris: [], grant_types: ["urn:ietf:params:oauth:grant-type:jwt-bearer"], token_endpoint_auth_method: "client_secret_basic" };
  }
  clientInformation() {
    return { client_id: context.client_id, client_secret: context.client_secret };
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens) {
    this.saved = tokens;
  }
  redirectToAuthorization() {
    throw new Error("cross-app access has no user agent to redirect");
  }
  saveCodeVerifier() {}
  codeVerifier() {
    throw new Error("cross-app access uses no PKCE");
  }
  prepareTokenRequest(scope) {
    const p = new URLSearchParams({ grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer", assertion: this.assertion });
    if (scope) p.set("scope", scope);
    return p;
  }
}

async function crossAppAccessProvider() {
  const info = await discoverOAuthServerInfo(url);
  const resource = info.resourceMetadata?.resource ?? url.href;
  const res = await fetch(context.idp_token_endpoint, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "urn:ietf:params:oauth:grant-type:token-exchange",
      subject_token: context.idp_id_token,
      subject_token_type: "urn:ietf:params:oauth:token-type:id_token",
      requested_token_type: "urn:ietf:params:oauth:token-type:id-jag",
      audience: info.authorizationServerMetadata?.issuer ?? String(info.authorizationServerUrl),
      resource,
      client_id: context.idp_client_id,
    }),
  });
  if (!res.ok) throw new Error(`the identity provider refused the token exchange: ${res.status} ${await res.text()}`);
  return new CrossAppAccessProvider((await res.json()).access_token);
}

async function providerFor(name) {
  if (!name.startsWith("auth/")) return undefined;
  switch (name) {
    case "auth/client-credentials-basic":
      return new ClientCredentialsProvider({ clientId: context.client_id, clientSecret: context.client_secret });
    case "auth/client-credentials-jwt":
      return new PrivateKeyJwtProvider({ clientId: context.client_id, privateKey: context.private_key_pem, algorithm: context.signing_algorithm });
    case "auth/cross-app-access-complete-flow":
    case "auth/enterprise-managed-authorization": // its name from 0.2.0 on
      return crossAppAccessProvider();
    case "auth/pre-registration":
      return new BrowserlessProvider({ clientInformation: { client_id: context.client_id, client_secret: context.client_secret } });
    case "auth/basic-cimd":
      // The client ID the scenario expects; nothing fetches it there. Elsewhere the client
      // registers, so that no scenario's server goes to fetch this document off the machine.
      return new BrowserlessProvider({ clientMetadataUrl: "https://conformance-test.local/client-metadata.json" });
    default:
      return new BrowserlessProvider();
  }
}

// dpopFetch binds the client's tokens to a key of its own (DPoP, RFC 9449), for the DPoP
// scenarios: every token request and every request to the MCP endpoint carries a proof signed
// with it for the URL it goes to (htu), a token goes as "DPoP", and a request answered with a
// DPoP-Nonce is sent once more with that nonce in its proof.
function dpopFetch() {
  const { publicKey, privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const { kty, crv, x, y } = publicKey.export({ format: "jwk" });
  const b64 = (o) => Buffer.from(JSON.stringify(o)).toString("base64url");
  const nonces = new Map(); // by origin
  const proof = (method, target, token) => {
    const u = new URL(target);
    const claims = { jti: randomUUID(), htm: method, htu: u.origin + u.pathname, iat: Math.floor(Date.now() / 1000) };
    if (token) claims.ath = createHash("sha256").update(token).digest("base64url");
    if (nonces.has(u.origin)) claims.nonce = nonces.get(u.origin);
    const input = b64({ typ: "dpop+jwt", alg: "ES256", jwk: { kty, crv, x, y } }) + "." + b64(claims);
    return input + "." + sign("sha256", Buffer.from(input), { key: privateKey, dsaEncoding: "ieee-p1363" }).toString("base64url");
  };
  const dpop = async (input, init = {}, again = true) => {
    const target = new URL(input instanceof Request ? input.url : String(input));
    const method = (init.method ?? "GET").toUpperCase();
    const tokenRequest = method === "POST" && String(init.body ?? "").includes("grant_type=");
    if (!tokenRequest && target.origin + target.pathname !== url.origin + url.pathname) return fetch(input, init);
    const headers = new Headers(init.headers);
    const auth = headers.get("authorization");
    const token = auth?.startsWith("Bearer ") ? auth.slice(7) : undefined;
    if (token) headers.set("authorization", "DPoP " + token);
    headers.set("dpop", proof(method, target, token));
    const res = await fetch(input, { ...init, headers });
    const nonce = res.headers.get("dpop-nonce");
    if (nonce) nonces.set(target.origin, nonce);
    if (nonce && again && (res.status === 400 || res.status === 401)) return dpop(input, init, false);
    return res;
  };
  return dpop;
}

const provider = await providerFor(scenario);
const transportFetch = scenario.startsWith("auth/dpop") ? dpopFetch() : undefined;
let transport;
let client;

// open connects a fresh client: a connect that needed authorization leaves its transport closed.
async function open() {
  transport = new StreamableHTTPClientTransport(url, { ...(provider && { authProvider: provider }), ...(transportFetch && { fetch: transportFetch }) });
  client = new Client(
    { name: "toolscore-conformance-client", version: "1.0.0" },
    { capabilities: { sampling: {}, elicitation: { form: { applyDefaults: true } } } },
  );
  // Accept every form with what the user left as it was: the SDK fills in the schema's defaults.
  client.setRequestHandler(ElicitRequestSchema, async () => ({ action: "accept", content: {} }));
  await client.connect(transport);
}

// authorized runs step, and when the server asked for authorization (the provider then holds a
// code), trades the code for a token and runs it again; a few times at most, as a client must
// not loop on a server that never accepts.
async function authorized(step, reopen) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await step();
    } catch (err) {
      if (!(err instanceof UnauthorizedError) || !provider?.code || attempt > 3) throw err;
      const code = provider.code;
      provider.code = undefined;
      await transport.finishAuth(code);
      if (reopen) await transport.close();
    }
  }
}

// The elicitation scenario's server asks its question on the GET stream the client opens after
// initializing: its tool is called straight after connect, as an agent that knows it would,
// which leaves that stream the least time to reach the server before the call does.
const callFirst = { "elicitation-sep1034-client-defaults": "test_client_elicitation_defaults" }[scenario];

await authorized(open, true);
const tools = callFirst ? [{ name: callFirst }] : (await authorized(() => client.listTools())).tools;
const args = { add_numbers: { a: 5, b: 3 } };
for (const tool of tools) {
  await authorized(() => client.callTool({ name: tool.name, arguments: args[tool.name] ?? {} }));
}
await client.close();
