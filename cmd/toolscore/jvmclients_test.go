package main

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/toolscore/toolscore/tally"
)

// jvmClients are the JVM columns of issue 50 beside java-sdk: the MCP Kotlin SDK, and
// LangChain4j's MCP client as an AI service hands its model the tool's result.
const jvmClients = "kotlin-sdk, langchain4j"

// jvmLibraries is the library each says it ran, as its pom.xml pins it.
var jvmLibraries = map[string]string{
	"kotlin-sdk":  "io.modelcontextprotocol:kotlin-sdk 0.16.0",
	"langchain4j": "dev.langchain4j:langchain4j-mcp 1.18.1-beta28 (langchain4j 1.18.1)",
}

// jvmWant is what each does with a fault of the ledger study, read from its sources (the
// -sources.jar of each pinned version; each client's section of docs/clients.md says the same
// with file and line):
//
//   - kotlin-sdk: Client.callTool is request() and nothing more (client/Client.kt:552-553), with
//     no output schema anywhere, so the schema mode changes nothing and every fault whose
//     structuredContent is still an object passes, an isError result with its flag. A JSON-RPC
//     error is McpException with the wire's code (shared/Protocol.kt:733-737). wrong-container
//     breaks the typed decoding of the whole message (structuredContent is a JsonObject?,
//     types/tools.kt:264): on stdio ReadBuffer.readMessage logs and drops the line
//     (shared/ReadBuffer.kt:53-58), and the call waits for the SDK's 60 s request timeout
//     (shared/Protocol.kt:100), past the cell's 30 s: hung; on streamable HTTP the transport
//     rethrows the failure (client/StreamableHttpClientTransport.kt:205-211) as
//     McpException("Error while sending message: ...") (shared/AbstractClientTransport.kt:176-189):
//     threw.
func jvmWant(client, fault, schema, transport string) string {
	switch client {
	case "kotlin-sdk":
		switch fault {
		case "rpc-error":
			return "rpc-error"
		case "wrong-container":
			if transport == "http" {
				return "threw"
			}
			return "hung"
		}
		return "passed"
	}
	return langchain4jWant(fault, schema)
}

// jvmEvidence is the start of what a cell's evidence must hold where the client's own code
// words it, or "".
func jvmEvidence(client, fault, transport string) string {
	if client == "kotlin-sdk" && fault == "wrong-container" && transport == "http" {
		return "McpException: Error while sending message: Expected JsonObject, but had JsonArray"
	}
	return langchain4jEvidence(client, fault)
}

// checkJVM asserts every cell of a sweep against jvmWant and the library each ran, and returns
// the counts by cell.
func checkJVM(t *testing.T, backend string, res *tally.Results, cells int) map[string]string {
	t.Helper()
	if len(res.Unavailable) > 0 || len(res.Cells) != cells {
		t.Fatalf("%s: %d cells, unavailable %v; want %d and none", backend, len(res.Cells), res.Unavailable, cells)
	}
	counts := map[string]string{}
	for _, c := range res.Cells {
		counts[c.Key()] = c.Counts()
		want := jvmWant(c.Client, c.Fault, c.Schema, c.Transport)
		if c.Outcome[want] != 1 {
			t.Errorf("%s %s: %s, want %s 1/1 (evidence: %v)", backend, c.Coordinates(), c.Counts(), want, c.Examples)
		}
		if msg := jvmEvidence(c.Client, c.Fault, c.Transport); msg != "" && !strings.Contains(c.Examples[want].Evidence, msg) {
			t.Errorf("%s %s: evidence %q, want %q", backend, c.Coordinates(), c.Examples[want].Evidence, msg)
		}
		if want != "hung" && c.Library != jvmLibraries[c.Client] {
			t.Errorf("%s %s ran %q, want %q", backend, c.Coordinates(), c.Library, jvmLibraries[c.Client])
		}
		// LangChain4j hands the model structuredContent's JSON where the wire sent it.
		if c.Client == "langchain4j" && c.Fault == "clean" && c.ModelView["structured"] != 1 {
			t.Errorf("%s %s: the model got %v, want structured", backend, c.Coordinates(), c.ModelView)
		}
		if c.Negotiated["2025-11-25"] != 1 {
			t.Errorf("%s %s: negotiated %v, want 2025-11-25", backend, c.Coordinates(), c.Negotiated)
		}
	}
	return counts
}

// jvmSweep sweeps manifest on backend and checks its cells.
func jvmSweep(t *testing.T, backend, manifest string, cells int) map[string]string {
	t.Helper()
	out := t.TempDir()
	if code, _, stderr := runStatic(t, manifest, "--backend", backend, "--parallel", "2", "--fail-on", "never", "--out", out); code != 0 {
		t.Fatalf("the %s sweep exited %d:\n%s", backend, code, stderr)
	}
	return checkJVM(t, backend, readResultsDir(t, out), cells)
}

// TestJVMClientsOnDocker is the deliberate sample of kotlin-sdk and langchain4j on the docker
// backend (each image built with Maven from its pom.xml on TOOLSCORE_JAVA_IMAGE), through the
// real packages and the real proxy, each client once per class of the study's faults (a clean
// result, one whose structuredContent breaks the published schema, an isError result, a JSON-RPC
// error, an empty result) on stdio with the schema published, and a result of the wrong
// container on streamable HTTP; then, where a JDK and Maven are on this machine, the stdio sample
// on the local backend gives the same counts. The full product (every fault of the study × both
// schema modes × both transports, protocol 2026-07-28) runs nightly (TOOLSCORE_FULL=1).
func TestJVMClientsOnDocker(t *testing.T) {
	api := engine(t)
	sample := "clean, type-swap, error, rpc-error, empty"
	stdio := ledgerManifest(t, "jvm clients", jvmClients, sample, "[published]", "[2026-07-28]", "stdio")
	docker := jvmSweep(t, "docker", stdio, 2*5)
	if fullProduct() {
		jvmSweep(t, "docker", ledgerManifest(t, "jvm clients", jvmClients, ledgerFaults, "[hidden, published]", "[2026-07-28]", "stdio, http"), 2*11*2*2)
	} else {
		jvmSweep(t, "docker", ledgerManifest(t, "jvm clients", jvmClients, "wrong-container", "[published]", "[2026-07-28]", "http"), 2)
	}
	noLeftovers(t, api, "the JVM client sweeps")

	for _, p := range []string{"java", "javac", "mvn"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("the local half needs a JDK and Maven on this machine: %s not found", p)
		}
	}
	for k, v := range jvmSweep(t, "local", stdio, 2*5) {
		if docker[k] != v {
			t.Errorf("%s: local %s, docker %s", k, v, docker[k])
		}
	}
}

// langchain4jWant is what LangChain4j's AI service hands its model of each fault, read from
// langchain4j-mcp 1.18.1-beta28 and langchain4j 1.18.1 (their -sources.jar):
// ToolExecutionHelper.extractResult hands the model structuredContent, as its JSON, whenever the
// result has it (ToolExecutionHelper.java:27-37), else the text blocks (:38-45), and checks no
// schema, so the schema mode changes nothing and every result fault reaches the model as the
// wire had it: passed (the view is structured where structuredContent was sent, text where
// not). An isError result is thrown as ToolExecutionException with its text (:42-43) and
// ToolService.executeWithErrorHandling hands it back as an error result with that text
// (ToolService.java:954-980, the default handler :79-88): passed. A JSON-RPC error is thrown with
// its message (ToolExecutionHelper.java:50-57) and handed back the same way, an error of the
// wire's message: rpc-error.
func langchain4jWant(fault, schema string) string {
	if fault == "rpc-error" {
		return "rpc-error"
	}
	return "passed"
}

// langchain4jEvidence is what the rpc-error cell's evidence must hold: the wire's message, as the
// error handler hands it to the model.
func langchain4jEvidence(client, fault string) string {
	if client == "langchain4j" && fault == "rpc-error" {
		return "Internal error"
	}
	return ""
}
