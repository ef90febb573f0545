package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolscore/toolscore/internal/client"
	"github.com/toolscore/toolscore/internal/replay"
	"github.com/toolscore/toolscore/record"
)

// adapterRun runs `toolscore client NAME` against server asking for account, and returns its
// observation line exactly as printed.
func adapterRun(t *testing.T, name string, server []string, account string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "client", name)
	req := client.Request{Server: server, Tool: "get_account_balance", Arguments: map[string]any{"account_id": account}}
	cmd.Env = append(os.Environ(), req.Env()...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("toolscore client %s: %v\n%s", name, err, stderr.String())
	}
	return string(out)
}

// TestReplayGivesTheLiveObservation runs each built-in client live through the proxy around the
// ledger, then again against `toolscore replay` of that run's transcript with no server at all,
// under both protocol generations and several faults: every observation is the live one, byte
// for byte (the latency fault keeps its delay, so the bare client times it the same).
func TestReplayGivesTheLiveObservation(t *testing.T) {
	clients := []string{"raw", "go-sdk/call", "go-sdk/list-then-call", "mcp-go/call", "mcp-go/list-then-call"}
	faults := []string{"clean", "type-swap", "rpc-error", "corrupt-plausible", "truncate"}
	for _, name := range clients {
		for _, f := range faults {
			for _, protocol := range []string{"2026-07-28", "2025-11-25"} {
				t.Run(name+"/"+f+"/"+protocol, func(t *testing.T) {
					t.Parallel()
					live, tee := proxyCommand(t, f, "published", "--protocol", protocol)
					want := adapterRun(t, name, live, "ACC-4471")
					got := adapterRun(t, name, []string{os.Args[0], "replay", tee}, "ACC-4471")
					if got != want {
						t.Errorf("replayed observation\n%s\nwant the live one\n%s", got, want)
					}
				})
			}
		}
	}
}

// TestReplayDivergentClient records one client's call, then has clients ask for another account
// against that recording: each gets the replayer's JSON-RPC error, and the replayer's stderr
// says what the recording expected and what came.
func TestReplayDivergentClient(t *testing.T) {
	for _, name := range []string{"raw", "go-sdk/call", "mcp-go/call"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			live, tee := proxyCommand(t, "clean", "published")
			adapterRun(t, name, live, "ACC-4471")
			// The replayer's stderr goes through a wrapper script of the replay command into a
			// file, as the adapters keep their server's stderr to themselves.
			errFile := filepath.Join(t.TempDir(), "replay.err")
			server := []string{"/bin/sh", "-c", `exec "$0" replay "$1" 2>"$2"`, os.Args[0], tee, errFile}
			var obs record.Observation
			if err := json.Unmarshal([]byte(adapterRun(t, name, server, "ACC-4476")), &obs); err != nil {
				t.Fatal(err)
			}
			if obs.Raised == nil || !strings.Contains(obs.Raised.Message, "toolscore replay: the recording holds no tools/call request") {
				t.Fatalf("%s raised %+v, want the replayer's divergence error", name, obs.Raised)
			}
			if obs.Raised.Code != nil && *obs.Raised.Code != replay.DivergedCode {
				t.Errorf("error code %d, want %d", *obs.Raised.Code, replay.DivergedCode)
			}
			b, err := os.ReadFile(errFile)
			if err != nil {
				t.Fatal(err)
			}
			want := replay.Diverged + `expected request #`
			if !strings.HasPrefix(string(b), want) || !strings.Contains(string(b), `"account_id":"ACC-4471"`) || !strings.Contains(string(b), `got tools/call {"arguments":{"account_id":"ACC-4476"},"name":"get_account_balance"}`) {
				t.Errorf("the replayer's stderr said\n%s\nwant the recorded call (ACC-4471) expected and ACC-4476 got", b)
			}
		})
	}
}
