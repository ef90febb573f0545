package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolscore/toolscore/internal/replay"
)

// replayServer is `toolscore replay --listen` (or the proxy around it) running.
type replayServer struct {
	url    string
	cmd    *exec.Cmd
	stderr bytes.Buffer
}

// startReplay starts toolscore with args and reads the endpoint URL it prints first.
func startReplay(t *testing.T, args ...string) *replayServer {
	t.Helper()
	r := &replayServer{cmd: exec.Command(os.Args[0], args...)}
	r.cmd.Stderr = &r.stderr
	out, err := r.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		_ = r.cmd.Process.Kill()
		_ = r.cmd.Wait()
		t.Fatalf("toolscore %s printed no URL: %v; stderr: %s", strings.Join(args, " "), err, r.stderr.String())
	}
	r.url = strings.TrimSpace(line)
	t.Cleanup(func() { r.stop() })
	return r
}

// stop ends the server and waits, so its stderr is whole.
func (r *replayServer) stop() string {
	if r.cmd.ProcessState == nil {
		_ = r.cmd.Process.Signal(syscall.SIGTERM)
		_ = r.cmd.Wait()
	}
	return r.stderr.String()
}

// replayedGoSDK lists the tools and calls the balance of account with the real go-sdk streamable
// client, and returns both answers as JSON, or the call's error.
func replayedGoSDK(t *testing.T, url, account string) (tools, result string, callErr error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c := mcp.NewClient(&mcp.Implementation{Name: "gosdk-http", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatalf("connecting to %s: %v", url, err)
	}
	defer cs.Close()
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("listing the tools at %s: %v", url, err)
	}
	res, callErr := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_account_balance", Arguments: map[string]any{"account_id": account}})
	lb, _ := json.Marshal(list)
	rb, _ := json.Marshal(res)
	return string(lb), string(rb), callErr
}

// TestReplayListen records the go-sdk streamable client through the proxy around the ledger
// over HTTP (SSE answers with a session, JSON answers, and sessionless under 2026-07-28), then
// serves that transcript with `toolscore replay --listen`, alone and behind `toolscore proxy
// --listen ... -- toolscore replay --listen 127.0.0.1:{port}`: the same client gets the live
// answers, and a client asking for another account gets the divergence error while the
// replayer's stderr says what the recording expected.
func TestReplayListen(t *testing.T) {
	for _, form := range []struct {
		name   string
		ledger []string
	}{{"sse", nil}, {"json", []string{"--json"}}, {"stateless", []string{"--stateless"}}} {
		t.Run(form.name, func(t *testing.T) {
			t.Parallel()
			h := startHTTPProxy(t, []string{"--fault", "type-swap", "--tool", "get_account_balance"}, form.ledger)
			wantTools, wantResult, err := replayedGoSDK(t, h.url, "ACC-4471")
			if err != nil {
				t.Fatal(err)
			}
			h.stop(t)
			if !strings.Contains(wantResult, `"balance_minor":"4071877"`) {
				t.Fatalf("the live call got %s, want the type-swapped balance", wantResult)
			}

			direct := []string{"replay", "--listen", "127.0.0.1:0", h.tee}
			proxied := []string{"proxy", "--listen", "127.0.0.1:0", "--fault", "clean", "--tool", "get_account_balance", "--schema", "as-is",
				"--tee", filepath.Join(t.TempDir(), "tee.jsonl"), "--", os.Args[0], "replay", "--listen", "127.0.0.1:{port}", h.tee}
			for _, args := range [][]string{direct, proxied} {
				r := startReplay(t, args...)
				if !strings.HasSuffix(r.url, replay.HTTPPath) {
					t.Errorf("toolscore %s printed %q, want its endpoint URL", args[0], r.url)
				}
				tools, result, err := replayedGoSDK(t, r.url, "ACC-4471")
				if err != nil {
					t.Fatalf("toolscore %s: the replayed call failed: %v\n%s", args[0], err, r.stop())
				}
				if tools != wantTools || result != wantResult {
					t.Errorf("toolscore %s: replayed\n%s\n%s\nwant the live\n%s\n%s", args[0], tools, result, wantTools, wantResult)
				}
				if stderr := r.stop(); strings.Contains(stderr, replay.Diverged) {
					t.Errorf("toolscore %s: a faithful client diverged: %s", args[0], stderr)
				}

				r = startReplay(t, args...)
				_, _, err = replayedGoSDK(t, r.url, "ACC-4476")
				if err == nil || !strings.Contains(err.Error(), "toolscore replay: the recording holds no tools/call request") {
					t.Errorf("toolscore %s: another account's call got %v, want the divergence error", args[0], err)
				}
				stderr := r.stop()
				if !strings.Contains(stderr, replay.Diverged+"expected request #") || !strings.Contains(stderr, `got tools/call {"arguments":{"account_id":"ACC-4476"}`) {
					t.Errorf("toolscore %s: stderr %q, want the divergence line", args[0], stderr)
				}
			}
		})
	}
}

// TestReplayedHTTPSweep runs a small study over streamable HTTP live on the local backend
// (both protocol generations, faults of the answer and of the HTTP exchange, the bare client
// and both Go SDKs), then again with --replay: every run has the live run's outcome, evidence,
// answer and negotiated revision, and toolscore diff finds no cell changed.
func TestReplayedHTTPSweep(t *testing.T) {
	manifest := filepath.Join(t.TempDir(), "http.yaml")
	if err := os.WriteFile(manifest, []byte(`name: ledger over http
server:
  builtin: ledger
tool: get_account_balance
arguments:
  account_id: ACC-4471
truth: ["40718.77", "4071877"]
faults: [clean, rpc-error, type-swap, http-500, session-expired, sse-cut]
schema_modes: [published]
protocols: [2026-07-28, 2025-11-25]
transports: [http]
clients: [raw, go-sdk/list-then-call, mcp-go/call]
runs: 1
timeout: 30s
`), 0o644); err != nil {
		t.Fatal(err)
	}
	live, replayed := t.TempDir(), t.TempDir()
	args := []string{"run", manifest, "--backend", "local", "--parallel", "2", "--fail-on", "never"}
	if code, out := runToolscore(t, append(args, "--out", live)...); code != 0 {
		t.Fatalf("the live sweep exited %d:\n%s", code, out)
	}
	if code, out := runToolscore(t, append(args, "--out", replayed, "--replay", live)...); code != 0 {
		t.Fatalf("the replayed sweep exited %d:\n%s", code, out)
	}
	sameRuns(t, live, replayed, 3*6*2)
	for _, r := range replayRuns(t, replayed) {
		tee, err := os.ReadFile(filepath.Join(replayed, r.Tee))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(tee, []byte(`"replay","--listen"`)) {
			t.Fatalf("%s: the run did not play against toolscore replay --listen", r.Tee)
		}
	}
}
