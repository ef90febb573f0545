// The proxied run's command for TestConformanceThroughProxy: `node via-proxy.mjs CLIENT URL`
// starts `$TOOLSCORE proxy` (clean, the schema as it is) in front of URL, the server the suite
// started for its scenario, and runs `node CLIENT PROXY-URL` with the suite's environment, so
// the suite's checks see the client through the proxy. It exits with the client's code.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

const [client, upstream] = process.argv.slice(2);
const args = ["proxy", "--listen", "127.0.0.1:0", "--upstream", upstream, "--fault", "clean", "--schema", "as-is"];
if (process.env.TOOLSCORE_CONFORMANCE_TEE) args.push("--tee", process.env.TOOLSCORE_CONFORMANCE_TEE);
const proxy = spawn(process.env.TOOLSCORE, args, { stdio: ["ignore", "pipe", "inherit"] });
const exited = new Promise((resolve) => proxy.on("exit", resolve));

// The proxy prints its URL on its first line once it listens.
const url = await new Promise((resolve, reject) => {
  createInterface({ input: proxy.stdout }).once("line", resolve);
  proxy.once("exit", (code) => reject(new Error(`toolscore proxy exited ${code} before it listened`)));
});
const run = spawn(process.execPath, [client, url.trim()], { stdio: "inherit" });
// The suite ends a client that overruns its timeout with SIGTERM: the proxy and client go too.
process.on("SIGTERM", () => {
  run.kill("SIGTERM");
  proxy.kill("SIGTERM");
});
const code = await new Promise((resolve) => run.on("exit", (code, signal) => resolve(code ?? (signal ? 1 : 0))));
proxy.kill("SIGTERM");
await exited;
process.exit(code);
