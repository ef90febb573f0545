package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// toolboxManifest writes a manifest sweeping the toolbox server (badserver toolbox) with body
// after its server line, and returns its path.
func toolboxManifest(t *testing.T, mode, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "toolbox.yaml")
	writeFile(t, path, "name: toolbox\nserver:\n  command: [\""+os.Args[0]+"\", badserver, "+mode+"]\n"+body)
	return path
}

// lineOf is the 1-based line of the first line of text that contains s.
func lineOf(t *testing.T, path, s string) string {
	t.Helper()
	for i, l := range strings.Split(readFile(t, path), "\n") {
		if strings.Contains(l, s) {
			return itoa(i + 1)
		}
	}
	t.Fatalf("%s holds no line with %q", path, s)
	return ""
}

// TestPreflightTools sweeps the toolbox server (five tools, two a page) with a misspelt tool and
// arguments its inputSchema refuses (issue 39, item 3): without a preflight every cell was
// rpc-error or passed and the sweep exited 0. Now the sweep exits 2 before any run, at the
// file:line:col of each tool or arguments key, naming the closest tool and what fails; the
// tool on the listing's last page is found (nextCursor followed), and a right manifest runs.
func TestPreflightTools(t *testing.T) {
	manifest := toolboxManifest(t, "toolbox", `tools:
  - name: get-summ
    arguments: {a: 1, b: 2}
  - name: zecho
    arguments: {msg: hi}
  - name: get-sum
    arguments: # block
      a: one
      b: 2
faults: [clean]
schema_modes: [hidden]
clients: [raw]
runs: 1
`)
	out := filepath.Join(t.TempDir(), "out")
	_, stderr, code := toolscore(t, "", "run", manifest, "--backend", "local", "--out", out)
	if code != 2 {
		t.Fatalf("exit %d, want 2:\n%s", code, stderr)
	}
	f := regexp.QuoteMeta(manifest)
	for _, want := range []string{
		f + `:` + lineOf(t, manifest, "get-summ") + `:11: tools\[0\]\.name: the server lists no tool "get-summ"; did you mean "get-sum"\? It lists 5: "get-sum", "get.status", "list-items", "time_now", "zecho"`,
		f + `:` + lineOf(t, manifest, "{msg: hi}") + `:5: tools\[1\]\.arguments: the arguments do not fit the inputSchema the server lists for "zecho": at '': missing property 'message'`,
		f + `:` + lineOf(t, manifest, "# block") + `:5: tools\[2\]\.arguments: the arguments do not fit the inputSchema the server lists for "get-sum": at '/a': got string, want number`,
	} {
		if !regexp.MustCompile(`(?m)^` + want).MatchString(stderr) {
			t.Errorf("stderr lacks %s:\n%s", want, stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "runs.jsonl")); err == nil {
		t.Errorf("the refused sweep ran cells")
	}

	// The single-tool form: no arguments at all, the error at the tool's name (issue 52, item 3:
	// at its value, as docs/manifest.md says, not the key).
	single := toolboxManifest(t, "toolbox", "tool: zecho\nfaults: [clean]\nschema_modes: [hidden]\nclients: [raw]\nruns: 1\n")
	_, stderr, code = toolscore(t, "", "run", single, "--backend", "local", "--out", filepath.Join(t.TempDir(), "out"))
	if want := single + ":" + lineOf(t, single, "tool: zecho") + ":7: tool: the arguments do not fit the inputSchema the server lists for \"zecho\": at '': missing property 'message'"; code != 2 || !strings.Contains(stderr, want) {
		t.Errorf("single tool without arguments: exit %d, want 2 and %q:\n%s", code, want, stderr)
	}

	// Right, the sweep runs: the last page's tool included.
	good := toolboxManifest(t, "toolbox", "tools:\n  - name: zecho\n    arguments: {message: hi}\n  - name: get-sum\n    arguments: {a: 1, b: 2}\nfaults: [clean]\nschema_modes: [hidden]\nclients: [raw]\nruns: 1\n")
	out = filepath.Join(t.TempDir(), "out")
	if _, stderr, code := toolscore(t, "", "run", good, "--backend", "local", "--out", out); code != 0 {
		t.Fatalf("the right manifest exited %d:\n%s", code, stderr)
	}
	for _, c := range readResultsDir(t, out).Cells {
		if c.Counts() != "passed 1/1" {
			t.Errorf("%s: %s, want passed 1/1", c.Coordinates(), c.Counts())
		}
	}
}

// TestPreflightServerExits sweeps a server that exits at once without its variable, as an npx
// server does, its last stderr line an npm notice (issue 39, item 7d): the sweep is refused once,
// before any run, exit 2, quoting the line that says why and naming from_env; with the variable
// passed on by from_env (through the preflight's proxy too) the sweep runs.
func TestPreflightServerExits(t *testing.T) {
	body := "tool: time_now\nfaults: [clean]\nschema_modes: [hidden]\nclients: [raw, go-sdk/call]\nruns: 1\n"
	manifest := toolboxManifest(t, "toolbox-env", body)
	out := filepath.Join(t.TempDir(), "out")
	_, stderr, code := toolscore(t, "", "run", manifest, "--backend", "local", "--out", out)
	if code != 2 {
		t.Fatalf("exit %d, want 2:\n%s", code, stderr)
	}
	for _, want := range []string{
		"toolscore run: the server exited with status 1 before answering initialize when toolscore started it once before the sweep",
		"it said: Error: TOOLBOX_TOKEN environment variable is not set",
		"{env: {NAME: {from_env: NAME}}}",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if strings.Contains(stderr, "New minor version") {
		t.Errorf("the refusal quotes the npm notice:\n%s", stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "runs.jsonl")); err == nil {
		t.Errorf("the refused sweep ran cells")
	}
	t.Setenv(toolboxTokenEnv, "s3cret-token")
	passed := toolboxManifest(t, "toolbox-env", "  env: {TOOLBOX_TOKEN: {from_env: TOOLBOX_TOKEN}}\n"+body)
	if _, stderr, code := toolscore(t, "", "run", passed, "--backend", "local", "--out", filepath.Join(t.TempDir(), "out")); code != 0 {
		t.Fatalf("with from_env the sweep exited %d:\n%s", code, stderr)
	}
}

// everythingVersion is the pinned @modelcontextprotocol/server-everything the preflight test runs.
const everythingVersion = "2026.8.31"

// TestPreflightEverythingServer sweeps the real @modelcontextprotocol/server-everything, started by
// npx as a user's manifest starts it, with a misspelt tool, a call missing its required argument
// and one whose argument has the wrong type (issue 39, item 3): before any run the sweep exits 2,
// at each key's file:line:col, saying what is wrong. It skips without npm unless
// TOOLSCORE_REQUIRE_NPM=1.
func TestPreflightEverythingServer(t *testing.T) {
	if _, err := exec.LookPath("npx"); err != nil {
		if os.Getenv("TOOLSCORE_REQUIRE_NPM") == "1" {
			t.Fatal("npx is not installed, and TOOLSCORE_REQUIRE_NPM=1")
		}
		t.Skip("npx is not installed")
	}
	dir := t.TempDir()
	manifest := filepath.Join(dir, "everything.yaml")
	writeFile(t, manifest, `name: everything
server: {command: [npx, -y, "@modelcontextprotocol/server-everything@`+everythingVersion+`", stdio]}
tools:
  - name: get_sum
    arguments: {a: 1, b: 2}
  - name: echo
  - name: get-sum
    arguments: {a: "1", b: 2}
faults: [clean]
schema_modes: [hidden]
clients: [raw]
runs: 1
`)
	out := filepath.Join(dir, "out")
	_, stderr, code := toolscore(t, dir, "run", manifest, "--backend", "local", "--out", out)
	if code != 2 {
		t.Fatalf("exit %d, want 2:\n%s", code, stderr)
	}
	for _, want := range []string{
		manifest + ":4:11: tools[0].name: the server lists no tool \"get_sum\"; did you mean \"get-sum\"? It lists 14: \"echo\", ",
		manifest + ":6:11: tools[1].name: the arguments do not fit the inputSchema the server lists for \"echo\": at '': missing property 'message'",
		manifest + ":8:5: tools[2].arguments: the arguments do not fit the inputSchema the server lists for \"get-sum\": at '/a': got string, want number",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "runs.jsonl")); err == nil {
		t.Errorf("the refused sweep ran cells")
	}
}

// TestNoCellRan sweeps, on the local backend with no node on PATH, only a client that needs node
// (issue 39, item 3): no cell can run, so the sweep exits 2 saying so and why, not 0 with an
// empty matrix.
func TestNoCellRan(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	cmd := exec.Command(os.Args[0], "run", "--backend", "local", "--clients", "ts-sdk/call", "--faults", "clean", "--schema", "hidden", "--runs", "1", "--out", out)
	cmd.Env = append(os.Environ(), "PATH="+t.TempDir())
	b, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 2 {
		t.Fatalf("exit %v, want 2:\n%s", err, b)
	}
	if want := "toolscore run: no cell ran: no client of the scenario can run here (ts-sdk/call: node not found on PATH)"; !strings.Contains(string(b), want) {
		t.Errorf("the sweep does not say %q:\n%s", want, b)
	}
}

// TestSchemaFaultsNotApplicable sweeps the schema faults over a tool that publishes no
// outputSchema (zecho) and one that does (get-sum) (issue 39, item 7b): on zecho they used to run
// and count a green passed where nothing changed; now its cells of them are not run, and the
// results, the terminal report and summary.md say they are not applicable, and a replay of the
// sweep leaves out the same cells. With an output_schema in the manifest they apply again.
func TestSchemaFaultsNotApplicable(t *testing.T) {
	body := "tools:\n  - name: zecho\n    arguments: {message: hi}\n%s  - name: get-sum\n    arguments: {a: 1, b: 2}\nfaults: [clean, type-swap, drop-required]\nschema_modes: [hidden]\nclients: [raw]\nruns: 1\n"
	manifest := toolboxManifest(t, "toolbox", strings.Replace(body, "%s", "", 1))
	out := filepath.Join(t.TempDir(), "out")
	stdout, stderr, code := toolscore(t, "", "run", manifest, "--backend", "local", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	res := readResultsDir(t, out)
	got := map[string]string{}
	for _, c := range res.Cells {
		got[c.Tool+" "+c.Fault] = c.Counts()
	}
	if len(got) != 4 || got["zecho clean"] != "passed 1/1" || got["get-sum type-swap"] == "" || got["zecho type-swap"] != "" || got["zecho drop-required"] != "" {
		t.Errorf("cells %v; want zecho clean alone of zecho's, and get-sum's three", got)
	}
	if len(res.NotApplicable) != 1 || res.NotApplicable[0].Tool != "zecho" || strings.Join(res.NotApplicable[0].Faults, ",") != "type-swap,drop-required" {
		t.Errorf("not applicable: %+v; want zecho: type-swap, drop-required", res.NotApplicable)
	}
	for what, text := range map[string]string{
		"stdout":      stdout,
		"stderr":      stderr,
		"summary.md":  readFile(t, filepath.Join(out, "summary.md")),
		"report.html": readFile(t, filepath.Join(out, "report.html")),
	} {
		if !regexp.MustCompile(`(?is)not applicable, not run.{0,40}?type-swap, drop-required(\*\*)? on zecho`).MatchString(text) {
			t.Errorf("%s does not say the cells are not applicable:\n%s", what, text)
		}
	}
	// Replayed, the sweep leaves out the same cells, with no server to list its tools.
	replayed := filepath.Join(t.TempDir(), "replayed")
	if _, stderr, code := toolscore(t, "", "run", manifest, "--replay", out, "--backend", "local", "--out", replayed); code != 0 {
		t.Fatalf("the replay exited %d:\n%s", code, stderr)
	}
	if res := readResultsDir(t, replayed); len(res.Cells) != 4 || len(res.NotApplicable) != 1 {
		t.Errorf("the replay: %d cells, not applicable %+v; want 4 and zecho's", len(res.Cells), res.NotApplicable)
	}

	withSchema := toolboxManifest(t, "toolbox", strings.Replace(body, "%s", "    output_schema: {type: object, properties: {echo: {type: string}}}\n", 1))
	out = filepath.Join(t.TempDir(), "out")
	if _, stderr, code := toolscore(t, "", "run", withSchema, "--backend", "local", "--out", out); code != 0 {
		t.Fatalf("with output_schema: exit %d:\n%s", code, stderr)
	}
	if res := readResultsDir(t, out); len(res.Cells) != 6 || len(res.NotApplicable) != 0 {
		t.Errorf("with output_schema: %d cells, not applicable %+v; want 6 and none", len(res.Cells), res.NotApplicable)
	}
}
