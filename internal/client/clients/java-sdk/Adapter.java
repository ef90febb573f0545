// toolscore's Java adapter: one tools/call through the official MCP Java SDK
// (io.modelcontextprotocol.sdk:mcp), speaking the runner's contract: the request comes in
// TOOLSCORE_* variables, one JSON observation line goes to stdout. TOOLSCORE_URL, when set, is
// the server's streamable HTTP endpoint (the http transport); otherwise TOOLSCORE_SERVER is its
// command. The path "validating" turns on the SDK's opt-in result validation:
// McpClient.SyncSpec.enableCallToolSchemaCaching(true), with which the client lists the tools
// after the handshake, caches each outputSchema, and checks structuredContent against it in
// McpAsyncClient.validateToolResult (throwing IllegalArgumentException when it does not conform).
// Without it (the default, and the path ""), the SDK hands the result over unchecked.
package toolscore;

import java.io.InputStream;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;

public final class Adapter {
	public static void main(String[] argv) throws Exception {
		String mode = argv.length > 0 ? argv[0] : "";
		boolean validating = mode.equals("validating");
		// The SDK's own JSON mapper (Jackson, from the mcp artifact's json module) reads the
		// request and writes the result: the result is printed as the SDK serializes it.
		McpJsonMapper json = McpJsonDefaults.getMapper();
		Map<String, Object> out = new LinkedHashMap<>();
		out.put("client", mode.isEmpty() ? "java-sdk" : "java-sdk/" + mode);
		out.put("library", "io.modelcontextprotocol.sdk:mcp " + sdkVersion());
		// The adapter never lists the tools itself; the validating client does after the
		// handshake, as its library does (that is what is measured).
		out.put("listed", false);

		McpClientTransport transport;
		String url = System.getenv("TOOLSCORE_URL");
		if (url != null && !url.isEmpty()) {
			URI u = URI.create(url);
			String base = u.getScheme() + "://" + u.getRawAuthority();
			String endpoint = u.getRawPath() == null || u.getRawPath().isEmpty() ? "/" : u.getRawPath();
			if (u.getRawQuery() != null) {
				endpoint += "?" + u.getRawQuery();
			}
			transport = HttpClientStreamableHttpTransport.builder(base).endpoint(endpoint).build();
		} else {
			List<String> server = json.readValue(System.getenv("TOOLSCORE_SERVER"), new TypeRef<List<String>>() {
			});
			// The whole environment goes to the server, as the other adapters pass it.
			ServerParameters params = ServerParameters.builder(server.get(0))
				.args(new ArrayList<>(server.subList(1, server.size())))
				.env(System.getenv())
				.build();
			transport = new StdioClientTransport(params, json);
		}
		McpClient.SyncSpec spec = McpClient.sync(transport)
			.clientInfo(new McpSchema.Implementation("toolscore-java", "1"))
			.requestTimeout(Duration.ofSeconds(60));
		if (validating) {
			spec = spec.enableCallToolSchemaCaching(true);
		}
		McpSyncClient client = spec.build();
		try {
			// The handshake is inside: a server that fails it is something the library reacts to.
			client.initialize();
			String args = System.getenv("TOOLSCORE_ARGUMENTS");
			Map<String, Object> arguments = json.readValue(args == null || args.isEmpty() ? "{}" : args,
					new TypeRef<Map<String, Object>>() {
					});
			McpSchema.CallToolResult result = client
				.callTool(new McpSchema.CallToolRequest(System.getenv("TOOLSCORE_TOOL"), arguments));
			out.put("returned", json.readValue(json.writeValueAsString(result), new TypeRef<Object>() {
			}));
		}
		catch (Throwable e) { // every exception is an observation, verbatim
			Map<String, Object> raised = new LinkedHashMap<>();
			raised.put("class", e.getClass().getSimpleName());
			raised.put("message", String.valueOf(e.getMessage()));
			if (e instanceof McpError me && me.getJsonRpcError() != null) {
				raised.put("code", me.getJsonRpcError().code());
			}
			out.put("raised", raised);
		}
		System.out.println(json.writeValueAsString(out));
		System.out.flush();
		try {
			client.closeGracefully();
		}
		catch (Throwable ignored) {
		}
		// The transports' threads are not daemons everywhere: leave now the observation is out.
		Runtime.getRuntime().halt(0);
	}

	// sdkVersion is the version of the mcp-core jar on the class path, from its Maven metadata.
	static String sdkVersion() {
		try (InputStream in = McpSyncClient.class
			.getResourceAsStream("/META-INF/maven/io.modelcontextprotocol.sdk/mcp-core/pom.properties")) {
			Properties p = new Properties();
			if (in != null) {
				p.load(in);
			}
			String v = p.getProperty("version");
			if (v != null) {
				return v;
			}
		}
		catch (Exception ignored) {
		}
		String v = McpSyncClient.class.getPackage().getImplementationVersion();
		return v != null ? v : "unknown";
	}
}
