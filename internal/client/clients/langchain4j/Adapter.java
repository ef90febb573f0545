// toolscore's adapter for LangChain4j's MCP client (dev.langchain4j:langchain4j-mcp): one tool
// call made the way a LangChain4j AI service makes it, and the tool result it then hands its
// model. The request comes in TOOLSCORE_* variables, one JSON observation line goes to stdout, as
// the other framework adapters do. TOOLSCORE_URL, when set, is the server's streamable HTTP
// endpoint (StreamableHttpMcpTransport); otherwise TOOLSCORE_SERVER is its command
// (StdioMcpTransport).
//
// A LangChain4j user gives an AI service an McpToolProvider over a DefaultMcpClient; the service
// asks the provider for its tools (McpToolProvider.provideTools, which lists them), and runs the
// model's tool request through ToolService.executeWithErrorHandling with the service's error
// handlers: the executor is McpToolExecutor, which calls DefaultMcpClient.executeTool, and an
// exception it throws becomes an error result whose text the default handler makes of the
// exception's message. The ToolExecutionResult's text and isError go into the
// ToolExecutionResultMessage the model gets (ToolService.toResultMessage). This adapter does the
// same with the service's own default handlers (new ToolService()'s) and prints that as handed.
package toolscore;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.Content;
import dev.langchain4j.data.message.TextContent;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.invocation.InvocationContext;
import dev.langchain4j.mcp.McpToolProvider;
import dev.langchain4j.mcp.client.DefaultMcpClient;
import dev.langchain4j.mcp.client.McpClient;
import dev.langchain4j.mcp.client.transport.McpTransport;
import dev.langchain4j.mcp.client.transport.http.StreamableHttpMcpTransport;
import dev.langchain4j.mcp.client.transport.stdio.StdioMcpTransport;
import dev.langchain4j.service.tool.ToolExecutionResult;
import dev.langchain4j.service.tool.ToolExecutor;
import dev.langchain4j.service.tool.ToolProviderRequest;
import dev.langchain4j.service.tool.ToolProviderResult;
import dev.langchain4j.service.tool.ToolService;

public final class Adapter {
	static final int EXCERPT = 2000;

	public static void main(String[] argv) throws Exception {
		ObjectMapper json = new ObjectMapper();
		Map<String, Object> out = new LinkedHashMap<>();
		out.put("client", "langchain4j");
		out.put("library", "dev.langchain4j:langchain4j-mcp " + version(McpToolProvider.class, "langchain4j-mcp")
				+ " (langchain4j " + version(ToolService.class, "langchain4j") + ")");
		// McpToolProvider lists the tools before the model is offered them.
		out.put("listed", true);

		McpClient client = null;
		try {
			McpTransport transport;
			String url = System.getenv("TOOLSCORE_URL");
			if (url != null && !url.isEmpty()) {
				transport = StreamableHttpMcpTransport.builder().url(url).timeout(Duration.ofSeconds(60)).build();
			}
			else {
				List<String> server = json.readValue(System.getenv("TOOLSCORE_SERVER"), new TypeReference<List<String>>() {
				});
				// The whole environment goes to the server, as the other adapters pass it.
				transport = StdioMcpTransport.builder().command(new ArrayList<>(server)).environment(System.getenv()).build();
			}
			client = DefaultMcpClient.builder().transport(transport).toolExecutionTimeout(Duration.ofSeconds(60)).build();
			ToolProviderResult tools = McpToolProvider.builder()
				.mcpClients(client)
				.build()
				.provideTools(new ToolProviderRequest("toolscore", UserMessage.from("call the tool")));
			String name = System.getenv("TOOLSCORE_TOOL");
			ToolExecutor executor = tools.toolExecutorByName(name);
			if (executor == null) {
				// The model is never offered a tool the listing lacks: the service cannot call it.
				throw new IllegalStateException("tool " + name + " is not among the listed tools");
			}
			String args = System.getenv("TOOLSCORE_ARGUMENTS");
			ToolExecutionRequest request = ToolExecutionRequest.builder()
				.id("toolscore_call")
				.name(name)
				.arguments(args == null || args.isEmpty() ? "{}" : args)
				.build();
			ToolService service = new ToolService();
			ToolExecutionResult result = ToolService.executeWithErrorHandling(request, executor,
					InvocationContext.builder().chatMemoryId("toolscore").build(), service.argumentsErrorHandler(),
					service.executionErrorHandler());
			// What the model gets is the result's contents (ToolService.toResultMessage): their
			// texts, joined. LangChain4j makes them of structuredContent, when the result has it,
			// as its JSON, and then keeps it as result() too (ToolExecutionHelper.extractResult);
			// otherwise of the text blocks.
			List<String> texts = new ArrayList<>();
			for (Content c : result.resultContents()) {
				texts.add(c instanceof TextContent tc ? tc.text() : c.toString());
			}
			String text = String.join("\n", texts);
			Map<String, Object> handed = new LinkedHashMap<>();
			String kind = result.result() != null ? "structured" : (text.isEmpty() ? "none" : "text");
			handed.put("kind", result.isError() ? "error" : kind);
			handed.put("excerpt", text.length() > EXCERPT ? text.substring(0, EXCERPT) : text);
			handed.put("is_error", result.isError());
			out.put("handed", handed);
		}
		catch (Throwable e) { // what escapes the service's error handling: verbatim
			Map<String, Object> raised = new LinkedHashMap<>();
			raised.put("class", e.getClass().getSimpleName());
			raised.put("message", String.valueOf(e.getMessage()));
			out.put("raised", raised);
		}
		System.out.println(json.writeValueAsString(out));
		System.out.flush();
		try {
			if (client != null) {
				client.close();
			}
		}
		catch (Throwable ignored) {
		}
		// The transports' threads are not daemons everywhere: leave now the observation is out.
		Runtime.getRuntime().halt(0);
	}

	// version is the version of the jar that holds c, read from its name as Maven copied it
	// (ARTIFACT-VERSION.jar, the same in the image and on the local backend).
	static String version(Class<?> c, String artifact) {
		try {
			String jar = java.nio.file.Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI())
				.getFileName()
				.toString();
			if (jar.startsWith(artifact + "-") && jar.endsWith(".jar")) {
				return jar.substring(artifact.length() + 1, jar.length() - ".jar".length());
			}
		}
		catch (Exception ignored) {
		}
		return "unknown";
	}
}
