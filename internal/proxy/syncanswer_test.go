package proxy

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolscore/toolscore/fault"
	"github.com/toolscore/toolscore/internal/transcript"
)

// onFileWriter is a client that, as each frame reaches it, reads what the transcript file holds
// at that moment: a proxy killed right after a write leaves no more than that.
type onFileWriter struct {
	tee    string
	onFile []string
}

func (w *onFileWriter) Write(b []byte) (int, error) {
	f, _ := os.ReadFile(w.tee)
	w.onFile = append(w.onFile, string(f))
	return len(b), nil
}

// TestCallAnswerOnFileFirst (issue 48, item 14): the answer to a tools/call is in the
// transcript's file before the client has it. A proxy killed the moment after (a starved
// machine ending the cell) then leaves the call answered on file, and the run is graded on it
// instead of as cut short; before, the answer sat in the tee's buffer for up to FlushEvery.
func TestCallAnswerOnFileFirst(t *testing.T) {
	for _, name := range []string{"clean", "corrupt"} {
		path := filepath.Join(t.TempDir(), "tee.jsonl")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		tee := transcript.NewTee(f)
		ft, _ := fault.New(name, nil)
		p := New(Config{Fault: ft, FaultName: name, Probability: 1, Seed: 1}, tee)
		call := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"t","arguments":{}}}` + "\n"
		var toServer, notes bytes.Buffer
		if err := p.ClientToServer(context.Background(), strings.NewReader(call), &toServer, &notes); err != nil {
			t.Fatal(err)
		}
		client := &onFileWriter{tee: path}
		answer := `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"ACC-4471: balance 40,718.77 USD"}],"structuredContent":{"account_id":"ACC-4471","balance_minor":4071877}}}` + "\n"
		if err := p.ServerToClient(context.Background(), strings.NewReader(answer), client); err != nil {
			t.Fatal(err)
		}
		if len(client.onFile) != 1 {
			t.Fatalf("%s: the client got %d frames, want 1", name, len(client.onFile))
		}
		onFile := client.onFile[0]
		if !strings.Contains(onFile, `"dir":"`+transcript.ServerToClient+`"`) || !strings.Contains(onFile, "ACC-4471") {
			t.Errorf("%s: when the client got the answer, the transcript file held only:\n%s", name, onFile)
		}
		_ = tee.Close()
		_ = f.Close()
	}
}
