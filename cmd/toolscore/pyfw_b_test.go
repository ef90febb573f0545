package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolscore/toolscore/scenarios"
	"github.com/toolscore/toolscore/tally"
)

// pyFrameworkClients are the Python agent frameworks whose adapters print what the framework
// hands its model (`handed`) rather than a CallToolResult.
const pyFrameworkClients = "openai-agents-py,langchain-py"

// pyFrameworkWant is what each framework does with a fault on the wire, found by running them
// (their images install openai-agents 0.24.0 with mcp 2.3.0, and langchain-mcp-adapters 0.3.2
// with langchain-core 1.8.3 and mcp 1.30.0, the newest mcp its `mcp<2.0.0` allows), schema
// published, protocol 2026-07-28. The line numbers are of those installed packages.
func pyFrameworkWant(client, fault string) string {
	switch client + " " + fault {
	case "openai-agents-py clean", "langchain-py clean":
		// The wire's text reaches the model unchanged: agents/mcp/util.py:803 (each text block
		// becomes a ToolOutputTextDict, one block alone at :819) and agents/items.py:1007 (an
		// input_text item of the function_call_output); langchain_mcp_adapters/tools.py:268-284
		// (the content blocks are the ToolMessage's content, structuredContent only the
		// artifact the model never sees).
		return "passed"
	case "openai-agents-py type-swap", "openai-agents-py wrong-container":
		// mcp 2.3.0 refuses the result under the agent: it negotiates 2026-07-28, whose
		// CallToolResult takes any structuredContent (mcp_types/_v2026_07_28/__init__.py:3022),
		// and validates it against the outputSchema the agent listed (mcp/client/session.py:1154,
		// a string for an integer, an array for an object); agents/mcp/util.py:780 re-raises it as an
		// AgentsException, the FunctionTool's failure handler catches it (agents/tool.py:700)
		// and the Agent's default failure_error_function (agents/agent.py:268) hands the model
		// agents/tool.py:2002's fixed "An error occurred while running the tool. Please try
		// again.": an error value where the wire had a result, rejected.
		return "rejected"
	case "openai-agents-py error":
		// An isError result keeps its content (agents/mcp/util.py:793-797 takes the structured
		// branch only for a result that is not an error), and the function_call_output
		// (agents/items.py:916) has no error flag: the model reads the server's error text as
		// an ordinary tool output, so the isError mark is lost, altered.
		return "altered"
	case "langchain-py type-swap":
		// mcp 1.30.0's ClientSession validates structuredContent against the outputSchema
		// load_mcp_tools listed on the same session (mcp/client/session.py:443) and raises a
		// RuntimeError, which is no ToolException: langchain-core passes it through
		// (langchain_core/tools/base.py:1258) and the agent's run stops, threw.
		return "threw"
	case "langchain-py wrong-container":
		// mcp 1.30.0's CallToolResult types structuredContent as an object (mcp/types.py:1130):
		// pydantic's ValidationError escapes the tool as above, threw.
		return "threw"
	case "langchain-py error":
		// isError becomes _MCPToolExecutionError (langchain_mcp_adapters/tools.py:274), a
		// ToolException the StructuredTool's handle_tool_error (tools.py:527, :535, :156) turns
		// into the error's content blocks in a ToolMessage with status "error"
		// (langchain_core/tools/base.py:1252-1257): an error for an error, passed.
		return "passed"
	}
	return "unknown"
}

// pyFrameworkManifest is the embedded ledger scenario narrowed to the deliberate sample: these
// faults, schema published, protocol 2026-07-28, one transport, one run a cell. Its timeout is
// generous: importing openai-agents alone takes seconds on a loaded machine.
func pyFrameworkManifest(t *testing.T, transport string, faults ...string) string {
	t.Helper()
	text := string(scenarios.Ledger)
	i := strings.Index(text, "\nfaults:")
	if i < 0 {
		t.Fatal("the embedded scenario has no faults section")
	}
	manifest := filepath.Join(t.TempDir(), "pyfw.yaml")
	writeFile(t, manifest, text[:i+1]+"faults: ["+strings.Join(faults, ", ")+"]\nschema_modes: [published]\nprotocols: [2026-07-28]\ntransports: ["+transport+
		"]\nclients: ["+pyFrameworkClients+"]\nruns: 1\ntimeout: 90s\n")
	return manifest
}

// checkPyFrameworks asserts every cell of a sweep against pyFrameworkWant, and that each
// framework says the library and version it ran.
func checkPyFrameworks(t *testing.T, res *tally.Results, cells int) {
	t.Helper()
	if len(res.Unavailable) > 0 || len(res.Cells) != cells {
		t.Fatalf("%d cells, unavailable %v; want %d and none", len(res.Cells), res.Unavailable, cells)
	}
	libraries := map[string]string{
		"openai-agents-py": "openai-agents 0.24.0 (mcp 2.3.0)",
		"langchain-py":     "langchain-mcp-adapters 0.3.2 (mcp 1.30.0)",
	}
	for _, c := range res.Cells {
		if want := pyFrameworkWant(c.Client, c.Fault); c.Outcome[want] != 1 {
			t.Errorf("%s: %s, want %s 1/1 (evidence: %v)", c.Coordinates(), c.Counts(), want, c.Examples)
		}
		if c.Library != libraries[c.Client] {
			t.Errorf("%s ran %q, want %q", c.Coordinates(), c.Library, libraries[c.Client])
		}
		// Every outcome here comes from what the framework handed its model (or raised): a
		// handed view is counted as the model's view.
		if c.Outcome["threw"] == 0 && c.ModelView["text"]+c.ModelView["error"] != 1 {
			t.Errorf("%s: model views %v, want one text or error", c.Coordinates(), c.ModelView)
		}
	}
}

// TestPythonFrameworksBOnDocker sweeps openai-agents-py and langchain-py on the docker backend
// through the real packages and the real proxy: clean, type-swap, wrong-container and error on
// stdio, type-swap on streamable HTTP too (both libraries speak it); then, where python3 is on
// this machine, the same stdio sample on the local backend gives the same counts.
func TestPythonFrameworksBOnDocker(t *testing.T) {
	api := engine(t)
	faults := []string{"clean", "type-swap", "wrong-container", "error"}
	stdio := pyFrameworkManifest(t, "stdio", faults...)
	out := t.TempDir()
	if code, _, stderr := runStatic(t, stdio, "--backend", "docker", "--parallel", "2", "--out", out); code != 0 && code != 1 {
		t.Fatalf("the stdio sweep exited %d:\n%s", code, stderr)
	}
	docker := readResultsDir(t, out)
	checkPyFrameworks(t, docker, 2*len(faults))

	httpOut := t.TempDir()
	if code, _, stderr := runStatic(t, pyFrameworkManifest(t, "http", "type-swap"), "--backend", "docker", "--parallel", "2", "--out", httpOut); code != 0 && code != 1 {
		t.Fatalf("the http sweep exited %d:\n%s", code, stderr)
	}
	checkPyFrameworks(t, readResultsDir(t, httpOut), 2)
	noLeftovers(t, api, "the Python framework sweeps")

	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3 on PATH: the local half of the check cannot run here")
	}
	localOut := t.TempDir()
	if code, _, stderr := runStatic(t, stdio, "--backend", "local", "--parallel", "2", "--out", localOut); code != 0 && code != 1 {
		t.Fatalf("the local sweep exited %d:\n%s", code, stderr)
	}
	local := readResultsDir(t, localOut)
	checkPyFrameworks(t, local, 2*len(faults))
	counts := func(r *tally.Results) map[string]string {
		m := map[string]string{}
		for _, c := range r.Cells {
			m[c.Key()] = c.Counts()
		}
		return m
	}
	d, l := counts(docker), counts(local)
	for k, v := range d {
		if l[k] != v {
			t.Errorf("%s: docker %s, local %s", k, v, l[k])
		}
	}
}
