package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/toolscore/toolscore/internal/client"
	"github.com/toolscore/toolscore/tally"
)

// clientsJSON runs toolscore clients --format json with args, and reads its rows by name.
func clientsJSON(t *testing.T, args ...string) (map[string]clientRow, []clientRow) {
	t.Helper()
	stdout, stderr, code := toolscore(t, ".", append([]string{"clients", "--format", "json"}, args...)...)
	if code != 0 {
		t.Fatalf("toolscore clients exited %d:\n%s", code, stderr)
	}
	var rows []clientRow
	if err := json.Unmarshal([]byte(stdout), &rows); err != nil {
		t.Fatalf("toolscore clients --format json: %v\n%s", err, stdout)
	}
	byName := map[string]clientRow{}
	for _, r := range rows {
		byName[r.From+" "+r.Name] = r
	}
	return byName, rows
}

// TestClientsWithoutDocker: with no Docker engine answering, toolscore clients lists every
// built-in client, says the Go clients and raw run on the local backend, and for the others says
// exactly what a local sweep records as the reason it could not run them; docker says no engine.
func TestClientsWithoutDocker(t *testing.T) {
	t.Setenv("DOCKER_HOST", "unix://"+filepath.Join(t.TempDir(), "no-engine.sock"))
	rows, all := clientsJSON(t)
	if len(all) != len(client.Names()) {
		t.Errorf("%d rows without a manifest, want one per built-in client (%d): %+v", len(all), len(client.Names()), all)
	}
	for _, n := range client.Names() {
		r, ok := rows["built-in "+n]
		if !ok {
			t.Errorf("no row of %s", n)
			continue
		}
		if r.Docker != "not: no Docker engine answered" {
			t.Errorf("%s: docker %q, want no engine", n, r.Docker)
		}
		if r.Library == "" || r.Version == "" || r.Pinned {
			t.Errorf("%s: library %q version %q pinned %v, want the default library and version", n, r.Library, r.Version, r.Pinned)
		}
	}
	for n, kind := range map[string]string{"go-sdk/call": "SDK client", "raw": "bare", "claude-code": "agent"} {
		if r := rows["built-in "+n]; r.Kind != kind {
			t.Errorf("%s: kind %q, want %q", n, r.Kind, kind)
		}
	}
	for _, n := range []string{"go-sdk/call", "mcp-go/list-then-call", "raw"} {
		if r := rows["built-in "+n]; r.Local != "yes" {
			t.Errorf("%s: local %q, want yes", n, r.Local)
		}
	}

	// With no node on PATH, a local sweep records ts-sdk/call as unavailable for that reason,
	// the one toolscore clients gives, and the Go client still runs.
	noNode := t.TempDir()
	out := t.TempDir()
	cmd := exec.Command(os.Args[0], "run", "--backend", "local", "--clients", "ts-sdk/call,go-sdk/call", "--faults", "clean", "--schema", "hidden", "--runs", "1", "--out", out)
	cmd.Env = append(os.Environ(), "PATH="+noNode)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("local sweep without node: %v\n%s", err, b)
	}
	var res tally.Results
	if err := json.Unmarshal([]byte(readFile(t, filepath.Join(out, "results.json"))), &res); err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(res.Unavailable, func(u tally.Unavailable) bool { return u.Client == "ts-sdk/call" })
	if i < 0 || res.Unavailable[i].Reason != "node not found on PATH" {
		t.Fatalf("without node, the local sweep's unavailable clients: %+v; want ts-sdk/call: node not found on PATH", res.Unavailable)
	}
	if len(res.Cells) != 2 || res.Cells[0].Client != "go-sdk/call" || res.Cells[0].Counts() != "passed 1/1" {
		t.Errorf("without node, the Go client's cells: %+v", res.Cells)
	}
	cmd = exec.Command(os.Args[0], "clients", "--format", "json")
	cmd.Env = append(os.Environ(), "PATH="+noNode, "DOCKER_HOST=unix:///nonexistent")
	b, _ := cmd.Output()
	var noNodeRows []clientRow
	if err := json.Unmarshal(b, &noNodeRows); err != nil {
		t.Fatalf("toolscore clients without node: %v\n%s", err, b)
	}
	for _, r := range noNodeRows {
		if r.Name == "ts-sdk/call" && r.Local != res.Unavailable[i].Reason {
			t.Errorf("ts-sdk/call: local %q, the local sweep says %q", r.Local, res.Unavailable[i].Reason)
		}
		// Without cargo, the Rust client's local install says what it lacks.
		if r.Name == "rmcp" && r.Local != "cargo not found on PATH (cargo builds the Rust adapter: install Rust, e.g. with rustup)" {
			t.Errorf("rmcp without cargo: local %q", r.Local)
		}
	}

	// The text form: a header, then a row per client.
	stdout, _, code := toolscore(t, ".", "clients")
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if code != 0 || !regexp.MustCompile(`^NAME +FROM +KIND +LIBRARY +VERSION +LOCAL +DOCKER$`).MatchString(lines[0]) || len(lines) != len(all)+1 {
		t.Fatalf("exit %d, text output:\n%s", code, stdout)
	}
	if !regexp.MustCompile(`(?m)^go-sdk/call +built-in +SDK client +github.com/modelcontextprotocol/go-sdk +v\S+ +yes +not: no Docker engine answered$`).MatchString(stdout) {
		t.Errorf("no aligned row of go-sdk/call:\n%s", stdout)
	}
}

// TestClientsManifestPins: a manifest's clients are listed after the built-in ones, a version pin
// shown as the version it runs; a Go client at a pin builds with go on the local backend.
func TestClientsManifestPins(t *testing.T) {
	t.Setenv("DOCKER_HOST", "unix://"+filepath.Join(t.TempDir(), "no-engine.sock"))
	manifest := filepath.Join(t.TempDir(), "pins.yaml")
	writeFile(t, manifest, `name: pins
server: {builtin: ledger}
tool: get_account_balance
arguments: {account_id: ACC-4471}
faults: [clean]
schema_modes: [hidden]
clients:
  - raw
  - name: go-sdk/list-then-call
    version: v1.7.0
  - name: python-sdk/call
    version: "2.2.0"
`)
	rows, all := clientsJSON(t, manifest)
	if len(all) != len(client.Names())+3 {
		t.Errorf("%d rows, want the built-in ones and the manifest's 3", len(all))
	}
	for name, want := range map[string]clientRow{
		"raw":                          {Version: version, Local: "yes"},
		"go-sdk/list-then-call@v1.7.0": {Version: "v1.7.0", Pinned: true, Local: "yes (builds with go)"},
		// Another version is another install: here already, or the first sweep's to make.
		"python-sdk/call@2.2.0": {Version: "2.2.0", Pinned: true, Local: "yes ("},
	} {
		r, ok := rows["manifest "+name]
		if !ok || r.Version != want.Version || r.Pinned != want.Pinned || !strings.HasPrefix(r.Local, want.Local) || (want.Local == "yes (" && r.Local == rows["built-in python-sdk/call"].Local && strings.Contains(r.Local, "installed in")) {
			t.Errorf("manifest row %s: %+v, want version %q pinned %v local %q", name, r, want.Version, want.Pinned, want.Local)
		}
	}
	stdout, _, _ := toolscore(t, ".", "clients", manifest)
	if !regexp.MustCompile(`(?m)^go-sdk/list-then-call@v1.7.0 +manifest +SDK client +github.com/modelcontextprotocol/go-sdk +v1.7.0 \(pinned\) +yes \(builds with go\) `).MatchString(stdout) {
		t.Errorf("no row of the pinned go-sdk/list-then-call:\n%s", stdout)
	}

	// Without go on PATH, the pinned Go client cannot be built: the reason is the one a local
	// sweep of the manifest records, and the other clients are unaffected.
	t.Setenv("PATH", t.TempDir())
	rows, _ = clientsJSON(t, manifest)
	out := t.TempDir()
	if _, stderr, code := toolscore(t, ".", "run", manifest, "--backend", "local", "--out", out); code != 0 {
		t.Fatalf("local sweep exited %d:\n%s", code, stderr)
	}
	var res tally.Results
	if err := json.Unmarshal([]byte(readFile(t, filepath.Join(out, "results.json"))), &res); err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(res.Unavailable, func(u tally.Unavailable) bool { return u.Client == "go-sdk/list-then-call@v1.7.0" })
	if i < 0 || !strings.Contains(res.Unavailable[i].Reason, "needs the go command on PATH") {
		t.Fatalf("the local sweep without go: unavailable %+v", res.Unavailable)
	}
	if got := rows["manifest go-sdk/list-then-call@v1.7.0"].Local; got != res.Unavailable[i].Reason {
		t.Errorf("without go: local %q, the local sweep says %q", got, res.Unavailable[i].Reason)
	}
	if got := rows["manifest raw"].Local; got != "yes" {
		t.Errorf("without go: raw local %q, want yes", got)
	}
}

// TestClientsBadInput: a manifest that does not load exits 2 with its errors as file:line:col,
// as toolscore run prints them; so does a bad flag.
func TestClientsBadInput(t *testing.T) {
	manifest := filepath.Join(t.TempDir(), "bad.yaml")
	writeFile(t, manifest, "name: bad\nserver: {builtin: ledger}\ntool: get_invoice\nfaults: [clean]\nschema_modes: [hidden]\nclients: [raw, no-such-client]\n")
	stdout, stderr, code := toolscore(t, ".", "clients", manifest)
	if code != 2 || stdout != "" || !regexp.MustCompile(`(?m)^`+regexp.QuoteMeta(manifest)+`:6:\d+: .*no-such-client`).MatchString(stderr) {
		t.Errorf("exit %d, stdout %q, stderr:\n%s", code, stdout, stderr)
	}
	for _, args := range [][]string{{"--format", "yaml"}, {"a.yaml", "b.yaml"}, {"--nope"}} {
		if _, stderr, code := toolscore(t, ".", append([]string{"clients"}, args...)...); code != 2 {
			t.Errorf("clients %v: exit %d, want 2:\n%s", args, code, stderr)
		}
	}
}

// TestClientsDockerImages: on a Docker engine, python-sdk's docker column agrees with the images
// toolscore images list shows: built when its cell image's tag is there, else buildable (its
// base image is). It builds nothing.
func TestClientsDockerImages(t *testing.T) {
	engine(t)
	// Mostly image builds and package installs, which leave the CPU idle: it runs beside
	// other tests, its leftovers told apart by the sweeps it started.
	bin := staticToolscore(t)
	run := func(args ...string) string {
		t.Helper()
		out, err := exec.Command(bin, args...).Output()
		if err != nil {
			t.Fatalf("toolscore %v: %v", args, err)
		}
		return string(out)
	}
	var rows []clientRow
	if err := json.Unmarshal([]byte(run("clients", "--format", "json")), &rows); err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(rows, func(r clientRow) bool { return r.Name == "python-sdk/call" })
	if i < 0 || !strings.HasPrefix(rows[i].Image, "toolscore/cell-python-sdk:") {
		t.Fatalf("no python-sdk/call row with its image: %+v", rows)
	}
	r := rows[i]
	listed := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(r.Image) + ` `).MatchString(run("images", "list"))
	switch {
	case listed && r.Docker != "built":
		t.Errorf("%s is listed by toolscore images list, toolscore clients says %q", r.Image, r.Docker)
	case !listed && r.Docker != "buildable" && !strings.HasPrefix(r.Docker, "not: its base image "):
		t.Errorf("%s is not built, toolscore clients says %q", r.Image, r.Docker)
	}
}
