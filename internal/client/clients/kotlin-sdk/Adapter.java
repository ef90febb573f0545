// toolscore's adapter for the MCP Kotlin SDK (io.modelcontextprotocol:kotlin-sdk-client-jvm): one
// tools/call through the SDK's Client, speaking the runner's contract: the request comes in
// TOOLSCORE_* variables, one JSON observation line goes to stdout. TOOLSCORE_URL, when set, is the
// server's streamable HTTP endpoint (the SDK's StreamableHttpClientTransport on a Ktor client with
// the SSE plugin, as the SDK's own mcpStreamableHttp helper builds it); otherwise TOOLSCORE_SERVER
// is the server's command, started here and spoken to through the SDK's StdioClientTransport on
// the process's streams, as the SDK's documentation of that transport shows.
//
// It is plain Java: the SDK's suspend functions are called through kotlinx.coroutines'
// runBlocking, which is what a Kotlin caller's runBlocking { client.callTool(...) } compiles to,
// so no Kotlin compiler is needed to build it.
package toolscore;

import java.util.ArrayList;
import java.util.List;

import io.ktor.client.HttpClient;
import io.ktor.client.HttpClientKt;
import io.ktor.client.engine.java.Java;
import io.ktor.client.plugins.sse.SSEKt;
import io.modelcontextprotocol.kotlin.sdk.client.Client;
import io.modelcontextprotocol.kotlin.sdk.client.ClientOptions;
import io.modelcontextprotocol.kotlin.sdk.client.ReconnectionOptions;
import io.modelcontextprotocol.kotlin.sdk.client.StdioClientTransport;
import io.modelcontextprotocol.kotlin.sdk.client.StreamableHttpClientTransport;
import io.modelcontextprotocol.kotlin.sdk.shared.Transport;
import io.modelcontextprotocol.kotlin.sdk.types.CallToolRequest;
import io.modelcontextprotocol.kotlin.sdk.types.CallToolResult;
import io.modelcontextprotocol.kotlin.sdk.types.Implementation;
import io.modelcontextprotocol.kotlin.sdk.types.JsonUtilsKt;
import io.modelcontextprotocol.kotlin.sdk.types.McpException;
import kotlin.Unit;
import kotlin.coroutines.EmptyCoroutineContext;
import kotlinx.coroutines.BuildersKt;
import kotlinx.io.CoreKt;
import kotlinx.io.JvmCoreKt;
import kotlinx.serialization.json.Json;
import kotlinx.serialization.json.JsonArray;
import kotlinx.serialization.json.JsonElement;
import kotlinx.serialization.json.JsonElementKt;
import kotlinx.serialization.json.JsonObject;
import kotlinx.serialization.json.JsonPrimitive;

public final class Adapter {
	public static void main(String[] argv) throws Exception {
		// The SDK's own Json (McpJson) reads the request and writes the result: the result is
		// printed as the SDK serializes it.
		Json json = JsonUtilsKt.getMcpJson();
		java.util.Map<String, JsonElement> out = new java.util.LinkedHashMap<>();
		out.put("client", JsonElementKt.JsonPrimitive("kotlin-sdk"));
		out.put("library", JsonElementKt.JsonPrimitive("io.modelcontextprotocol:kotlin-sdk " + sdkVersion()));
		// The adapter never lists the tools, nor does the SDK's callTool.
		out.put("listed", JsonElementKt.JsonPrimitive(false));

		Client client = new Client(new Implementation("toolscore-kotlin", "1", null, null, null), new ClientOptions());
		Process server = null;
		HttpClient http = null;
		try {
			Transport transport;
			String url = System.getenv("TOOLSCORE_URL");
			if (url != null && !url.isEmpty()) {
				http = HttpClientKt.HttpClient(Java.INSTANCE, config -> {
					config.install(SSEKt.getSSE(), sse -> Unit.INSTANCE);
					return Unit.INSTANCE;
				});
				transport = new StreamableHttpClientTransport(http, url, new ReconnectionOptions(), 16 * 1024 * 1024,
						request -> Unit.INSTANCE);
			}
			else {
				List<String> command = new ArrayList<>();
				for (JsonElement e : (JsonArray) json.parseToJsonElement(System.getenv("TOOLSCORE_SERVER"))) {
					command.add(((JsonPrimitive) e).getContent());
				}
				// The whole environment goes to the server (ProcessBuilder inherits it), as the
				// other adapters pass it; its stderr is the proxy's, passed through.
				server = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
				transport = new StdioClientTransport(CoreKt.buffered(JvmCoreKt.asSource(server.getInputStream())),
						CoreKt.buffered(JvmCoreKt.asSink(server.getOutputStream())));
			}
			Transport connected = transport;
			// The handshake is inside: a server that fails it is something the library reacts to.
			BuildersKt.runBlocking(EmptyCoroutineContext.INSTANCE, (scope, cont) -> client.connect(connected, cont));
			String args = System.getenv("TOOLSCORE_ARGUMENTS");
			String request = "{\"method\":\"tools/call\",\"params\":{\"name\":"
					+ json.encodeToString(JsonElement.Companion.serializer(), JsonElementKt.JsonPrimitive(System.getenv("TOOLSCORE_TOOL")))
					+ ",\"arguments\":" + (args == null || args.isEmpty() ? "{}" : args) + "}}";
			CallToolRequest call = json.decodeFromString(CallToolRequest.Companion.serializer(), request);
			CallToolResult result = BuildersKt.runBlocking(EmptyCoroutineContext.INSTANCE,
					(scope, cont) -> client.callTool(call, null, cont));
			out.put("returned", json.encodeToJsonElement(CallToolResult.Companion.serializer(), result));
		}
		catch (Throwable e) { // every exception is an observation, verbatim
			java.util.Map<String, JsonElement> raised = new java.util.LinkedHashMap<>();
			raised.put("class", JsonElementKt.JsonPrimitive(e.getClass().getSimpleName()));
			raised.put("message", JsonElementKt.JsonPrimitive(String.valueOf(e.getMessage())));
			if (e instanceof McpException me) {
				raised.put("code", JsonElementKt.JsonPrimitive(me.getCode()));
			}
			out.put("raised", new JsonObject(raised));
		}
		System.out.println(json.encodeToString(JsonElement.Companion.serializer(), new JsonObject(out)));
		System.out.flush();
		if (server != null) {
			server.destroy();
		}
		// The SDK's and Ktor's coroutine threads are not all daemons: leave now the observation is out.
		Runtime.getRuntime().halt(0);
	}

	// sdkVersion is the version of the client jar on the class path. The SDK's jars carry no Maven
	// metadata and an empty manifest, so it is read from the jar's name as Maven copied it
	// (kotlin-sdk-client-jvm-VERSION.jar, the same in the image and on the local backend).
	static String sdkVersion() {
		try {
			String jar = java.nio.file.Path.of(Client.class.getProtectionDomain().getCodeSource().getLocation().toURI())
				.getFileName()
				.toString();
			String prefix = "kotlin-sdk-client-jvm-";
			if (jar.startsWith(prefix) && jar.endsWith(".jar")) {
				return jar.substring(prefix.length(), jar.length() - ".jar".length());
			}
		}
		catch (Exception ignored) {
		}
		return "unknown";
	}
}
