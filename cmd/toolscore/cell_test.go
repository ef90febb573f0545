package main

import (
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/toolscore/toolscore/internal/backend/incell"
	"github.com/toolscore/toolscore/internal/client"
)

// cellServe is toolscore cell's --serve value for command, with proxyEnv for it alone.
func cellServe(t *testing.T, proxyEnv []string, command ...string) string {
	t.Helper()
	b, err := json.Marshal(incell.Serve{Command: command, ProxyEnv: proxyEnv})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// runCell runs toolscore cell with env added to the test's environment.
func runCell(t *testing.T, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"cell"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	var o, e strings.Builder
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	return o.String(), e.String(), exitCode(err)
}

// TestCellServesHTTP: toolscore cell --serve starts the server command (here the ledger over
// HTTP, as the proxy will be), hands its URL to the adapter in TOOLSCORE_URL with no server
// command and none of the variables meant for the proxy alone, and stops it (SIGTERM, waited
// for) once the adapter is done: the adapter's observation is what the cell prints.
func TestCellServesHTTP(t *testing.T) {
	self := os.Args[0]
	ledger := cellServe(t, []string{"CELL_TEST_SECRET"}, self, "ledger", "--stateless", "--http", "127.0.0.1:0")
	env := []string{
		client.EnvTool + "=get_account_balance", client.EnvArguments + `={"account_id":"ACC-4471"}`,
		client.EnvServer + `=["/nonexistent"]`, "CELL_TEST_SECRET=s3cret", incell.EnvCellStream + "=",
	}
	stdout, stderr, code := runCell(t, env, "--serve", ledger, "--", self, "client", "raw")
	if code != 0 || !strings.Contains(stdout, `ACC-4471: balance 40,718.77 USD`) {
		t.Fatalf("raw over HTTP: exit %d, stdout %s\nstderr %s", code, stdout, stderr)
	}

	// What the adapter sees, and that the server is gone once the cell is.
	stdout, stderr, code = runCell(t, env, "--serve", ledger, "--", "/bin/sh", "-c", "env | grep -E '^(TOOLSCORE_|CELL_TEST)' | sort")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var url string
	for _, kv := range strings.Split(strings.TrimSpace(stdout), "\n") {
		name, value, _ := strings.Cut(kv, "=")
		switch name {
		case client.EnvURL:
			url = value
		case client.EnvServer, "CELL_TEST_SECRET", incell.EnvCellStream:
			t.Errorf("the adapter was given %s", kv)
		}
	}
	if !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.HasSuffix(url, "/mcp") {
		t.Fatalf("TOOLSCORE_URL %q, want the ledger's endpoint on loopback (env: %s)", url, stdout)
	}
	if resp, err := http.Post(url, "application/json", strings.NewReader(`{}`)); err == nil {
		resp.Body.Close()
		t.Errorf("the served ledger still answers at %s after the cell exited", url)
	}

	// A command that does not print its URL first fails the cell, saying what it printed.
	_, stderr, code = runCell(t, env, "--serve", cellServe(t, nil, "/bin/echo", "listening soon"), "--", self, "client", "raw")
	if code == 0 || !strings.Contains(stderr, `/bin/echo did not print its URL first (it printed "listening soon\n")`) {
		t.Errorf("a serve command printing no URL: exit %d, stderr %s", code, stderr)
	}
	// One that fails says why in the error, where a run's evidence shows it.
	_, stderr, code = runCell(t, env, "--serve", cellServe(t, nil, "/bin/sh", "-c", "echo starting >&2; echo no transcript here >&2; exit 2"), "--", self, "client", "raw")
	if code == 0 || !strings.Contains(stderr, `/bin/sh did not print its URL first (it printed ""); its stderr ended: starting | no transcript here`) {
		t.Errorf("a serve command failing to start: exit %d, stderr %s", code, stderr)
	}
}
