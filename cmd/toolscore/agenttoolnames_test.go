package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolscore/toolscore/internal/transcript"
	"github.com/toolscore/toolscore/record"
)

// toolNamesImageTag is the image server the agents' tool-name sweep builds from
// testdata/toolnames.
const toolNamesImageTag = "toolscore-test/toolnames:1"

// agentToolNames is the name each agent CLI offers its model each of toolNames under, as the
// scripted model called it in the CLI's cell (each CLI's rule: internal/model/names.go). Claude
// Code and opencode replace the dot with "_"; Codex 0.171.0 the hyphen too; Gemini CLI keeps
// both and cuts a name over 63 characters to its first and last 30 around "..."; Qwen Code keeps
// the hyphen, and hashes a name with a dot or over 63 characters; Copilot CLI makes the dot "-"
// and cuts the name at 64.
var agentToolNames = map[string][3]string{
	"claude-code": {"mcp__scenario__get-sum", "mcp__scenario__math_add", "mcp__scenario__" + toolNames[2]},
	"codex":       {"mcp__scenario__get_sum", "mcp__scenario__math_add", "mcp__scenario__" + toolNames[2]},
	"gemini-cli":  {"mcp_scenario_get-sum", "mcp_scenario_math.add", "mcp_scenario_sum_of_two_number...n_sixty_four_characters_in_all"},
	"qwen-code":   {"mcp__scenario__get-sum", "mcp__scenario__math_add_0vljia2", "mcp__scenario__sum_of_two_numbers_with_a_name_longer_th_077qbsh"},
	"opencode":    {"scenario_get-sum", "scenario_math_add", "scenario_" + toolNames[2]},
	"copilot-cli": {"scenario-get-sum", "scenario-math-add", "scenario-sum_of_two_numbers_with_a_name_longer_than_sixty_four_c"},
}

// TestAgentToolNamesOnDocker sweeps every agent CLI, in its cell image against the scripted
// model, over the bare server of testdata/toolnames (as an image server: its tools named
// toolNames), clean, one run a cell. Each CLI shows its model an MCP tool under a name of its
// own making (see agentToolName), and the scripted model must call the tool the cell asked for
// under that name: every cell passes, the proxy saw the call of its own tool, the model got
// that tool's sum, and the adapter reports the name the model called (agentToolNames). Before
// the scripted model knew these names, 9 of the 18 cells failed: Codex's get-sum; math.add
// with all but Gemini CLI (opencode's graded not-ready: its first model request, a title, comes
// before the tools are listed); the long name with Gemini CLI, Qwen Code and Copilot CLI.
func TestAgentToolNamesOnDocker(t *testing.T) {
	api := engine(t)
	base := os.Getenv("TOOLSCORE_NODE_IMAGE")
	if base == "" {
		t.Skip("TOOLSCORE_NODE_IMAGE names no local node image to build the server image from")
	}
	buildImage(t, api, "testdata/toolnames", toolNamesImageTag, map[string]string{"BASE_IMAGE": base})

	agents := []string{"claude-code", "codex", "gemini-cli", "qwen-code", "opencode", "copilot-cli"}
	index := map[string]int{}
	for i, n := range toolNames {
		index[n] = i
	}
	var tools strings.Builder
	for _, n := range toolNames {
		tools.WriteString("  - {name: " + n + ", arguments: {a: 2, b: 3}, truth: [\"5\"]}\n")
	}
	manifest := filepath.Join(t.TempDir(), "agent-toolnames.yaml")
	writeFile(t, manifest, "name: agent tool names\nserver: {image: \""+toolNamesImageTag+"\", command: [node, /opt/toolnames/server.mjs]}\n"+
		"tools:\n"+tools.String()+"faults: [clean]\nschema_modes: [as-is]\nprotocols: [2025-11-25]\n"+
		"clients: ["+strings.Join(agents, ", ")+"]\nruns: 1\ntimeout: 180s\n")
	out := t.TempDir()
	start := time.Now()
	code, _, stderr := runStatic(t, manifest, "--backend", "docker", "--parallel", "2", "--out", out)
	if code != 0 {
		t.Fatalf("the sweep exited %d:\n%s", code, stderr)
	}
	t.Logf("%d agents × %d tools in %s at parallel 2 (image builds included when they were needed)", len(agents), len(toolNames), time.Since(start).Round(time.Second))
	res := readResultsDir(t, out)
	if len(res.Unavailable) > 0 || len(res.Cells) != len(agents)*len(toolNames) {
		t.Fatalf("%d cells, unavailable %v; want %d and none", len(res.Cells), res.Unavailable, len(agents)*len(toolNames))
	}
	for _, c := range res.Cells {
		if c.Outcome["passed"] != 1 || c.ModelView["text"] != 1 || c.Answer["truth"] != 1 {
			t.Errorf("%s: %s, model view %v, answer %v; want passed, text, truth; evidence %v", c.Coordinates(), c.Counts(), c.ModelView, c.Answer, c.Examples)
		}
	}

	f, err := os.Open(filepath.Join(out, "runs.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var rec record.Run
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatal(err)
		}
		name := rec.Client + " × " + rec.Tool
		if rec.Observation == nil || rec.Observation.Agent == nil {
			t.Errorf("%s: %s with no agent observation: %s (stderr: %s)", name, rec.Outcome, rec.Evidence, rec.Stderr)
			continue
		}
		v := rec.Observation.Agent.ModelView
		if want := agentToolNames[rec.Client][index[rec.Tool]]; v.Called != want {
			t.Errorf("%s: the model called %q, want %q", name, v.Called, want)
		}
		if want := rec.Tool + ": 5"; strings.TrimSpace(v.Excerpt) != want {
			t.Errorf("%s: the model got %q, want %q", name, v.Excerpt, want)
		}
		// The one call on the wire named the cell's own tool, as the server knows it.
		if called := wireCalls(t, filepath.Join(out, rec.Tee)); len(called) != 1 || called[0] != rec.Tool {
			t.Errorf("%s: the transcript's tools/call requests name %q, want [%s]", name, called, rec.Tool)
		}
	}
	noLeftovers(t, api, "the agents' tool-name sweep")
}

// wireCalls lists the tool each tools/call request of the transcript at path names.
func wireCalls(t *testing.T, path string) []string {
	t.Helper()
	entries, err := transcript.Read(path)
	if err != nil {
		t.Errorf("reading %s: %v", path, err)
	}
	var names []string
	for _, e := range entries {
		var m struct {
			Method string `json:"method"`
			Params struct {
				Name string `json:"name"`
			} `json:"params"`
		}
		if e.Dir == transcript.ClientToServer && json.Unmarshal(e.Wire, &m) == nil && m.Method == "tools/call" {
			names = append(names, m.Params.Name)
		}
	}
	return names
}
