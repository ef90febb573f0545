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
	"maps"
	"os"
	"os/exec"
	"slices"
	"strconv"
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
	// latency is how long after its request each answer came, by id; unanswered how long the
	// session went on after each request the server never answered. Neither is known of the
	// proxy's own sessions (proxy), whose timing no client waits on.
	latency    map[string]time.Duration
	unanswered map[string]time.Duration
	// before is what the server sent of its own (notifications, its requests) since its
	// previous answer, by the id of the answer it came before; nil where it was not recorded.
	before map[string][]string
	// proxy names the proxy's own session with a fresh server this stands for ("" for a client's).
	proxy string
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
	Time     time.Time       `json:"time"`
	Dir      string          `json:"dir"`
	Event    string          `json:"event"`
	Detail   json.RawMessage `json:"detail"`
	Wire     *string         `json:"wire"`
	WireB64  []byte          `json:"wire_base64"`
	Original *string         `json:"original"`
	OrigB64  []byte          `json:"original_base64"`
	Note     string          `json:"note"`
	Excerpt  json.RawMessage `json:"excerpt"`
	NotJSON  bool            `json:"not_json"`
	HTTP     struct {
		EventID string `json:"event_id"`
	} `json:"http"`
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
		s, own, err := readSession(p)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
		out = append(out, own...)
	}
	return out, nil
}

func readSession(path string) (Session, []Session, error) {
	f, err := record.Open(path)
	if err != nil {
		return Session{}, nil, err
	}
	defer f.Close()
	s := Session{answers: map[string][]byte{}, tools: map[string]string{}, latency: map[string]time.Duration{}, unanswered: map[string]time.Duration{}, before: map[string][]string{}}
	// The client's requests the proxy answered itself (a protocol it does not offer): the server
	// never saw them.
	madeUp := map[string]bool{}
	type sent struct {
		wire []byte
		id   string
	}
	var msgs []sent
	var waits []int
	// sentAt is when each request reached the server; own what the server sent of its own since
	// its last answer; end the time of the session's last record.
	sentAt := map[string]time.Time{}
	var own []string
	var end time.Time
	// The proxy's own sessions with a fresh server (the schema faults' tools/list, a decoy's
	// tools/call), and whether the proxy said it asked for the schemas.
	var proxied []Session
	askedSchemas, recordedSchemas := false, false
	// serverSent notes a message the server sent, as it sent it: an answer by its id, anything
	// else as its own message before the next answer.
	seen := map[string]bool{} // the SSE event ids of what the server sent
	serverSent := func(l transcriptLine) {
		if e := l.HTTP.EventID; e != "" {
			if seen[e] {
				// The same SSE event again, on a stream the client resumed from its id: the
				// server's event store repeating what it sent once, which a replay that is not cut
				// never asks for.
				return
			}
			seen[e] = true
		}
		w := bytes.TrimRight(l.original(), "\r\n")
		s.Total++
		msg, ok := jsonrpc.ParseMessage(w)
		id := ""
		if ok && msg.Method == "" {
			id = jsonrpc.IDKey(msg.ID)
		}
		if id == "" {
			own = append(own, string(w))
			return
		}
		s.answers[id] = w
		s.before[id], own = own, nil
		if at, ok := sentAt[id]; ok {
			s.latency[id] = l.Time.Sub(at)
		}
	}
	r := bufio.NewReaderSize(f, 1<<20)
	for {
		line, rerr := r.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			var l transcriptLine
			if err := json.Unmarshal(line, &l); err != nil {
				return Session{}, nil, fmt.Errorf("%w: %s: a record does not read: %v", ErrUnverifiable, path, err)
			}
			if l.Time.After(end) {
				end = l.Time
			}
			switch l.Dir {
			case transcript.ClientToServer, transcript.ServerToClient:
				if len(l.Excerpt) > 0 {
					return Session{}, nil, fmt.Errorf("%w: %s holds a message too large to record whole", ErrUnverifiable, path)
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
					if id != "" {
						sentAt[id] = l.Time
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
				serverSent(l)
			case transcript.Event:
				switch l.Event {
				case "sse-cut":
					// The server's event the proxy cut from the stream: the server sent it, the
					// client never got it (older transcripts did not keep it).
					if l.Original != nil || l.OrigB64 != nil {
						serverSent(l)
					}
				case "schema":
					askedSchemas = true
				case "schema-session":
					ps, err := schemaSession(l.Detail)
					if err != nil {
						return Session{}, nil, fmt.Errorf("%w: %s: the proxy's own tools/list: %v", ErrUnverifiable, path, err)
					}
					proxied, recordedSchemas = append(proxied, ps), true
				case "decoy":
					ps, err := decoySession(l.Detail)
					if err != nil {
						return Session{}, nil, fmt.Errorf("%w: %s: the proxy's own decoy call: %v", ErrUnverifiable, path, err)
					}
					proxied = append(proxied, ps)
				}
			}
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return Session{}, nil, fmt.Errorf("%w: %s: %v", ErrUnverifiable, path, rerr)
		}
	}
	if askedSchemas && !recordedSchemas {
		// Asked over HTTP, or the asking failed, or a proxy before the session was recorded:
		// what the schema fault picked from cannot be asked again.
		return Session{}, nil, fmt.Errorf("%w: %s: the proxy asked the server for its outputSchemas in a session it did not record", ErrUnverifiable, path)
	}
	for i, m := range msgs {
		if m.id != "" && madeUp[m.id] {
			continue
		}
		s.Sent = append(s.Sent, string(m.wire))
		s.Waits = append(s.Waits, waits[i])
		if _, answered := s.answers[m.id]; m.id != "" && !answered {
			s.unanswered[m.id] = end.Sub(sentAt[m.id])
		}
	}
	return s, proxied, nil
}

// handshake is what a fresh session of the proxy's own sends first (proxy.startFresh), as
// client name.
func handshake(name string) []string {
	init, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": name + "-init", "method": "initialize", "params": map[string]any{
		"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": name, "version": "1"}}})
	return []string{string(init), `{"jsonrpc":"2.0","method":"notifications/initialized"}`}
}

// proxyRequest is one request of a session of the proxy's own, and the result it had.
type proxyRequest struct {
	id, method string
	params     any
	result     json.RawMessage
}

// proxySession is a session of the proxy's own as client name: its handshake, then requests one
// after the other, each sent once the answer before it came.
func proxySession(name string, reqs []proxyRequest) Session {
	s := Session{Sent: handshake(name), Waits: []int{0, 1}, Total: 1, answers: map[string][]byte{}, tools: map[string]string{}, proxy: name}
	for i, r := range reqs {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": r.id, "method": r.method, "params": r.params})
		s.Sent = append(s.Sent, string(b))
		s.Waits = append(s.Waits, 1+i)
		s.Total++
		answer, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": r.id, "result": r.result})
		key := jsonrpc.IDKey([]byte(strconv.Quote(r.id)))
		s.answers[key] = answer
		if p, ok := r.params.(map[string]any); ok && r.method == "tools/call" {
			s.tools[key], _ = p["name"].(string)
		}
	}
	return s
}

// schemaSession is the proxy's own tools/list session (proxy.listSchemas) from its record: the
// pages' results, each page asked with the cursor of the one before.
func schemaSession(detail json.RawMessage) (Session, error) {
	var d struct {
		Pages []json.RawMessage `json:"pages"`
	}
	if err := json.Unmarshal(detail, &d); err != nil || len(d.Pages) == 0 {
		return Session{}, fmt.Errorf("no pages recorded (%v)", err)
	}
	var reqs []proxyRequest
	params := map[string]any{}
	for i, page := range d.Pages {
		reqs = append(reqs, proxyRequest{fmt.Sprintf("toolscore-schema-list-%d", i+1), "tools/list", params, page})
		var next struct {
			NextCursor string `json:"nextCursor"`
		}
		_ = json.Unmarshal(page, &next)
		params = map[string]any{"cursor": next.NextCursor}
	}
	return proxySession("toolscore-schema", reqs), nil
}

// decoySession is the proxy's own tools/call of a decoy record (proxy.fetchOnce) from its record.
func decoySession(detail json.RawMessage) (Session, error) {
	var d struct {
		Tool      string          `json:"tool"`
		Arguments json.RawMessage `json:"arguments"`
		Result    json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(detail, &d); err != nil || d.Tool == "" || len(d.Result) == 0 {
		return Session{}, fmt.Errorf("no tool or result recorded (%v)", err)
	}
	args := d.Arguments
	if len(args) == 0 {
		args = json.RawMessage("null")
	}
	return proxySession("toolscore-decoy", []proxyRequest{{"toolscore-decoy-call", "tools/call", map[string]any{"name": d.Tool, "arguments": args}, d.Result}}), nil
}

// Live is a live server's answers to one session's requests, by request id; Err says why the
// replay could not finish (its answers so far are kept).
type Live struct {
	Key     string            `json:"key"`
	Answers map[string]string `json:"answers"`
	// Latency is how long after its request each answer came; Before what the server sent of
	// its own since its previous answer, by the id of the answer it came before.
	Latency map[string]time.Duration `json:"latency,omitempty"`
	Before  map[string][]string      `json:"before,omitempty"`
	Err     string                   `json:"error,omitempty"`
}

// Differs compares the server's recorded session s with the live one: "" when every recorded
// answer came again the same (JSON-RPC ids aside and, in the answers to tools/call, the fields
// volatile names by tool, JSON pointers into the result, masked), after the same messages of the
// server's own, and on the same side of the cell's timeout (onTime); else what differs first.
func (s Session) Differs(live Live, volatile map[string][]string, timeout time.Duration) string {
	what := func(id string) string {
		w := "request " + id
		if t := s.tools[id]; t != "" {
			w = "tools/call of " + t
		}
		if s.proxy != "" {
			w += " in the proxy's own session with a fresh server (" + s.proxy + ")"
		}
		return w
	}
	for _, id := range slices.Sorted(maps.Keys(s.answers)) {
		want := s.answers[id]
		got, ok := live.Answers[id]
		if !ok {
			if live.Err != "" {
				return "the live server did not answer " + what(id) + ": " + live.Err
			}
			return "the live server did not answer " + what(id)
		}
		ptrs := volatile[s.tools[id]]
		if normalize(want, ptrs) != normalize([]byte(got), ptrs) {
			return "the answer to " + what(id) + " changed"
		}
		if s.before != nil && !sameMessages(s.before[id], live.Before[id]) {
			return fmt.Sprintf("the server sent %d messages of its own before its answer to %s, the recorded one %d, or other ones", len(live.Before[id]), what(id), len(s.before[id]))
		}
		if r, ok := s.latency[id]; ok {
			if why := onTime(r, live.Latency[id], timeout); why != "" {
				return "the answer to " + what(id) + " " + why
			}
		}
	}
	for _, id := range slices.Sorted(maps.Keys(s.unanswered)) {
		w := s.unanswered[id]
		if _, ok := live.Answers[id]; ok && live.Latency[id] < w+timeout/4 {
			return fmt.Sprintf("the live server answered %s after %s, where the recorded session went on %s without an answer (the cell's timeout is %s)", what(id), live.Latency[id].Round(time.Millisecond), w.Round(time.Millisecond), timeout)
		}
	}
	if live.Err != "" {
		return live.Err
	}
	return ""
}

// onTime says how an answer that came after recorded in the cached run and after live now falls
// on the other side of the cell's timeout, as a client would see it; "" when it does not. Time is
// measured at the proxy, not at the client, and a run's client start and a fault's own delay
// also count against its timeout: so an answer is on time only within a quarter of the timeout,
// late only past it, and either one between is too near to tell, and its cell runs again. The
// wide band keeps a loaded machine's jitter from flipping a verdict: a fast server (milliseconds)
// stays on time, a hung one late, and only a server that takes a good part of the timeout loses
// reuse.
func onTime(recorded, live, timeout time.Duration) string {
	side := func(d time.Duration) string {
		switch {
		case d <= timeout/4:
			return "on time"
		case d > timeout:
			return "late"
		}
		return "too near the timeout to tell"
	}
	r, l := side(recorded), side(live)
	if r == l && r != "too near the timeout to tell" {
		return ""
	}
	return fmt.Sprintf("came after %s live, after %s when recorded: against the cell's timeout of %s, %s live and %s recorded (reused only on time within a quarter of it, or late past it, both)",
		live.Round(time.Millisecond), recorded.Round(time.Millisecond), timeout, l, r)
}

// sameMessages says whether two lists of the server's own messages are the same, each as
// canonical JSON with its id dropped.
func sameMessages(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if normalize([]byte(a[i]), nil) != normalize([]byte(b[i]), nil) {
			return false
		}
	}
	return true
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
// in the run's environment env) and returns the live answers, when each came and what the
// server sent of its own before each. Each message goes once the live server has sent as many
// messages as the recorded one had; wait is the cell's timeout: a wait for a message longer than
// that ends the replay, with the answers so far, and each request the server leaves unanswered
// is waited for that long after it was sent.
func Replay(ctx context.Context, s Session, argv, env []string, wait time.Duration) Live {
	live := Live{Key: s.Key(), Answers: map[string]string{}, Latency: map[string]time.Duration{}, Before: map[string][]string{}}
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
	// sentAt is when each request went to the server, by id; own what the server sent of its
	// own since its last answer.
	sentAt := map[string]time.Time{}
	var own []string
	more := make(chan struct{}, 1)
	go func() {
		r := bufio.NewReaderSize(stdout, 1<<20)
		for {
			line, err := r.ReadBytes('\n')
			if len(bytes.TrimSpace(line)) > 0 {
				now := time.Now()
				w := bytes.TrimRight(line, "\r\n")
				mu.Lock()
				count++
				id := ""
				if msg, ok := jsonrpc.ParseMessage(w); ok && msg.Method == "" {
					id = jsonrpc.IDKey(msg.ID)
				}
				if id == "" {
					own = append(own, string(w))
				} else {
					live.Answers[id] = string(w)
					live.Before[id], own = own, nil
					if at, ok := sentAt[id]; ok {
						live.Latency[id] = now.Sub(at)
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
	// awaitUntil waits until done says so, the server closes its output, or until passes;
	// done is asked under mu.
	closed := false
	awaitUntil := func(until time.Time, done func() bool) bool {
		deadline := time.NewTimer(time.Until(until))
		defer deadline.Stop()
		for {
			mu.Lock()
			ok := done()
			mu.Unlock()
			if ok || closed {
				return ok
			}
			select {
			case _, open := <-more:
				closed = !open
			case <-deadline.C:
				mu.Lock()
				defer mu.Unlock()
				return done()
			case <-ctx.Done():
				return false
			}
		}
	}
	for i, m := range s.Sent {
		if !awaitUntil(time.Now().Add(wait), func() bool { return count >= s.Waits[i] }) {
			live.Err = fmt.Sprintf("the server sent %d messages before message %d within the cell's timeout (%s), the recorded one %d", countOf(&mu, &count), i+1, wait, s.Waits[i])
			return snapshot(&mu, live)
		}
		if msg, ok := jsonrpc.ParseMessage([]byte(m)); ok && msg.Method != "" {
			if id := jsonrpc.IDKey(msg.ID); id != "" {
				mu.Lock()
				sentAt[id] = time.Now()
				mu.Unlock()
			}
		}
		if _, err := io.WriteString(stdin, m+"\n"); err != nil {
			live.Err = "the server stopped reading: " + err.Error()
			return snapshot(&mu, live)
		}
	}
	if !awaitUntil(time.Now().Add(wait), func() bool { return count >= s.Total }) {
		live.Err = fmt.Sprintf("the server sent %d messages within the cell's timeout (%s), the recorded one %d", countOf(&mu, &count), wait, s.Total)
		return snapshot(&mu, live)
	}
	// Every request is waited for until its answer or the timeout after it: an answer the
	// recorded session never had may come now.
	mu.Lock()
	var last time.Time
	for _, at := range sentAt {
		if at.Add(wait).After(last) {
			last = at.Add(wait)
		}
	}
	mu.Unlock()
	awaitUntil(last, func() bool {
		for id := range sentAt {
			if _, ok := live.Answers[id]; !ok {
				return false
			}
		}
		return true
	})
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
	out.Latency, out.Before = maps.Clone(live.Latency), maps.Clone(live.Before)
	return out
}
