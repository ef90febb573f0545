package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCommandServerInstalledOnImages runs a server that is not the built-in ledger: the real
// npm package @modelcontextprotocol/server-everything, installed by the manifest's install step
// on each client's image (the TypeScript SDK's, and a ready image the manifest names for raw),
// through faults on its get-structured-content tool. The go-sdk client's image has no shell, so
// the install cannot run there: that client is unavailable, saying why, and the rest still run.
// A second sweep finds every image built already.
func TestCommandServerInstalledOnImages(t *testing.T) {
	api := engine(t)
	// Mostly image builds and package installs, which leave the CPU idle: it runs beside
	// other tests, its leftovers told apart by the sweeps it started.
	ready := os.Getenv("TOOLSCORE_NODE_IMAGE")
	if ready == "" {
		t.Skip("TOOLSCORE_NODE_IMAGE names no local node image to use as a ready client image")
	}
	manifest := filepath.Join(t.TempDir(), "everything.yaml")
	text := `name: server-everything
server:
  command: [mcp-server-everything, stdio]
  install: npm install -g --no-audit --no-fund @modelcontextprotocol/server-everything@2026.8.31
tool: get-structured-content
arguments: {location: Chicago}
faults: [clean, type-swap]
schema_modes: [hidden, published]
clients:
  - ts-sdk/list-then-call
  - {name: raw, image: "` + ready + `"}
  - go-sdk/call
runs: 1
timeout: 30s
`
	if err := os.WriteFile(manifest, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	for sweep := 1; sweep <= 2; sweep++ {
		out := t.TempDir()
		code, _, stderr := runStatic(t, manifest, "--backend", "docker", "--out", out)
		if code != 0 {
			t.Fatalf("sweep %d exited %d:\n%s", sweep, code, stderr)
		}
		if sweep == 2 && (strings.Contains(stderr, "built ") || strings.Contains(stderr, "installed the server")) {
			t.Errorf("the second sweep built images again:\n%s", stderr)
		}
		res := readResultsDir(t, out)
		if len(res.Unavailable) != 1 || res.Unavailable[0].Client != "go-sdk/call" || !strings.Contains(res.Unavailable[0].Reason, "server.install") {
			t.Errorf("unavailable %+v; want go-sdk/call, its install step failing", res.Unavailable)
		}
		got := map[string]string{}
		for _, c := range res.Cells {
			got[c.Client+" "+c.Fault+" "+c.Schema] = c.Counts()
		}
		want := map[string]string{
			"raw clean hidden": "passed 1/1", "raw clean published": "passed 1/1",
			"raw type-swap hidden": "passed 1/1", "raw type-swap published": "passed 1/1",
			"ts-sdk/list-then-call clean hidden": "passed 1/1", "ts-sdk/list-then-call clean published": "passed 1/1",
			// The SDK validates structuredContent against the schema it was shown, so only the
			// published schema catches the string-typed temperature (and it throws).
			"ts-sdk/list-then-call type-swap hidden": "passed 1/1", "ts-sdk/list-then-call type-swap published": "threw 1/1",
		}
		for k, w := range want {
			if got[k] != w {
				t.Errorf("sweep %d: %s: %q, want %q", sweep, k, got[k], w)
			}
		}
		if len(got) != len(want) {
			t.Errorf("sweep %d: cells %v", sweep, got)
		}
	}
	noLeftovers(t, api, "the server-everything sweeps")
}
