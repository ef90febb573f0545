package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolscore/toolscore/internal/client"
)

// badProxy is the proxy (clean fault, as-is schema) around one of the bad servers.
func badProxy(t *testing.T, mode string, args ...string) (cmd []string, tee string) {
	tee = filepath.Join(t.TempDir(), "tee.jsonl")
	cmd = []string{os.Args[0], "proxy", "--schema", "as-is", "--tee", tee, "--", os.Args[0], "badserver", mode}
	return append(cmd, args...), tee
}

func exitCode(err error) int {
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}

func findEvent(recs []map[string]any, event string) map[string]any {
	for _, r := range recs {
		if r["event"] == event {
			return r
		}
	}
	return nil
}

// TestTransparent: everything but the target's results passes byte for byte and in order, both
// ways: the server's own requests (sampling, elicitation, roots, ping), notifications, ids of
// every JSON type, odd spacing, and the client's answers to them.
func TestTransparent(t *testing.T) {
	dir := t.TempDir()
	fromServer := strings.Join([]string{
		`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"hello"}}`,
		`{"jsonrpc":"2.0","id":0,"method":"sampling/createMessage","params":{"messages":[],"maxTokens":1}}`,
		`{"jsonrpc":"2.0","id":"ü-ид-🔑","method":"elicitation/create","params":{"message":"?","requestedSchema":{"type":"object"}}}`,
		`{ "jsonrpc" : "2.0" , "id" : -7 , "method" : "roots/list" }`,
		`{"jsonrpc":"2.0","id":12345678901234567890,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":"x","result":{"tools":[{"name":"t","inputSchema":{"type":"object"},"outputSchema":{"type":"object"}}]}}`,
		"",
	}, "\n")
	fromClient := strings.Join([]string{
		`{"jsonrpc":"2.0","id":0,"result":{"role":"assistant","content":{"type":"text","text":"hi"},"model":"m"}}`,
		`{"jsonrpc":"2.0","id":"ü-ид-🔑","result":{"action":"decline"}}`,
		`{"jsonrpc":"2.0","id":-7,"result":{"roots":[]}}`,
		`{"jsonrpc":"2.0","id":12345678901234567890,"result":{}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"y"}}`,
		"not json at all\r",
		`{"jsonrpc":"2.0","id":null,"method":"odd"}`,
		`[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]`,
		"",
	}, "\n")
	script := filepath.Join(dir, "script")
	record := filepath.Join(dir, "record")
	if err := os.WriteFile(script, []byte(fromServer), 0o644); err != nil {
		t.Fatal(err)
	}
	cmdline, teePath := badProxy(t, "echo", script, record)
	// hidden mode would rewrite a tools/list answer; this one answers no request of the client's,
	// so even hidden must leave it alone.
	cmdline[3] = "hidden"
	cmd := exec.Command(cmdline[0], cmdline[1:]...)
	cmd.Stdin = strings.NewReader(fromClient)
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	if out.String() != fromServer {
		t.Errorf("client got\n%q\nserver sent\n%q", out.String(), fromServer)
	}
	got, _ := os.ReadFile(record)
	if string(got) != fromClient {
		t.Errorf("server got\n%q\nclient sent\n%q", got, fromClient)
	}
	recs := readTee(t, teePath)
	var notJSON int
	for _, r := range recs {
		if r["not_json"] == true {
			notJSON++
		}
	}
	if notJSON != 1 {
		t.Errorf("want 1 record marked not_json (the client's garbage line), got %d", notJSON)
	}
}

// TestGarbageFromServer: non-JSON lines (and non-UTF-8 bytes) are forwarded and recorded, never
// dropped, and the session goes on.
func TestGarbageFromServer(t *testing.T) {
	cmd, teePath := badProxy(t, "garbage")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s, _, err := client.StartRaw(ctx, cmd)
	if err != nil {
		t.Fatal(err)
	}
	call, err := s.Request(ctx, "tools/call", map[string]any{"name": "x", "arguments": map[string]any{}})
	if err != nil || !bytes.Contains(call, []byte(`"text":"ok"`)) {
		t.Fatalf("the call after the garbage failed: %v %s", err, call)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("proxy exit: %v", err)
	}
	recs := readTee(t, teePath)
	var wires []string
	for _, r := range recs {
		if r["dir"] == "to-client" && r["not_json"] == true {
			w, _ := r["wire"].(string)
			if b64, ok := r["wire_base64"].(string); ok {
				w = "base64:" + b64
			}
			wires = append(wires, w)
		}
	}
	want := []string{"this is not JSON <<<\n", "base64://4gbm90IFVURi04IGVpdGhlcgo=", "{half a message\n"}
	if strings.Join(wires, "|") != strings.Join(want, "|") {
		t.Errorf("garbage in the tee: got %q, want %q", wires, want)
	}
}

// TestServerExitsMidCall: the client's pipe closes as the server's did, the proxy exits with
// the server's status, and the tee names the unanswered call.
func TestServerExitsMidCall(t *testing.T) {
	cmd, teePath := badProxy(t, "exit-mid-call")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s, _, err := client.StartRaw(ctx, cmd)
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Request(ctx, "tools/call", map[string]any{"name": "x", "arguments": map[string]any{}})
	if err == nil || !strings.Contains(err.Error(), "closed before answering") {
		t.Fatalf("want the pipe closed before an answer, got %v", err)
	}
	if code := exitCode(s.Close()); code != 3 {
		t.Errorf("proxy exit status %d, want the server's 3", code)
	}
	recs := readTee(t, teePath)
	exit := findEvent(recs, "server-exit")
	if exit == nil {
		t.Fatal("no server-exit record")
	}
	d := exit["detail"].(map[string]any)
	if d["status"] != 3.0 || len(d["unanswered"].([]any)) != 1 || d["unanswered"].([]any)[0] != "2" {
		t.Errorf("server-exit detail %v, want status 3 and call 2 unanswered", d)
	}
	var stderr bool
	for _, r := range recs {
		if r["dir"] == "stderr" && strings.Contains(r["wire"].(string), "giving up mid-call") {
			stderr = true
		}
	}
	if !stderr {
		t.Error("the server's stderr is not in the tee")
	}
}

// TestHugeLine: a 64 MiB result arrives intact and is recorded whole.
func TestHugeLine(t *testing.T) {
	cmd, teePath := badProxy(t, "huge", "64")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	s, _, err := client.StartRaw(ctx, cmd)
	if err != nil {
		t.Fatal(err)
	}
	call, err := s.Request(ctx, "tools/call", map[string]any{"name": "x", "arguments": map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"` + strings.Repeat("x", 64<<20) + `"}]}}`
	if sha256.Sum256(call) != sha256.Sum256([]byte(want)) {
		t.Fatalf("the 64 MiB result changed on the way: %d bytes, want %d", len(call), len(want))
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(teePath)
	var found bool
	for _, line := range bytes.Split(b, []byte("\n")) {
		if len(line) > 64<<20 {
			var r map[string]any
			if err := json.Unmarshal(line, &r); err != nil {
				t.Fatal(err)
			}
			found = r["wire"] == want+"\n"
		}
	}
	if !found {
		t.Error("the tee does not hold the 64 MiB message whole")
	}
}

// TestServerNeverAnswers: the client gives up and closes its end; the proxy then ends a server
// that ignores both EOF and SIGTERM, says so in the tee, and exits.
func TestServerNeverAnswers(t *testing.T) {
	cmd, teePath := badProxy(t, "hang")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, _, err := client.StartRaw(ctx, cmd)
	if err != nil {
		t.Fatal(err)
	}
	callCtx, callCancel := context.WithTimeout(ctx, 300*time.Millisecond)
	_, err = s.Request(callCtx, "tools/call", map[string]any{"name": "x", "arguments": map[string]any{}})
	callCancel()
	if err == nil {
		t.Fatal("a server that never answers answered")
	}
	if code := exitCode(s.Close()); code != 128+9 {
		t.Errorf("proxy exit status %d, want 137 (the server was SIGKILLed)", code)
	}
	recs := readTee(t, teePath)
	var signals []string
	for _, r := range recs {
		if r["event"] == "server-signalled" {
			signals = append(signals, r["note"].(string))
		}
	}
	if len(signals) != 2 || !strings.HasSuffix(signals[0], "terminated") || !strings.HasSuffix(signals[1], "killed") {
		t.Errorf("want SIGTERM then SIGKILL in the tee, got %q", signals)
	}
	if exit := findEvent(recs, "server-exit"); exit == nil || exit["detail"].(map[string]any)["signal"] != "killed" {
		t.Errorf("server-exit record %v, want signal killed", exit)
	}
}

// TestClientClosesEarly: a client that hangs up right after initialize leaves a clean exit and
// a tee that says so.
func TestClientClosesEarly(t *testing.T) {
	cmd, teePath := proxyCommand(t, "corrupt", "hidden")
	c := exec.Command(cmd[0], cmd[1:]...)
	c.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}` + "\n")
	done := make(chan error, 1)
	go func() { done <- c.Run() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("proxy exit: %v", err)
		}
	case <-time.After(20 * time.Second):
		c.Process.Kill()
		t.Fatal("the proxy did not exit after the client closed its end")
	}
	recs := readTee(t, teePath)
	if findEvent(recs, "client-closed") == nil || findEvent(recs, "server-exit") == nil {
		t.Errorf("tee lacks client-closed or server-exit: %v", recs)
	}
}
