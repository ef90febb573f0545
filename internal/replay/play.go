package replay

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/toolscore/toolscore/internal/jsonrpc"
	"github.com/toolscore/toolscore/internal/transcript"
)

// Diverged starts the line the replayer writes on stderr when the client sends a request the
// recording does not hold; a replayed run's grader looks for it among the server's stderr.
const Diverged = "toolscore replay: diverged: "

// DivergedCode is the JSON-RPC error code of the answer to such a request: in the range the
// spec leaves to servers, so no client mistakes it for one of its own.
const DivergedCode = -32000

// maxShown bounds how much of a message a divergence shows.
const maxShown = 600

// Play answers the client on stdin and stdout from the script until the client closes its end,
// or until the point where the recorded server exited by itself; it returns the exit status to
// end with (the recorded server's, when it exited first).
//
// Each client message is matched to the first recorded one of its kind, method and parameters
// not yet matched; the recorded answer to a matched request goes out under the live id, byte
// for byte otherwise, and every message the server sent goes out in the recorded order, once
// the client messages recorded before it have come, as long after them as it was then (so a
// latency fault keeps its delay). A request the recording lacks is answered with a JSON-RPC
// error, and stderr says what was expected and what came.
func (s *Script) Play(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	in := make(chan input)
	readErr := make(chan error, 1)
	go func() {
		r := bufio.NewReaderSize(stdin, 64<<10)
		for {
			line, err := r.ReadBytes('\n')
			if len(line) > 0 {
				select {
				case in <- input{line: line}:
				case <-ctx.Done():
					return
				}
			}
			if err != nil {
				if err != io.EOF {
					readErr <- err
				}
				close(in)
				return
			}
		}
	}()
	return s.run(ctx, in, readErr, stderr, func(o outgoing) error {
		if o.st != nil && o.st.httpOnly() {
			return nil // nothing to say on stdio
		}
		_, err := stdout.Write(o.frame)
		return err
	})
}

// input is one message from the client, and from is where its answers go (nil on stdio).
type input struct {
	line []byte
	from any
}

// outgoing is one message for the client: a recorded step (nil for a divergence's error), and
// to, the from of the client message it answers (nil for a message the server sent first).
type outgoing struct {
	frame []byte
	st    *step
	to    any
}

// run plays the script to the client messages on in until in closes or ctx ends, handing what
// goes out to send; readErr says why in closed, when it was not the client's end.
func (s *Script) run(ctx context.Context, in <-chan input, readErr <-chan error, stderr io.Writer, send func(outgoing) error) (int, error) {
	p := &player{s: s, send: send, log: stderr}
	for {
		wait, exit, err := p.emitDue(false)
		if err != nil || exit != nil {
			return deref(exit), err
		}
		var timer <-chan time.Time
		if wait > 0 {
			timer = time.After(wait)
		}
		select {
		case msg, ok := <-in:
			if !ok {
				select {
				case err := <-readErr:
					return 0, fmt.Errorf("reading the client: %w", err)
				default:
				}
				// The client closed its end: what was due goes out, then the session ends.
				if _, exit, err := p.emitDue(true); err != nil || exit != nil {
					return deref(exit), err
				}
				p.missing()
				return 0, nil
			}
			if err := p.receive(msg); err != nil {
				return 0, err
			}
		case <-timer:
		case <-ctx.Done():
			return 0, nil
		}
	}
}

func deref(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

// player is the state of one session played from a script.
type player struct {
	s    *Script
	send func(outgoing) error
	log  io.Writer
	next int // the next recorded step to consider sending
	// waiting is at most the index of the first recorded client step that has not come.
	waiting int
}

// emitDue sends the server's recorded steps that are due, in order, and says how long until
// the next one is (0: it waits on the client), or the exit status when the server's exit is
// due. now sends what is due without waiting out recorded delays.
func (p *player) emitDue(now bool) (wait time.Duration, exit *int, err error) {
	steps := p.s.steps
	for ; p.next < len(steps); p.next++ {
		st := steps[p.next]
		if st.dir == transcript.ClientToServer {
			continue
		}
		ready, at := p.due(p.next)
		if !ready {
			return 0, nil, nil
		}
		if d := time.Until(at); d > 0 && !now {
			return d, nil, nil
		}
		if st.dir == exitStep {
			return 0, &st.status, nil
		}
		frame, to := st.wire, any(nil)
		if st.answers >= 0 {
			req := steps[st.answers]
			to = req.from
			if !st.httpOnly() && jsonrpc.IDKey(req.liveID) != jsonrpc.IDKey(st.msg.ID) { // the recorded spelling, 3.0, stays
				if f, ok := jsonrpc.WithID(frame, req.liveID); ok {
					frame = f
				}
			}
		}
		if err := p.send(outgoing{frame: frame, st: st, to: to}); err != nil {
			return 0, nil, fmt.Errorf("writing to the client: %w", err)
		}
	}
	return 0, nil, nil
}

// due says whether outgoing step i may go, and when: an answer once its request came, anything
// else once every client message recorded before it came, each as long after as recorded.
func (p *player) due(i int) (bool, time.Time) {
	steps := p.s.steps
	st := steps[i]
	if st.answers >= 0 {
		req := steps[st.answers]
		if !req.matched {
			return false, time.Time{}
		}
		return true, req.matchedAt.Add(st.at.Sub(req.at))
	}
	// The first client step not yet come: everything before it has.
	for p.waiting < len(steps) && (steps[p.waiting].dir != transcript.ClientToServer || steps[p.waiting].matched) {
		p.waiting++
	}
	if p.waiting < i {
		return false, time.Time{}
	}
	if st.lastIn < 0 {
		return true, time.Time{}
	}
	last := steps[st.lastIn]
	return true, last.matchedAt.Add(st.at.Sub(last.at))
}

// receive matches one message from the client to the recording.
func (p *player) receive(msg input) error {
	line := msg.line
	m, ok := jsonrpc.ParseMessage(line)
	kind := notJSON
	switch {
	case !ok:
	case m.Method != "" && jsonrpc.IDKey(m.ID) != "":
		kind = request
	case m.Method != "":
		kind = notification
	default:
		kind = response
	}
	key := matchKey(m, kind, line)
	if queue := p.s.byKey[key]; len(queue) > 0 {
		st := p.s.steps[queue[0]]
		p.s.byKey[key] = queue[1:]
		st.matched, st.matchedAt, st.liveID, st.from = true, time.Now(), m.ID, msg.from
		return nil
	}
	got := shown(m, kind, line)
	if kind != request {
		// Nothing to answer: said, and the session goes on.
		_, err := fmt.Fprintf(p.log, "toolscore replay: the client sent a %s the recording lacks: %s\n", kind, got)
		return err
	}
	// Expected is the recorded request of the same method still to come, else the next one.
	expected := "no further request (the recorded client made no more)"
	var next *step
	for _, st := range p.s.steps {
		if st.dir == transcript.ClientToServer && !st.matched && st.kind == request {
			if next == nil || (st.msg.Method == m.Method && next.msg.Method != m.Method) {
				next = st
			}
		}
	}
	if next != nil {
		expected = "request #" + fmt.Sprint(next.n) + " " + shown(next.msg, next.kind, next.wire)
	}
	if _, err := fmt.Fprintf(p.log, "%sexpected %s; got %s\n", Diverged, expected, got); err != nil {
		return err
	}
	answer, err := json.Marshal(divergedAnswer{JSONRPC: "2.0", ID: m.ID, Error: divergedError{
		Code:    DivergedCode,
		Message: "toolscore replay: the recording holds no " + m.Method + " request with these parameters",
		Data:    divergence{Expected: expected, Got: got},
	}})
	if err != nil {
		return err
	}
	if err := p.send(outgoing{frame: append(answer, '\n'), to: msg.from}); err != nil {
		return fmt.Errorf("writing to the client: %w", err)
	}
	return nil
}

// missing says on stderr which recorded client messages never came, when some did not.
func (p *player) missing() {
	n, first := 0, ""
	for _, st := range p.s.steps {
		if st.dir == transcript.ClientToServer && !st.matched {
			if n == 0 {
				first = shown(st.msg, st.kind, st.wire)
			}
			n++
		}
	}
	if n > 0 {
		fmt.Fprintf(p.log, "toolscore replay: the client closed its end before sending %d recorded message(s), the first: %s\n", n, first)
	}
}

// shown is a message as a divergence names it: its kind, method and parameters, on one line
// and cut short.
func shown(m jsonrpc.Message, kind string, wire []byte) string {
	var s string
	switch kind {
	case notJSON:
		b, _ := json.Marshal(string(wire)) // quoted: no raw newline or control character
		s = "a line that is not JSON: " + string(b)
	case response:
		s = "a response to id " + jsonrpc.IDKey(m.ID)
	default:
		s = m.Method
		if p := canonicalParams(m.Params, false); p != "" {
			s += " " + p
		}
	}
	if len(s) > maxShown {
		s = strings.ToValidUTF8(s[:maxShown], "") + "..."
	}
	// One line, whatever the client put in a method's name: stderr is read line by line.
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return '\uFFFD'
		}
		return r
	}, s)
}

// divergedAnswer is the JSON-RPC error a request the recording lacks is answered with.
type divergedAnswer struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   divergedError   `json:"error"`
}

type divergedError struct {
	Code    int        `json:"code"`
	Message string     `json:"message"`
	Data    divergence `json:"data"`
}

type divergence struct {
	Expected string `json:"expected"`
	Got      string `json:"got"`
}
