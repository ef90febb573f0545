package replay

import (
	"bufio"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolscore/toolscore/internal/transcript"
)

// recording writes a transcript of records, each a given time after the first, and loads it.
func recording(t *testing.T, recs ...*transcript.Record) *Script {
	t.Helper()
	path := filepath.Join(t.TempDir(), "tee.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	tee := transcript.NewTee(f)
	start := time.Now()
	for i, r := range recs {
		if r.Time.IsZero() {
			r.Time = start.Add(time.Duration(i) * time.Millisecond)
		}
		tee.Write(r)
	}
	if err := tee.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	s, warn, err := Load(path)
	if err != nil || warn != nil {
		t.Fatalf("loading the transcript: %v %v", err, warn)
	}
	return s
}

func in(wire string) *transcript.Record {
	return &transcript.Record{Dir: transcript.ClientToServer, Wire: []byte(wire + "\n")}
}
func out(wire string) *transcript.Record {
	return &transcript.Record{Dir: transcript.ServerToClient, Wire: []byte(wire + "\n")}
}

// session plays s to a client over real pipes: send writes a line, next reads one.
type session struct {
	t      *testing.T
	w      io.WriteCloser
	r      *bufio.Reader
	stderr *strings.Builder
	done   chan int
}

func play(t *testing.T, s *Script) *session {
	cr, cw := io.Pipe()
	sr, sw := io.Pipe()
	ss := &session{t: t, w: cw, r: bufio.NewReader(sr), stderr: &strings.Builder{}, done: make(chan int, 1)}
	go func() {
		code, err := s.Play(context.Background(), cr, sw, ss.stderr)
		if err != nil {
			t.Errorf("Play: %v", err)
		}
		sw.Close()
		ss.done <- code
	}()
	t.Cleanup(func() { cw.Close() })
	return ss
}

func (s *session) send(line string) {
	if _, err := io.WriteString(s.w, line+"\n"); err != nil {
		s.t.Fatal(err)
	}
}

func (s *session) next() string {
	line, err := s.r.ReadString('\n')
	if err != nil {
		s.t.Fatalf("reading the replayer: %v (stderr: %s)", err, s.stderr)
	}
	return strings.TrimSuffix(line, "\n")
}

// TestPlayAnswersUnderTheLiveID checks the recorded answer goes out byte for byte under the
// client's id, matched by parameters whatever their order and _meta, with the server's own
// notification and request in the recorded order before it.
func TestPlayAnswersUnderTheLiveID(t *testing.T) {
	s := recording(t,
		in(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"clientInfo":{"name":"old","version":"1"}}}`),
		out(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18"}}`),
		in(`{"jsonrpc":"2.0","method":"notifications/initialized"}`),
		in(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t","arguments":{"a":1,"b":"x"},"_meta":{"progressToken":2}}}`),
		out(`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"<b>hi</b>"}}`),
		out(`{"jsonrpc":"2.0","id":"s1","method":"roots/list"}`),
		in(`{"jsonrpc":"2.0","id":"s1","result":{"roots":[]}}`),
		out(`{"jsonrpc":"2.0", "id" : 2,"result":{"content":[],"odd":  "spacing \u00e9"}}`),
	)
	c := play(t, s)
	c.send(`{"jsonrpc":"2.0","id":"x-0","method":"initialize","params":{"clientInfo":{"name":"new","version":"2"}}}`)
	if got, want := c.next(), `{"jsonrpc":"2.0","id":"x-0","result":{"protocolVersion":"2025-06-18"}}`; got != want {
		t.Fatalf("initialize answered\n%s\nwant\n%s", got, want)
	}
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	c.send(`{"jsonrpc":"2.0","id":77,"method":"tools/call","params":{"_meta":{"progressToken":77},"arguments":{"b":"x","a":1},"name":"t"}}`)
	if got, want := c.next(), `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"<b>hi</b>"}}`; got != want {
		t.Fatalf("got %s, want the recorded notification %s", got, want)
	}
	if got, want := c.next(), `{"jsonrpc":"2.0","id":"s1","method":"roots/list"}`; got != want {
		t.Fatalf("got %s, want the recorded request %s", got, want)
	}
	c.send(`{"jsonrpc":"2.0","id":"s1","result":{"roots":[]}}`)
	if got, want := c.next(), `{"jsonrpc":"2.0", "id" : 77,"result":{"content":[],"odd":  "spacing \u00e9"}}`; got != want {
		t.Fatalf("the call answered\n%s\nwant the recorded bytes under id 77\n%s", got, want)
	}
	c.w.Close()
	if code := <-c.done; code != 0 || c.stderr.Len() != 0 {
		t.Fatalf("exit %d, stderr %q; want 0 and nothing", code, c.stderr)
	}
}

// TestPlayDivergence checks a request the recording lacks gets a JSON-RPC error under its id,
// and stderr names what was expected and what came.
func TestPlayDivergence(t *testing.T) {
	s := recording(t,
		in(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{"a":1}}}`),
		out(`{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`),
	)
	c := play(t, s)
	c.send(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"t","arguments":{"a":2}}}`)
	got := c.next()
	want := `{"jsonrpc":"2.0","id":5,"error":{"code":-32000,"message":"toolscore replay: the recording holds no tools/call request with these parameters","data":{"expected":"request #1 tools/call {\"arguments\":{\"a\":1},\"name\":\"t\"}","got":"tools/call {\"arguments\":{\"a\":2},\"name\":\"t\"}"}}}`
	if got != want {
		t.Fatalf("a divergent call answered\n%s\nwant\n%s", got, want)
	}
	c.w.Close()
	<-c.done
	line := strings.SplitN(c.stderr.String(), "\n", 2)[0]
	if wantLine := Diverged + `expected request #1 tools/call {"arguments":{"a":1},"name":"t"}; got tools/call {"arguments":{"a":2},"name":"t"}`; line != wantLine {
		t.Fatalf("stderr said\n%s\nwant\n%s", line, wantLine)
	}
}

// TestPlayKeepsDelaysAndExit checks an answer goes out as long after its request as recorded
// (a latency fault), and a server that exited by itself ends the session with its status.
func TestPlayKeepsDelaysAndExit(t *testing.T) {
	start := time.Now()
	s := recording(t,
		&transcript.Record{Time: start, Dir: transcript.ClientToServer, Wire: []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n")},
		&transcript.Record{Time: start.Add(300 * time.Millisecond), Dir: transcript.ServerToClient, Wire: []byte(`{"jsonrpc":"2.0","id":1,"result":{}}` + "\n")},
		&transcript.Record{Time: start.Add(301 * time.Millisecond), Dir: transcript.Event, Event: "server-exit", Detail: map[string]any{"status": 3}},
	)
	c := play(t, s)
	sent := time.Now()
	c.send(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	c.next()
	if took := time.Since(sent); took < 290*time.Millisecond {
		t.Fatalf("answered after %s, want the recorded 300ms", took)
	}
	select {
	case code := <-c.done:
		if code != 3 {
			t.Fatalf("ended with %d, want the recorded server's 3", code)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the session did not end where the recorded server exited")
	}
}

// TestPlayStderrIsOneLineAMessage checks a client's text cannot start a line of its own on the
// replayer's stderr, where a replayed run's grader looks for the divergence line.
func TestPlayStderrIsOneLineAMessage(t *testing.T) {
	s := recording(t, in(`{"jsonrpc":"2.0","id":1,"method":"ping"}`), out(`{"jsonrpc":"2.0","id":1,"result":{}}`))
	c := play(t, s)
	c.send(`{"jsonrpc":"2.0","method":"x\ntoolscore replay: diverged: made up"}`)
	c.send(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	c.next()
	c.w.Close()
	<-c.done
	for _, line := range strings.Split(c.stderr.String(), "\n") {
		if strings.HasPrefix(line, Diverged) {
			t.Errorf("a notification the recording lacks made a divergence line: %q", c.stderr.String())
		}
	}
	if !strings.Contains(c.stderr.String(), "the client sent a notification the recording lacks: x\uFFFDtoolscore replay") {
		t.Errorf("stderr: %q", c.stderr.String())
	}
}
