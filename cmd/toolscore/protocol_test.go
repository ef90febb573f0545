package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolscore/toolscore/internal/client"
	"github.com/toolscore/toolscore/internal/ledger"
	"github.com/toolscore/toolscore/internal/proc"
	"github.com/toolscore/toolscore/internal/proxy"
	"github.com/toolscore/toolscore/internal/transcript"
)

const modernRevision = "2026-07-28"

// caps are every value of --protocol.
var caps = append([]string{"as-is"}, proxy.Revisions...)

// wireSession speaks newline-delimited JSON-RPC over a command's stdio with no handshake of its
// own, so a test chooses every byte of it.
type wireSession struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	stderr syncBuffer
}

// syncBuffer is a bytes.Buffer a process writes to while the test may read it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

func startWire(t *testing.T, command []string) *wireSession {
	t.Helper()
	cmd := exec.Command(command[0], command[1:]...)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	s := &wireSession{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}
	cmd.Stderr = &s.stderr
	if err := proc.Start(cmd); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return s
}

// request sends one request and returns the answer with its id, as it came (no newline).
func (s *wireSession) request(t *testing.T, id int, method string, params any) []byte {
	t.Helper()
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if _, err := s.in.Write(append(b, '\n')); err != nil {
		t.Fatalf("sending %s: %v", method, err)
	}
	got := make(chan []byte, 1)
	go func() {
		for {
			frame, err := s.out.ReadBytes('\n')
			if err != nil {
				got <- nil
				return
			}
			var msg struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			if json.Unmarshal(frame, &msg) == nil && msg.Method == "" && string(msg.ID) == fmt.Sprint(id) {
				got <- bytes.TrimRight(frame, "\n")
				return
			}
		}
	}()
	select {
	case frame := <-got:
		if frame == nil {
			t.Fatalf("the server closed before answering %s", method)
		}
		return frame
	case <-time.After(30 * time.Second):
		t.Fatalf("no answer to %s in 30s%s", method, s.postmortem())
		return nil
	}
}

// postmortem stops a session that went silent and says what its process left behind: its
// stderr and, for a proxy, its transcript, so that a rare hang is explained by the failure.
func (s *wireSession) postmortem() string {
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	exited := make(chan struct{})
	go func() { _ = s.cmd.Wait(); close(exited) }()
	select {
	case <-exited:
	case <-time.After(5 * time.Second):
		_ = s.cmd.Process.Kill()
		<-exited
	}
	out := "\nstderr:\n" + s.stderr.String()
	if i := slices.Index(s.cmd.Args, "--tee"); i > 0 && i+1 < len(s.cmd.Args) {
		b, err := os.ReadFile(s.cmd.Args[i+1])
		out += fmt.Sprintf("\ntranscript (%v):\n%s", err, b)
	}
	return out
}

// close ends the session as a client does, and waits for the proxy to finish its transcript.
func (s *wireSession) close(t *testing.T) {
	t.Helper()
	_ = s.in.Close()
	_ = s.cmd.Wait()
}

// modernMeta is the per-request _meta of a 2026-07-28 client.
func modernMeta(params map[string]any) map[string]any {
	params["_meta"] = map[string]any{
		"io.modelcontextprotocol/protocolVersion":    modernRevision,
		"io.modelcontextprotocol/clientCapabilities": map[string]any{},
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "toolscore-raw-modern", "version": "1"},
	}
	return params
}

// modernExchange is rawExchange as a 2026-07-28 client makes it: server/discover, then
// tools/list and the call, each with the per-request _meta and no initialize.
func modernExchange(t *testing.T, cmd []string) (list, call []byte, took time.Duration) {
	t.Helper()
	s := startWire(t, cmd)
	defer s.close(t)
	discover := s.request(t, 1, "server/discover", modernMeta(map[string]any{}))
	if !bytes.Contains(discover, []byte(`"`+modernRevision+`"`)) {
		t.Fatalf("server/discover does not offer %s: %s", modernRevision, discover)
	}
	list = s.request(t, 2, "tools/list", modernMeta(map[string]any{}))
	start := time.Now()
	call = s.request(t, 3, "tools/call", modernMeta(map[string]any{"name": "get_account_balance", "arguments": map[string]any{"account_id": "ACC-4471"}}))
	return list, call, time.Since(start)
}

// handshake is one negotiated event of a transcript, as the report shows it.
type handshake struct {
	Method, ClientAsked, ServerAsked, Negotiated, Refused string
	ByProxy                                               bool
}

func (h handshake) String() string {
	s := h.Method + " asked " + h.ClientAsked
	if h.ServerAsked != "" {
		s += " (server asked " + h.ServerAsked + ")"
	}
	if h.Refused != "" {
		s += " refused " + h.Refused
		if h.ByProxy {
			s += " by the proxy"
		}
		return s
	}
	return s + " -> " + h.Negotiated
}

// handshakes reads a transcript's negotiated events and its read-back negotiation.
func handshakes(t *testing.T, teePath string) ([]handshake, transcript.Negotiation, []transcript.Entry) {
	t.Helper()
	entries, err := transcript.Read(teePath)
	if err != nil {
		t.Fatal(err)
	}
	var hs []handshake
	for _, e := range entries {
		if e.Event != "negotiated" {
			continue
		}
		d, _ := e.Detail.(map[string]any)
		s := func(k string) string { v, _ := d[k].(string); return v }
		by, _ := d["by_proxy"].(bool)
		hs = append(hs, handshake{s("method"), s("client_asked"), s("server_asked"), s("negotiated"), s("refused"), by})
	}
	return hs, transcript.Negotiated(entries), entries
}

// ledgerChooses is the revision the ledger (go-sdk v1.8.0) answers an initialize asking for v
// with: v itself, except the modern one, which initialize does not negotiate.
func ledgerChooses(v string) string {
	if v >= modernRevision {
		return "2025-11-25"
	}
	return v
}

// TestProtocolCapsOnTheWire sends, through every --protocol cap around the ledger, a bare
// server/discover and an initialize asking for each revision, and checks the exact answers and
// what the transcript records.
func TestProtocolCapsOnTheWire(t *testing.T) {
	for _, cp := range caps {
		legacy := cp != "as-is" && cp < modernRevision
		t.Run(cp+"/server-discover", func(t *testing.T) {
			t.Parallel()
			cmd, teePath := proxyCommand(t, "clean", "as-is", "--protocol", cp)
			s := startWire(t, cmd)
			got := s.request(t, 1, "server/discover", modernMeta(map[string]any{}))
			s.close(t)
			hs, n, entries := handshakes(t, teePath)
			if legacy {
				// A 2025-era server does not know the method; the ledger's own refusal would say more.
				if want := `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}`; string(got) != want {
					t.Fatalf("discover under %s: got %s, want %s", cp, got, want)
				}
				for _, e := range entries {
					if e.Dir == transcript.ServerToClient && (len(e.Introduced) != 1 || e.Introduced[0].Path != "error") {
						t.Errorf("the proxy's own answer is not recorded as introduced: %+v", e.Record)
					}
				}
				if len(hs) != 1 || !hs[0].ByProxy || n.Version != "" || n.Method != "server/discover" || n.Protocol != cp {
					t.Errorf("transcript: %v, negotiation %+v", hs, n)
				}
				return
			}
			var msg struct {
				Result struct {
					SupportedVersions []string `json:"supportedVersions"`
					ResultType        string   `json:"resultType"`
				} `json:"result"`
			}
			if err := json.Unmarshal(got, &msg); err != nil || !slices.Contains(msg.Result.SupportedVersions, modernRevision) || msg.Result.ResultType != "complete" {
				t.Fatalf("discover under %s: %s", cp, got)
			}
			if want := (transcript.Negotiation{Protocol: cp, Method: "server/discover", ClientAsked: modernRevision, Version: modernRevision}); n != want {
				t.Errorf("negotiation %+v, want %+v (handshakes %v)", n, want, hs)
			}
		})
		for _, asked := range proxy.Revisions {
			t.Run(cp+"/initialize-"+asked, func(t *testing.T) {
				t.Parallel()
				cmd, teePath := proxyCommand(t, "clean", "as-is", "--protocol", cp)
				s := startWire(t, cmd)
				got := s.request(t, 1, "initialize", map[string]any{"protocolVersion": asked, "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "raw", "version": "1"}})
				s.close(t)
				sent := asked
				if cp != "as-is" && asked > cp {
					sent = cp
				}
				var msg struct {
					Result struct {
						ProtocolVersion string `json:"protocolVersion"`
					} `json:"result"`
				}
				_ = json.Unmarshal(got, &msg)
				if want := ledgerChooses(sent); msg.Result.ProtocolVersion != want {
					t.Fatalf("initialize %s under %s: answered %s, want %s\n%s", asked, cp, msg.Result.ProtocolVersion, want, got)
				}
				hs, n, entries := handshakes(t, teePath)
				if want := (transcript.Negotiation{Protocol: cp, Method: "initialize", ClientAsked: asked, Version: ledgerChooses(sent)}); n != want {
					t.Errorf("negotiation %+v, want %+v (handshakes %v)", n, want, hs)
				}
				rewritten := false
				for _, e := range entries {
					if e.Dir == transcript.ClientToServer && len(e.Introduced) > 0 {
						rewritten = true
						if in := e.Introduced[0]; in.Path != "params.protocolVersion" || in.Value != sent || in.Was != asked || !bytes.Contains(e.Wire, []byte(`"protocolVersion":"`+sent+`"`)) {
							t.Errorf("the rewritten initialize is recorded as %+v: %s", in, e.Wire)
						}
					}
				}
				if rewritten != (sent != asked) {
					t.Errorf("initialize %s under %s: rewritten %v, want %v", asked, cp, rewritten, sent != asked)
				}
			})
		}
	}
}

// TestGoSDKHandshakeUnderEachCap drives the Go SDK client (v1.8.0, which offers 2026-07-28)
// through every cap around the ledger. What we found by running it: it asks server/discover
// first; refused with -32601 it falls back to initialize 2025-11-25 and takes the revision the
// answer names, down to 2024-11-05; only in a 2026-07-28 session do its requests carry the
// per-request _meta.
func TestGoSDKHandshakeUnderEachCap(t *testing.T) {
	want := map[string]string{
		"as-is":      "server/discover asked 2026-07-28 -> 2026-07-28",
		"2026-07-28": "server/discover asked 2026-07-28 -> 2026-07-28",
		"2025-11-25": "server/discover asked 2026-07-28 refused -32601 Method not found by the proxy; initialize asked 2025-11-25 -> 2025-11-25",
		"2025-06-18": "server/discover asked 2026-07-28 refused -32601 Method not found by the proxy; initialize asked 2025-11-25 (server asked 2025-06-18) -> 2025-06-18",
		"2025-03-26": "server/discover asked 2026-07-28 refused -32601 Method not found by the proxy; initialize asked 2025-11-25 (server asked 2025-03-26) -> 2025-03-26",
		"2024-11-05": "server/discover asked 2026-07-28 refused -32601 Method not found by the proxy; initialize asked 2025-11-25 (server asked 2024-11-05) -> 2024-11-05",
	}
	for _, cp := range caps {
		t.Run(cp, func(t *testing.T) {
			t.Parallel()
			cmd, teePath := proxyCommand(t, "clean", "published", "--protocol", cp)
			hs, n, entries := goSDKSession(t, cmd, teePath, "get_account_balance")
			if got := joinHandshakes(hs); got != want[cp] {
				t.Errorf("handshakes under %s:\n got %s\nwant %s", cp, got, want[cp])
			}
			t.Logf("go-sdk under %s: %s", cp, joinHandshakes(hs))
			if n.Unavailable != "" {
				t.Errorf("the ledger offers every revision, yet: %s", n.Unavailable)
			}
			request, answer := transcript.TargetAnswer(entries)
			if request == nil || answer == nil {
				t.Fatal("no target call and answer in the transcript")
			}
			modernCall := bytes.Contains(request.Wire, []byte(`"io.modelcontextprotocol/protocolVersion":"2026-07-28"`))
			modernAnswer := bytes.Contains(answer.Wire, []byte(`"resultType":"complete"`))
			if isModern := n.Version == modernRevision; modernCall != isModern || modernAnswer != isModern {
				t.Errorf("session %s: the call carries the 2026 _meta: %v, the answer a resultType: %v\n%s\n%s", n.Version, modernCall, modernAnswer, request.Wire, answer.Wire)
			}
		})
	}
}

// goSDKSession runs the Go SDK client once (list, then call) and reads its transcript.
func goSDKSession(t *testing.T, cmd []string, teePath, tool string) ([]handshake, transcript.Negotiation, []transcript.Entry) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	obs, err := client.GoSDK(ctx, cmd, tool, map[string]any{"account_id": "ACC-4471"}, true)
	if err != nil {
		t.Fatal(err)
	}
	if tool == "get_account_balance" {
		var res payload
		_ = json.Unmarshal(obs.Returned, &res)
		if obs.Raised != nil || !strings.Contains(fmt.Sprint(res.Content), ledger.Text(truth)) {
			t.Fatalf("go-sdk did not get the balance: raised %+v, returned %s", obs.Raised, obs.Returned)
		}
	}
	// The proxy writes the transcript's end after the client is gone: wait for it.
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, _ := os.ReadFile(teePath)
		if bytes.Contains(b, []byte(`"event":"server-exit"`)) || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	return handshakes(t, teePath)
}

func joinHandshakes(hs []handshake) string {
	s := make([]string, len(hs))
	for i, h := range hs {
		s[i] = h.String()
	}
	return strings.Join(s, "; ")
}

// oldLedger serves the ledger's balance tool from a Go SDK server that offers revisions up to
// newest only, as a server built before 2026 (or configured so) does: it answers server/discover
// with the SDK's unsupported-version error, and initialize with at most newest.
func oldLedger(newest string) int {
	var versions []string
	for _, v := range proxy.Revisions {
		if v <= newest {
			versions = append(versions, v)
		}
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "old-ledger", Version: newest}, &mcp.ServerOptions{SupportedProtocolVersions: versions})
	mcp.AddTool(s, &mcp.Tool{Name: "get_account_balance", Description: "The balance of one account."},
		func(_ context.Context, _ *mcp.CallToolRequest, in ledger.BalanceArgs) (*mcp.CallToolResult, ledger.Balance, error) {
			b, ok := ledger.Accounts[in.AccountID]
			if !ok {
				return nil, ledger.Balance{}, fmt.Errorf("unknown account %q", in.AccountID)
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: ledger.Text(b)}}}, b, nil
		})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// TestServerOfferingUpTo20250618 puts a server whose newest revision is 2025-06-18 behind each
// cap, with the Go SDK client (which tries 2026-07-28, then asks initialize 2025-11-25) and a
// bare client asking initialize 2025-11-25: every session works at 2025-06-18, and a cap above
// what the server offers is recorded as unavailable, with the reason.
func TestServerOfferingUpTo20250618(t *testing.T) {
	cases := []struct {
		cap, goSDK  string
		unavailable string // a part of the reason, "" when the server can offer the cap
	}{
		{"as-is", "server/discover asked 2026-07-28 refused -32022 unsupported protocol version; initialize asked 2025-11-25 -> 2025-06-18", ""},
		{"2025-06-18", "server/discover asked 2026-07-28 refused -32601 Method not found by the proxy; initialize asked 2025-11-25 (server asked 2025-06-18) -> 2025-06-18", ""},
		{"2025-11-25", "server/discover asked 2026-07-28 refused -32601 Method not found by the proxy; initialize asked 2025-11-25 -> 2025-06-18", "the server chose 2025-06-18: it offers less than protocol 2025-11-25"},
		{"2026-07-28", "server/discover asked 2026-07-28 refused -32022 unsupported protocol version; initialize asked 2025-11-25 -> 2025-06-18", "the server refused server/discover (-32022 unsupported protocol version): it offers no 2026-07-28"},
	}
	server := []string{os.Args[0], "badserver", "ledger-upto", "2025-06-18"}
	command := func(t *testing.T, cp string) ([]string, string) {
		cmd, teePath := proxyCommand(t, "clean", "published", "--protocol", cp)
		return append(cmd[:len(cmd)-2:len(cmd)-2], server...), teePath
	}
	for _, c := range cases {
		t.Run(c.cap+"/go-sdk", func(t *testing.T) {
			t.Parallel()
			cmd, teePath := command(t, c.cap)
			hs, n, _ := goSDKSession(t, cmd, teePath, "get_account_balance")
			t.Logf("go-sdk, server up to 2025-06-18, under %s: %s", c.cap, joinHandshakes(hs))
			if got := joinHandshakes(hs); got != c.goSDK {
				t.Errorf("handshakes:\n got %s\nwant %s", got, c.goSDK)
			}
			if n.Version != "2025-06-18" || !strings.Contains(n.Unavailable, c.unavailable) || (c.unavailable == "") != (n.Unavailable == "") {
				t.Errorf("negotiation %+v, want 2025-06-18 and unavailable %q", n, c.unavailable)
			}
		})
		t.Run(c.cap+"/raw-initialize", func(t *testing.T) {
			t.Parallel()
			cmd, teePath := command(t, c.cap)
			s := startWire(t, cmd)
			got := s.request(t, 1, "initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "raw", "version": "1"}})
			s.close(t)
			if !bytes.Contains(got, []byte(`"protocolVersion":"2025-06-18"`)) {
				t.Fatalf("initialize 2025-11-25 answered %s", got)
			}
			hs, n, _ := handshakes(t, teePath)
			t.Logf("raw initialize 2025-11-25, server up to 2025-06-18, under %s: %s (%s)", c.cap, joinHandshakes(hs), n.Unavailable)
			// Under 2026-07-28 too: a server that gives less than the client asked for offers
			// less than the cap.
			wantUnavailable := c.unavailable != ""
			if n.Version != "2025-06-18" || (n.Unavailable != "") != wantUnavailable {
				t.Errorf("negotiation %+v, want 2025-06-18 and unavailable %v", n, wantUnavailable)
			}
		})
	}
}

// TestServerRefusingDiscoverUnder2026 puts the hostile server (a 2025-era server: it answers
// server/discover -32601) behind --protocol 2026-07-28: the Go SDK client falls back to
// initialize as it would without the proxy, nothing is made up, and the transcript says the
// server cannot offer 2026-07-28.
func TestServerRefusingDiscoverUnder2026(t *testing.T) {
	for _, cp := range []string{"2026-07-28", "as-is"} {
		t.Run(cp, func(t *testing.T) {
			t.Parallel()
			cmd, teePath := proxyCommand(t, "clean", "as-is", "--protocol", cp)
			cmd = append(cmd[:len(cmd)-1:len(cmd)-1], "hostile")
			hs, n, entries := goSDKSession(t, cmd, teePath, "rpc-error")
			t.Logf("go-sdk, hostile server, under %s: %s (%s)", cp, joinHandshakes(hs), n.Unavailable)
			if want := "server/discover asked 2026-07-28 refused -32601 method not found: server/discover; initialize asked 2025-11-25 -> 2025-11-25"; joinHandshakes(hs) != want {
				t.Errorf("handshakes:\n got %s\nwant %s", joinHandshakes(hs), want)
			}
			for _, e := range entries {
				if len(e.Introduced) > 0 || e.Original != nil {
					t.Errorf("the proxy changed a frame: %+v", e.Record)
				}
			}
			if cp == "as-is" {
				if n.Unavailable != "" {
					t.Errorf("as-is flags the server: %s", n.Unavailable)
				}
				return
			}
			if want := "the server refused server/discover (-32601 method not found: server/discover): it offers no 2026-07-28"; n.Unavailable != want {
				t.Errorf("unavailable %q, want %q", n.Unavailable, want)
			}
		})
	}
}

// TestTSSDKUnderACapOnDocker runs the TypeScript SDK client in its container against the
// ledger behind `toolscore proxy --protocol 2025-06-18` (the server under test, until the runner
// passes the cap itself): it asks initialize 2025-11-25 and settles for 2025-06-18, and its
// clean call passes.
func TestTSSDKUnderACapOnDocker(t *testing.T) {
	engine(t)
	manifest := filepath.Join(t.TempDir(), "capped.yaml")
	os.WriteFile(manifest, []byte(`name: capped at 2025-06-18
server:
  command: [/opt/toolscore/toolscore, proxy, --protocol, "2025-06-18", --schema, as-is, --, /opt/toolscore/toolscore, ledger]
tool: get_account_balance
arguments: {account_id: ACC-4471}
faults: [clean]
schema_modes: [published]
clients: [ts-sdk/list-then-call]
runs: 1
`), 0o644)
	out := t.TempDir()
	if code, _, stderr := runStatic(t, manifest, "--backend", "docker", "--out", out); code != 0 {
		t.Fatalf("the sweep exited %d:\n%s", code, stderr)
	}
	cells := readResultsDir(t, out).Cells
	if len(cells) != 1 || cells[0].Outcome["passed"] != 1 {
		t.Fatalf("cells: %+v", cells)
	}
	hs, n, _ := handshakes(t, filepath.Join(out, cells[0].Examples["passed"].Tee))
	t.Logf("ts-sdk, ledger behind --protocol 2025-06-18: %s", joinHandshakes(hs))
	if want := "initialize asked 2025-11-25 -> 2025-06-18"; joinHandshakes(hs) != want || n.Version != "2025-06-18" {
		t.Errorf("handshakes %s, want %s (%+v)", joinHandshakes(hs), want, n)
	}
}
