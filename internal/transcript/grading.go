package transcript

import (
	"sort"

	"github.com/toolscore/toolscore/internal/jsonrpc"
	"github.com/toolscore/toolscore/record"
)

// What ReadForGrading keeps of the records a server (or a client) can repeat without end: the
// first and the last lines of the server's stderr, the first frames that are not JSON-RPC, the
// last answers that matched no request it kept, the last target calls.
const (
	keepStderr  = 32
	keepNoise   = 32
	keepStrays  = 8
	keepTargets = 4
	keepTasks   = 16
)

// perMessage are the events recorded once per HTTP exchange or SSE event: as many as messages,
// and read by no grader.
var perMessage = map[string]bool{"http-request": true, "http-response": true, "sse-event": true}

// ReadForGrading reads a transcript as Read does, sorted by time, in one pass that
// keeps only what grading a run reads: every event but the per-message ones, the handshakes,
// tools/list, the last target calls and the first answer to each, the first and last lines of
// the server's stderr, the first frames that are not JSON-RPC. Everything else (a flood of notifications, say) is read and passed over,
// so the memory it takes does not grow with the number of messages; the file stays whole.
func ReadForGrading(path string) ([]Entry, error) {
	entries, _, err := ReadForGradingCalls(path)
	return entries, err
}

// ReadForGradingCalls is ReadForGrading, with how the client sent the target call counted over
// every record in the same pass (record.Calls, but for the side effects, which the grader judges
// from the tools/list answer).
func ReadForGradingCalls(path string) ([]Entry, record.Calls, error) {
	t := &reading{path: path}
	var g grading
	g.asked = map[string]bool{}
	bad := t.scan(func(e *Entry) { g.add(t, e) })
	out := append(g.kept, g.stderrTail.all()...)
	out = append(out, g.strays.all()...)
	out = append(out, g.tasks.all()...)
	out = append(out, g.taskResults.all()...)
	for _, r := range g.targets.all() {
		out = append(out, r...)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Time.Before(out[j].Time) })
	return out, g.calls.calls, bad
}

// grading is the state of ReadForGrading's pass.
type grading struct {
	kept []Entry
	// asked holds the ids of the kept requests not yet answered, as the proxy's pending map.
	asked      map[string]bool
	stderrHead int
	noise      int
	stderrTail ring[Entry]
	strays     ring[Entry]
	// targets are the last target calls, each with the answers kept for it.
	targets ring[[]Entry]
	// target is the key of the last target call while it is unanswered.
	target string
	// calls counts the target calls over every record.
	calls callTally
	// tasks are the proxy's last answers to the tasks requests of a task it serves, and
	// taskResults the last of them that gave the task's result, kept apart so that polls after
	// it do not push it out.
	tasks, taskResults ring[Entry]
}

func (g *grading) add(t *reading, e *Entry) {
	switch e.Dir {
	case Event:
		if e.Event == "http-fault" && e.Fault != "" && e.HTTP != nil && e.HTTP.Status != 0 {
			g.calls.httpFault(e.Time)
		}
		if !perMessage[e.Event] {
			t.own(e)
			g.kept = append(g.kept, *e)
		}
	case ServerStderr:
		t.own(e)
		if g.stderrHead < keepStderr {
			g.stderrHead++
			g.kept = append(g.kept, *e)
		} else if old, ok := g.stderrTail.push(*e, keepStderr); ok {
			t.disown(&old)
		}
	case ClientToServer:
		env, ok := e.envelope()
		key := jsonrpc.IDKey(env.ID)
		if !ok {
			g.addNoise(t, e)
		}
		if ok && key == "" && env.Method == "notifications/cancelled" {
			g.calls.cancelled(env)
		}
		if !ok || key == "" || env.Method == "" {
			return // a notification, an answer to the server, or noise
		}
		switch {
		case e.Match != nil:
			g.calls.request(e, env, key)
			t.own(e)
			if old, ok := g.targets.push([]Entry{*e}, keepTargets); ok {
				for i := range old {
					t.disown(&old[i])
				}
			}
			g.target = key
		case env.Method == "initialize" || env.Method == "server/discover" || env.Method == "tools/list":
			t.own(e)
			g.kept = append(g.kept, *e)
		default:
			return
		}
		g.asked[key] = true
	case ServerToClient:
		env, ok := e.envelope()
		key := jsonrpc.IDKey(env.ID)
		if !ok {
			g.addNoise(t, e)
		}
		if !ok || key == "" || env.Method != "" {
			return // a notification, the server's own request, or noise
		}
		g.calls.answer(key, e.Time)
		t.own(e)
		switch {
		case key == g.target && g.asked[key]:
			last := g.targets.at(g.targets.len() - 1)
			*last = append(*last, *e)
			g.target = ""
		case g.asked[key]:
			g.kept = append(g.kept, *e)
		case isTaskAnswer(e):
			r := &g.tasks
			if d, _ := e.Detail.(map[string]any); d["result"] == true {
				r = &g.taskResults
			}
			if old, ok := r.push(*e, keepTasks); ok {
				t.disown(&old)
			}
			return
		default:
			// An answer to no request kept: a repeat, or one recorded a moment before its request.
			if old, ok := g.strays.push(*e, keepStrays); ok {
				t.disown(&old)
			}
			return
		}
		delete(g.asked, key)
	}
}

// addNoise keeps the first frames that are not JSON objects.
func (g *grading) addNoise(t *reading, e *Entry) {
	if g.noise < keepNoise {
		g.noise++
		t.own(e)
		g.kept = append(g.kept, *e)
	}
}

// ring keeps the last values pushed into it.
type ring[T any] struct {
	buf  []T
	next int
}

// push adds v, and returns the value it dropped to keep at most n.
func (r *ring[T]) push(v T, n int) (dropped T, ok bool) {
	if len(r.buf) < n {
		r.buf = append(r.buf, v)
		return dropped, false
	}
	dropped, r.buf[r.next] = r.buf[r.next], v
	r.next = (r.next + 1) % n
	return dropped, true
}

func (r *ring[T]) len() int { return len(r.buf) }

// at is the i-th value kept, oldest first.
func (r *ring[T]) at(i int) *T { return &r.buf[(r.next+i)%len(r.buf)] }

// all is the values kept, oldest first.
func (r *ring[T]) all() []T {
	return append(append([]T(nil), r.buf[r.next:]...), r.buf[:r.next]...)
}

// isTaskAnswer says whether e is the proxy's own answer to a tasks request (see taskRequest).
func isTaskAnswer(e *Entry) bool {
	d, _ := e.Detail.(map[string]any)
	_, ok := d["method"].(string)
	return ok && d["task"] != nil
}
