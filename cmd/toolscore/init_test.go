package main

import (
	"net/http"
	"net/http/httptest"
	neturl "net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/toolscore/toolscore/scenario"
)

// TestInitLedger writes a starter for the built-in ledger: both its tools, under tools:; it
// refuses to run at the placeholder's line until it is filled, then runs.
func TestInitLedger(t *testing.T) {
	dir := t.TempDir()
	_, stderr, code := toolscore(t, dir, "init", "--builtin", "ledger")
	if code != 0 {
		t.Fatalf("init exited %d: %s", code, stderr)
	}
	b, err := os.ReadFile(filepath.Join(dir, "scenario.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	for _, want := range []string{"builtin: ledger", "tools:\n  - name: get_account_balance\n", "  - name: list_accounts\n    # Publishes an output schema.", "schema_modes: [hidden, published]", "  - wrong-container"} {
		if !strings.Contains(text, want) {
			t.Errorf("the starter lacks %q:\n%s", want, text)
		}
	}
	if _, stderr, code := toolscore(t, dir, "init", "--builtin", "ledger"); code != 2 || !strings.Contains(stderr, "never overwrites") {
		t.Errorf("a second init exited %d (%s); want 2, refusing to overwrite", code, stderr)
	}
	line := 1 + strings.Count(text[:strings.Index(text, "account_id: \"FILL IN")], "\n")
	_, stderr, code = toolscore(t, dir, "run", "scenario.yaml", "--backend", "local")
	if want := regexp.MustCompile(`scenario\.yaml:` + itoa(line) + `:\d+: tools\[0\]\.arguments\.account_id: fill this in`); code != 2 || !want.MatchString(stderr) {
		t.Fatalf("running the unfilled starter exited %d with %q; want 2 and an error at line %d", code, stderr, line)
	}
	filled := regexp.MustCompile(`"FILL IN[^"]*"`).ReplaceAllString(text, "ACC-4471")
	if err := os.WriteFile(filepath.Join(dir, "scenario.yaml"), []byte(filled), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	_, stderr, code = toolscore(t, dir, "run", "scenario.yaml", "--backend", "local", "--clients", "raw,go-sdk/list-then-call", "--faults", "clean,type-swap", "--runs", "1", "--out", out)
	if code != 0 {
		t.Fatalf("the filled starter exited %d:\n%s", code, stderr)
	}
	res := readResultsDir(t, out)
	if len(res.Cells) != 16 {
		t.Fatalf("got %d cells; want 16 (2 tools x 2 clients x 2 faults x 2 schema modes)", len(res.Cells))
	}
	for _, c := range res.Cells {
		if c.Client == "raw" && c.Counts() != "passed 1/1" {
			t.Errorf("raw %s %s: %s; want passed 1/1", c.Fault, c.Schema, c.Counts())
		}
	}
}

// TestInitThirdParty writes starters for a real server from npm (14 tools): by default one, the
// first that publishes an output schema, the others in comments (issue 39, item 7); with --tools,
// those named under tools:, which loads once its placeholders are filled; for one tool that
// publishes no output schema, the note, the schema faults left out, and the hidden mode alone.
// Filled in, it runs.
func TestInitThirdParty(t *testing.T) {
	server := everythingServer(t)
	dir := t.TempDir()
	stdout, stderr, code := toolscore(t, dir, "init", "--out", "-", "--", "node", server, "stdio")
	if code != 0 {
		t.Fatalf("init exited %d: %s", code, stderr)
	}
	for _, want := range []string{"\ntool: get-structured-content\n", "# echo (no output schema): Echoes back the input string", "schema_modes: [hidden, published]"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the default starter lacks %q:\n%s", want, stdout)
		}
	}
	stdout, stderr, code = toolscore(t, dir, "init", "--out", "-", "--tools", "get-structured-content,echo", "--", "node", server, "stdio")
	if code != 0 {
		t.Fatalf("init --tools exited %d: %s", code, stderr)
	}
	for _, want := range []string{"  - name: get-structured-content\n    # Publishes an output schema.", "  - name: echo\n    # No output schema.", "schema_modes: [hidden, published]"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the starter lacks %q:\n%s", want, stdout)
		}
	}
	every := regexp.MustCompile(`"FILL IN[^"]*"`).ReplaceAllString(stdout, "1")
	if _, err := scenario.Load("every.yaml", []byte(every), scenario.Known{}); err != nil {
		t.Errorf("the starter with two tools does not load once filled: %v\n%s", err, every)
	}
	_, stderr, code = toolscore(t, dir, "init", "--tool", "echo", "--", "node", server, "stdio")
	if code != 0 {
		t.Fatalf("init --tool echo exited %d: %s", code, stderr)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "scenario.yaml"))
	text := string(b)
	for _, want := range []string{"echo publishes no output schema", "# - type-swap", "schema_modes: [hidden]", `message: "FILL IN`} {
		if !strings.Contains(text, want) {
			t.Errorf("the starter lacks %q:\n%s", want, text)
		}
	}
	if _, err := scenario.Load("starter.yaml", b, scenario.Known{}); err == nil || !strings.Contains(err.Error(), "arguments.message: fill this in") {
		t.Errorf("loading the unfilled starter: %v; want the placeholder refused", err)
	}
	filled := regexp.MustCompile(`"FILL IN[^"]*"`).ReplaceAllString(text, "hello")
	if err := os.WriteFile(filepath.Join(dir, "scenario.yaml"), []byte(filled), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	_, stderr, code = toolscore(t, dir, "run", "scenario.yaml", "--backend", "local", "--clients", "raw", "--faults", "clean,corrupt", "--runs", "1", "--out", out)
	if code != 0 {
		t.Fatalf("the filled starter exited %d:\n%s", code, stderr)
	}
	for _, c := range readResultsDir(t, out).Cells {
		if c.Counts() != "passed 1/1" {
			t.Errorf("raw %s: %s; want passed 1/1", c.Fault, c.Counts())
		}
	}
}

// everythingServer installs the real @modelcontextprotocol/server-everything from npm into a
// temporary directory and returns its entry point.
func everythingServer(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("npm is not installed")
	}
	dir := t.TempDir()
	cmd := exec.Command("npm", "install", "--prefix", dir, "--no-audit", "--no-fund", "@modelcontextprotocol/server-everything@2026.8.31")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm install: %v\n%s", err, out)
	}
	return filepath.Join(dir, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestInitURL writes a starter for a url server (the ledger over HTTP behind a gate that answers
// 401 without the right Authorization): without --header init fails at the gate; with it, the
// starter names the url, the host network and auth_env, and once filled it runs through the proxy.
func TestInitURL(t *testing.T) {
	target, err := neturl.Parse(directLedger(t, "--stateless"))
	if err != nil {
		t.Fatal(err)
	}
	const secret = "Bearer init-secret-77"
	relay := relayTo(target)
	gate := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != secret {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		relay.ServeHTTP(w, r)
	}))
	defer gate.Close()
	endpoint := gate.URL + target.Path
	t.Setenv("TOOLSCORE_TEST_AUTH", secret)
	dir := t.TempDir()
	if _, stderr, code := toolscore(t, dir, "init", "--url", endpoint); code != 2 || !strings.Contains(stderr, "the server at "+endpoint) {
		t.Errorf("init without the header exited %d (%s); want 2, the gate refusing it", code, stderr)
	}
	if _, stderr, code := toolscore(t, dir, "init", "--url", endpoint, "--header", "X-Key=TOOLSCORE_TEST_AUTH"); code != 2 || !strings.Contains(stderr, "Authorization header alone") {
		t.Errorf("init with another header exited %d (%s); want 2", code, stderr)
	}
	_, stderr, code := toolscore(t, dir, "init", "--url", endpoint, "--header", "Authorization=TOOLSCORE_TEST_AUTH")
	if code != 0 {
		t.Fatalf("init exited %d: %s", code, stderr)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "scenario.yaml"))
	text := string(b)
	for _, want := range []string{"server:\n  url: " + endpoint + "\n", "  network: host\n", "  auth_env: TOOLSCORE_TEST_AUTH\n", "  - name: get_account_balance\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("the starter lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "init-secret") {
		t.Errorf("the starter holds the Authorization value:\n%s", text)
	}
	filled := regexp.MustCompile(`"FILL IN[^"]*"`).ReplaceAllString(text, "ACC-4471")
	if err := os.WriteFile(filepath.Join(dir, "scenario.yaml"), []byte(filled), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	_, stderr, code = toolscore(t, dir, "run", "scenario.yaml", "--backend", "local", "--clients", "raw", "--faults", "clean", "--tools", "get_account_balance", "--runs", "1", "--out", out)
	if code != 0 {
		t.Fatalf("the filled starter exited %d:\n%s", code, stderr)
	}
	for _, c := range readResultsDir(t, out).Cells {
		if c.Transport != "http" || c.Counts() != "passed 1/1" {
			t.Errorf("raw %s %s on %s: %s; want passed 1/1 on http", c.Fault, c.Schema, c.Transport, c.Counts())
		}
	}
}

// TestInitManyTools writes starters for the toolbox server (five tools, more than a starter
// calls by default; issue 39, item 7): one tool by default, the others in comments, each a
// --tools away; --tools writes a tools: list of those named; --env passes a variable the server
// needs and the manifest reads it with from_env, its value never written. A sweep over the
// limit then suggests --tools.
func TestInitManyTools(t *testing.T) {
	dir := t.TempDir()
	server := []string{"--", os.Args[0], "badserver", "toolbox"}
	stdout, stderr, code := toolscore(t, dir, append([]string{"init", "--out", "-"}, server...)...)
	if code != 0 {
		t.Fatalf("init exited %d: %s", code, stderr)
	}
	for _, want := range []string{"\ntool: get-sum\n", "# The server's other tools (toolscore init --tools A,B writes a tools: list", "# zecho (no output schema): Echoes message."} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the default starter lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "\ntools:") {
		t.Errorf("the default starter of a five-tool server calls every tool:\n%s", stdout)
	}
	stdout, stderr, code = toolscore(t, dir, append([]string{"init", "--out", "-", "--tools", "zecho,get-sum"}, server...)...)
	if code != 0 {
		t.Fatalf("init --tools exited %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "tools:\n  - name: zecho\n") || !strings.Contains(stdout, "\n  - name: get-sum\n") || strings.Contains(stdout, "name: time_now") {
		t.Errorf("init --tools zecho,get-sum:\n%s", stdout)
	}
	filled := filepath.Join(dir, "two.yaml")
	writeFile(t, filled, regexp.MustCompile(`"FILL IN[^"]*"`).ReplaceAllString(stdout, "1"))
	_, stderr, code = toolscore(t, dir, "run", filled, "--backend", "local", "--max-runs", "10")
	if want := "narrow it with --tools NAME,... (the scenario calls 2 tools: zecho, get-sum), --clients"; code != 2 || !strings.Contains(stderr, want) {
		t.Errorf("the sweep over the limit exited %d, want 2 and %q:\n%s", code, want, stderr)
	}

	// A server that needs a variable: refused without it, named with --env.
	envServer := []string{"--", os.Args[0], "badserver", "toolbox-env"}
	_, stderr, code = toolscore(t, dir, append([]string{"init", "--out", "-"}, envServer...)...)
	if code != 2 || !strings.Contains(stderr, "Error: TOOLBOX_TOKEN environment variable is not set") || !strings.Contains(stderr, "toolscore init --env NAME") {
		t.Errorf("init of a server missing its variable exited %d, want 2, its stderr and the --env hint:\n%s", code, stderr)
	}
	// One line says so, without the whole usage (issue 52, item 7).
	if _, stderr, code = toolscore(t, dir, append([]string{"init", "--env", "TOOLBOX_TOKEN"}, envServer...)...); code != 2 ||
		stderr != "toolscore init: --env TOOLBOX_TOKEN: TOOLBOX_TOKEN is not set in toolscore's environment, where the server would get it from (export it first)\n" {
		t.Errorf("init --env of an unset variable exited %d, want 2 and one line:\n%s", code, stderr)
	}
	const secret = "tok-8f3a1c"
	t.Setenv(toolboxTokenEnv, secret)
	if _, stderr, code = toolscore(t, dir, append([]string{"init", "--env", "TOOLBOX_TOKEN", "--out", "env.yaml"}, envServer...)...); code != 0 {
		t.Fatalf("init --env exited %d: %s", code, stderr)
	}
	text := readFile(t, filepath.Join(dir, "env.yaml"))
	if !strings.Contains(text, "  env:\n    TOOLBOX_TOKEN: {from_env: TOOLBOX_TOKEN}\n") || strings.Contains(text, secret) {
		t.Errorf("the starter of init --env:\n%s", text)
	}
	sc, err := scenario.Load("env.yaml", []byte(regexp.MustCompile(`"FILL IN[^"]*"`).ReplaceAllString(text, "1")), scenario.Known{})
	if err != nil {
		t.Fatal(err)
	}
	if env, _, err := sc.ServerEnv(os.LookupEnv); err != nil || len(env) != 1 || env[0] != "TOOLBOX_TOKEN="+secret {
		t.Errorf("the starter's server env: %v, %v", env, err)
	}
}
