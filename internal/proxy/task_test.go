package proxy

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolscore/toolscore/fault"
	"github.com/toolscore/toolscore/internal/transcript"
)

// TestTaskServedAndGraded drives the proxy's own code for a task-handle session: the handle in
// place of the server's answer, then a client that asks tasks/result at once (the task
// completes then), polls tasks/get 30 times and cancels the finished task (refused, -32602).
// Read back for grading, the transcript still holds the answer that carried the result and
// the count of the polls, however many polls came after it.
func TestTaskServedAndGraded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tee.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	tee := transcript.NewTee(f)
	th, err := fault.New("task-handle", nil)
	if err != nil {
		t.Fatal(err)
	}
	p := New(Config{Fault: th, FaultName: "task-handle", Probability: 1, Seed: 1}, tee)
	ctx := context.Background()
	server := func(frame string) []byte {
		out, rec := p.answer(ctx, "", []byte(frame+"\n"))
		p.record(rec.Record)
		return out
	}
	client := func(frame string) []byte {
		rec := &transcript.Record{Dir: transcript.ClientToServer, Wire: []byte(frame + "\n")}
		fwd, own, ownRec := p.noteRequest("", rec.Wire, rec)
		p.record(rec)
		if own != nil {
			p.record(ownRec)
			return own
		}
		return fwd
	}
	client(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`)
	server(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25"}}`)
	client(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t","arguments":{}}}`)
	handle := server(`{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"real"}]}}`)
	var h struct {
		Result struct {
			Task struct{ TaskID string } `json:"task"`
		} `json:"result"`
	}
	if err := json.Unmarshal(handle, &h); err != nil || h.Result.Task.TaskID == "" {
		t.Fatalf("no 2025-11-25 task handle: %v: %s", err, handle)
	}
	id := h.Result.Task.TaskID
	got := client(fmt.Sprintf(`{"jsonrpc":"2.0","id":3,"method":"tasks/result","params":{"taskId":%q}}`, id))
	want := fmt.Sprintf(`{"jsonrpc":"2.0","id":3,"result":{"_meta":{"io.modelcontextprotocol/related-task":{"taskId":%q}},"content":[{"type":"text","text":"real"}]}}`+"\n", id)
	if string(got) != want {
		t.Errorf("tasks/result:\n got %s\nwant %s", got, want)
	}
	for n := range 30 {
		if got := client(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tasks/get","params":{"taskId":%q}}`, 10+n, id)); !strings.Contains(string(got), `"status":"completed"`) {
			t.Fatalf("tasks/get after the result: %s", got)
		}
	}
	if got := client(fmt.Sprintf(`{"jsonrpc":"2.0","id":99,"method":"tasks/cancel","params":{"taskId":%q}}`, id)); !strings.Contains(string(got), `"code":-32602`) {
		t.Errorf("tasks/cancel of a completed task: %s", got)
	}
	tee.Close()
	f.Close()
	entries, err := transcript.ReadForGrading(path)
	if err != nil {
		t.Fatal(err)
	}
	_, answer := transcript.TargetAnswer(entries)
	gotID, delivered, said := transcript.TaskFollowed(entries, answer)
	if gotID != id || delivered == nil || !strings.Contains(string(delivered.Wire), `"text":"real"`) {
		t.Errorf("task %q, delivered %v", gotID, delivered)
	}
	if !strings.Contains(said, "polled it 30 time(s)") || !strings.Contains(said, "tasks/result completed") || strings.Contains(said, "never went to it") {
		t.Errorf("evidence: %s", said)
	}
	if len(entries) > 40 {
		t.Errorf("%d entries kept for grading, want the polls bounded", len(entries))
	}
}
