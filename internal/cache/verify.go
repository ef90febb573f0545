package cache

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/toolscore/toolscore/internal/jsonrpc"
	"github.com/toolscore/toolscore/internal/transcript"
	"github.com/toolscore/toolscore/record"
)

// Session is one server session of a cached run, as its transcript recorded it: what the client
// sent the server (after the proxy's own rewrites, before nothing else), and what the server
// answered each request, before any fault.
type Session struct {
	// Sent are the messages the server was sent, in order, each one line of JSON-RPC.
	Sent []string `json:"sent"`
	// Waits are, for each of Sent, how many messages the server had sent before it: a replay
	// sends it only once the live server has sent as many, so a request the client answered
	// comes after the server asked it.
	Waits []int `json:"waits"`
	// Total is how many messages the server sent in the session.
	Total int `json:"total"`
	// answers are the server's answers by the id of the request they answer; tools the tool each
	// tools/call request named.
	answers map[string][]byte
	tools   map[string]string
}

// Key names the session's requests: two sessions with the same key are one replay.
func (s Session) Key() string {
	h := sha256.New()
	for i, m := range s.Sent {
		fmt.Fprintf(h, "%d %d\n%s\n", i, s.Waits[i], m)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// transcriptLine is what ReadSessions reads of a transcript record: the wire bytes and the
// server's own bytes a fault replaced (which transcript.Read leaves out).
type transcriptLine struct {
	Dir      string          `json:"dir"`
	Wire     *string         `json:"wire"`
	WireB64  []byte          `json:"wire_base64"`
	Original *string         `json:"original"`
	OrigB64  []byte          `json:"original_base64"`
	Note     string          `json:"note"`
	Excerpt  json.RawMessage `json:"excerpt"`
	NotJSON  bool            `json:"not_json"`
}

func (l transcriptLine) wire() []byte {
	if l.Wire != nil {
		return []byte(*l.Wire)
	}
	return l.WireB64
}

func (l transcriptLine) original() []byte {
	switch {
	case l.Original != nil:
		return []byte(*l.Original)
	case l.OrigB64 != nil:
		return l.OrigB64
	}
	return l.wire()
}

// ErrUnverifiable is a transcript whose server answers cannot be replayed: a message too large
// to have been recorded whole, a record that cannot be read.
var ErrUnverifiable = errors.New("its transcript cannot be replayed")

// ReadSessions reads every server session of a run's directory (tee.jsonl, tee.2.jsonl, ...).
func ReadSessions(runDir string) ([]Session, error) {
	var out []Session
	base := runDir + string(os.PathSeparator) + record.TeeFile
	for n := 1; ; n++ {
		p := transcript.SessionPath(base, n)
		if _, err := os.Lstat(p); err != nil {
			break
		}
		s, err := readSession(p)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

func readSession(path string) (Session, error) {
	f, err := record.Open(path)
	if err != nil {
		return Session{}, err
	}
	defer f.Close()
	s := Session{answers: map[string][]byte{}, tools: map[string]string{}}
	// The client's requests the proxy answered itself (a protocol it does not offer): the server
	// never saw them.
	madeUp := map[string]bool{}
	type sent struct {
		wire []byte
		id   string
	}
	var msgs []sent
	var waits []int
	r := bufio.NewReaderSize(f, 1<<20)
	for {
		line, rerr := r.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			var l transcriptLine
			if err := json.Unmarshal(line, &l); err != nil {
				return Session{}, fmt.Errorf("%w: %s: a record does not read: %v", ErrUnverifiable, path, err)
			}
			switch l.Dir {
			case transcript.ClientToServer, transcript.ServerToClient:
				if len(l.Excerpt) > 0 {
					return Session{}, fmt.Errorf("%w: %s holds a message too large to record whole", ErrUnverifiable, path)
				}
			}
			switch l.Dir {
			case transcript.ClientToServer:
				w := bytes.TrimRight(l.wire(), "\r\n")
				msg, ok := jsonrpc.ParseMessage(w)
				id := ""
				if ok && msg.Method != "" {
					id = jsonrpc.IDKey(msg.ID)
					if msg.Method == "tools/call" && id != "" {
						var p struct {
							Name string `json:"name"`
						}
						_ = json.Unmarshal(msg.Params, &p)
						s.tools[id] = p.Name
					}
				}
				msgs = append(msgs, sent{w, id})
				waits = append(waits, s.Total)
			case transcript.ServerToClient:
				if strings.HasPrefix(l.Note, "made up by the proxy") {
					if msg, ok := jsonrpc.ParseMessage(l.wire()); ok && msg.Method == "" {
						madeUp[jsonrpc.IDKey(msg.ID)] = true
					}
					continue
				}
				w := bytes.TrimRight(l.original(), "\r\n")
				s.Total++
				if msg, ok := jsonrpc.ParseMessage(w); ok && msg.Method == "" {
					if id := jsonrpc.IDKey(msg.ID); id != "" {
						s.answers[id] = w
					}
				}
			}
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return Session{}, fmt.Errorf("%w: %s: %v", ErrUnverifiable, path, rerr)
		}
	}
	for i, m := range msgs {
		if m.id != "" && madeUp[m.id] {
			continue
		}
		s.Sent = append(s.Sent, string(m.wire))
		s.Waits = append(s.Waits, waits[i])
	}
	return s, nil
}

// Live is a live server's answers to one session's requests, by request id; Err says why the
// replay could not finish (its answers so far are kept).
type Live struct {
	Key     string            `json:"key"`
	Answers map[string]string `json:"answers"`
	Err     string            `json:"error,omitempty"`
}

// Differs compares the server's recorded answers in s with the live ones: "" when every recorded
// answer came again the same, JSON-RPC ids aside and, in the answers to tools/call, the fields
// volatile names by tool (JSON pointers into the result) masked; else what differs first.
func (s Session) Differs(live Live, volatile map[string][]string) string {
	for id, want := range s.answers {
		got, ok := live.Answers[id]
		if !ok {
			if live.Err != "" {
				return "the live server did not answer request " + id + ": " + live.Err
			}
			return "the live server did not answer request " + id
		}
		ptrs := volatile[s.tools[id]]
		if normalize(want, ptrs) != normalize([]byte(got), ptrs) {
			what := "request " + id
			if t := s.tools[id]; t != "" {
				what = "tools/call of " + t
			}
			return "the answer to " + what + " changed"
		}
	}
	return ""
}

// normalize is b as canonical JSON with its id dropped and the volatile pointers of its result
// masked; b itself when it is not JSON.
func normalize(b []byte, volatile []string) string {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v map[string]any
	if d.Decode(&v) != nil {
		return string(b)
	}
	delete(v, "id")
	if res, ok := v["result"]; ok {
		for _, p := range volatile {
			res = mask(res, p)
		}
		v["result"] = res
	}
	out, _ := json.Marshal(v)
	return string(out)
}

// mask replaces the value at JSON pointer p in v (RFC 6901) by a placeholder, when there is one.
func mask(v any, p string) any {
	if p == "" {
		return "(volatile)"
	}
	if !strings.HasPrefix(p, "/") {
		return v
	}
	head, rest, more := strings.Cut(p[1:], "/")
	head = strings.ReplaceAll(strings.ReplaceAll(head, "~1", "/"), "~0", "~")
	next := ""
	if more {
		next = "/" + rest
	}
	switch x := v.(type) {
	case map[string]any:
		if c, ok := x[head]; ok {
			x[head] = mask(c, next)
		}
	case []any:
		var i int
		if _, err := fmt.Sscanf(head, "%d", &i); err == nil && i >= 0 && i < len(x) && fmt.Sprint(i) == head {
			x[i] = mask(x[i], next)
		}
	}
	return v
}

// Replay plays s to a fresh server started by argv (toolscore's clean proxy around the server,
// in the run's environment env) and returns the live answers. Each message goes once the live
// server has sent as many messages as the recorded one had; a wait longer than wait ends the
// replay, with the answers so far.
func Replay(ctx context.Context, s Session, argv, env []string, wait time.Duration) Live {
	live := Live{Key: s.Key(), Answers: map[string]string{}}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		live.Err = err.Error()
		return live
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		live.Err = err.Error()
		return live
	}
	if err := cmd.Start(); err != nil {
		live.Err = "starting the server: " + err.Error()
		return live
	}
	defer func() {
		stdin.Close()
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
	}()
	var mu sync.Mutex
	count := 0
	more := make(chan struct{}, 1)
	go func() {
		r := bufio.NewReaderSize(stdout, 1<<20)
		for {
			line, err := r.ReadBytes('\n')
			if len(bytes.TrimSpace(line)) > 0 {
				w := bytes.TrimRight(line, "\r\n")
				mu.Lock()
				count++
				if msg, ok := jsonrpc.ParseMessage(w); ok && msg.Method == "" {
					if id := jsonrpc.IDKey(msg.ID); id != "" {
						live.Answers[id] = string(w)
					}
				}
				mu.Unlock()
				select {
				case more <- struct{}{}:
				default:
				}
			}
			if err != nil {
				close(more)
				return
			}
		}
	}()
	awaitCount := func(n int) bool {
		deadline := time.NewTimer(wait)
		defer deadline.Stop()
		for {
			mu.Lock()
			c := count
			mu.Unlock()
			if c >= n {
				return true
			}
			select {
			case _, open := <-more:
				if !open {
					mu.Lock()
					c := count
					mu.Unlock()
					return c >= n
				}
			case <-deadline.C:
				return false
			case <-ctx.Done():
				return false
			}
		}
	}
	for i, m := range s.Sent {
		if !awaitCount(s.Waits[i]) {
			live.Err = fmt.Sprintf("the server sent %d messages before message %d, the recorded one %d", countOf(&mu, &count), i+1, s.Waits[i])
			return snapshot(&mu, live)
		}
		if _, err := io.WriteString(stdin, m+"\n"); err != nil {
			live.Err = "the server stopped reading: " + err.Error()
			return snapshot(&mu, live)
		}
	}
	if !awaitCount(s.Total) {
		live.Err = fmt.Sprintf("the server sent %d messages, the recorded one %d", countOf(&mu, &count), s.Total)
	}
	return snapshot(&mu, live)
}

func countOf(mu *sync.Mutex, n *int) int {
	mu.Lock()
	defer mu.Unlock()
	return *n
}

// snapshot is a copy of live's answers taken under mu, which the reader still writes.
func snapshot(mu *sync.Mutex, live Live) Live {
	mu.Lock()
	defer mu.Unlock()
	out := live
	out.Answers = make(map[string]string, len(live.Answers))
	for k, v := range live.Answers {
		out.Answers[k] = v
	}
	return out
}
