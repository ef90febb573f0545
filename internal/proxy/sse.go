package proxy

import (
	"bytes"
	"context"
	"io"
	"slices"
	"time"

	"github.com/toolscore/toolscore/internal/jsonrpc"
	"github.com/toolscore/toolscore/internal/transcript"
)

// sseRelay is the body of an SSE answer as the client reads it: the server's events one at a
// time, each passed on as soon as it is whole, the ones carrying a message the proxy rewrites
// rebuilt around the new message with their id, event name and retry kept.
type sseRelay struct {
	ctx   context.Context
	p     *Proxy
	ex    *exchange
	facts *transcript.HTTPFacts // the response's, recorded with its first event
	body  io.Closer
	lr    *lineReader
	out   [][]byte // the bytes of the event being passed on, line by line, not joined: no copy
	err   error
	// idSent says an event with an id went to the client, which can resume after it.
	idSent bool
	// passed is the record of the last message passed on, delivered once the next read comes.
	passed *answered
	// pass is the event being passed on unread, over the proxy's cap; nil otherwise.
	pass *passing
}

func (s *sseRelay) Read(b []byte) (int, error) {
	if s.passed != nil && len(s.out) == 0 {
		// The reverse proxy asks for more only once it wrote and flushed what came before.
		s.p.sent(s.passed)
		s.passed = nil
	}
	if s.ex.notice != nil {
		s.out = [][]byte{s.notice()}
	}
	for len(s.out) == 0 {
		if s.err != nil {
			return 0, s.err
		}
		if s.pass != nil {
			s.out, s.err = s.passOn()
		} else {
			s.out, s.err = s.event()
		}
	}
	n := copy(b, s.out[0])
	if s.out[0] = s.out[0][n:]; len(s.out[0]) == 0 {
		s.out = s.out[1:]
	}
	return n, nil
}

func (s *sseRelay) Close() error {
	s.endPassing("the client was not given all of it")
	if s.passed != nil {
		s.p.sent(s.passed)
		s.passed = nil
	}
	return s.body.Close()
}

// event reads the next event whole and returns the bytes that go to the client for it; of an
// event over the proxy's cap, the bytes so far, the rest passed on by passOn.
func (s *sseRelay) event() ([][]byte, error) {
	var lines [][]byte
	var data []byte
	var id string
	hasData := false
	size := 0
	for {
		line, cut, err := s.lr.nextUpTo(s.p.maxMessage() - size)
		size += len(line)
		if len(line) > 0 {
			lines = append(lines, line)
			name, value := sseField(line)
			switch name {
			case "":
			case "data":
				switch {
				case !hasData:
					data = slices.Clip(value) // one data line, the usual case, is not copied
				default:
					data = append(append(data, '\n'), value...)
				}
				hasData = true
			case "id":
				id = string(value)
			}
		}
		if cut {
			return s.startPassing(lines, data, hasData, s.eventFacts(id), err)
		}
		if err != nil {
			if len(lines) > 0 {
				s.recordEnd(id, "the server's stream ended in the middle of an event, passed as it is")
			} else {
				s.recordEnd("", "")
			}
			return lines, err
		}
		if len(bytes.TrimRight(line, "\r\n")) == 0 {
			break // the blank line that ends an event
		}
	}
	facts := s.eventFacts(id)
	if cut := s.ex.fault; cut != nil && cut.Cut && (id != "" && !cut.EventIDFirst || s.carriesCall(data)) {
		note := "the proxy ended the stream before this event, which carries the call's response or an id to resume from: the client never got it"
		if cut.EventIDFirst && !s.idSent {
			note += "; no event with an id went before it, so the client cannot resume"
		}
		rec := &transcript.Record{Time: time.Now(), Dir: transcript.Event, Event: "sse-cut", Fault: s.p.cfg.FaultName, Note: note, HTTP: facts}
		if hasData {
			// What the server sent, though the client never got it: the cell cache's check
			// replays the server and compares its answer with this one.
			rec.Original = data
		}
		s.p.record(rec)
		return nil, io.EOF
	}
	if id != "" {
		s.idSent = true
	}
	if !hasData || len(bytes.TrimSpace(data)) == 0 {
		s.p.record(&transcript.Record{Time: time.Now(), Dir: transcript.Event, Event: "sse-event", HTTP: facts})
		return lines, nil
	}
	out, rec := s.p.answer(s.ctx, s.ex.scope, data)
	out = sameEnding(data, out, rec.Record)
	rec.HTTP = facts
	s.p.holdAnswer(s.ctx, rec)
	s.p.record(rec.Record)
	s.passed = rec
	if err := s.ctx.Err(); err != nil {
		return nil, err // the client left while a latency held the answer
	}
	if bytes.Equal(out, data) {
		return lines, nil
	}
	return [][]byte{rebuildEvent(lines, out)}, nil
}

// eventFacts are the HTTP facts of the event with id, the response's on the first.
func (s *sseRelay) eventFacts(id string) *transcript.HTTPFacts {
	facts := &transcript.HTTPFacts{Method: s.ex.method, Path: s.ex.path, EventID: id}
	if s.facts != nil {
		facts.Status, facts.Header = s.facts.Status, s.facts.Header
		s.facts = nil
	}
	return facts
}

// notice passes on the proxy's own message that goes before the answer, as an event of its own,
// and records it.
func (s *sseRelay) notice() []byte {
	msg, rec := bytes.TrimSuffix(s.ex.notice, []byte("\n")), s.ex.noticeRec
	s.ex.notice = nil
	rec.Wire = msg
	rec.HTTP = &transcript.HTTPFacts{Method: s.ex.method, Path: s.ex.path}
	if s.facts != nil {
		rec.HTTP.Status, rec.HTTP.Header = s.facts.Status, s.facts.Header
		s.facts = nil
	}
	s.p.record(rec)
	s.ex.drift.announce()
	return []byte("event: message\ndata: " + string(msg) + "\n\n")
}

// carriesCall says the event's data is the response to the request of this exchange.
func (s *sseRelay) carriesCall(data []byte) bool {
	env, ok := jsonrpc.ParseMessage(data)
	return ok && env.Method == "" && s.ex.call != "" && idKey(env.ID) == s.ex.call
}

// recordEnd records the end of the server's stream, once, with the response's facts if no event
// carried them.
func (s *sseRelay) recordEnd(id, note string) {
	facts := &transcript.HTTPFacts{Method: s.ex.method, Path: s.ex.path, EventID: id}
	if s.facts != nil {
		facts.Status, facts.Header = s.facts.Status, s.facts.Header
		s.facts = nil
	}
	s.p.record(&transcript.Record{Dir: transcript.Event, Event: "sse-end", Note: note, HTTP: facts})
}

// sseField splits one line of an event into its field's name and value; a comment or the blank
// line has no name.
func sseField(line []byte) (name string, value []byte) {
	line = bytes.TrimRight(line, "\r\n")
	if len(line) == 0 || line[0] == ':' {
		return "", nil
	}
	n, v, _ := bytes.Cut(line, []byte(":"))
	return string(n), bytes.TrimPrefix(v, []byte(" "))
}

// rebuildEvent puts msg in the place of an event's data lines, keeping every other line as it
// came and the server's line ending.
func rebuildEvent(lines [][]byte, msg []byte) []byte {
	var b bytes.Buffer
	b.Grow(len(msg) + 64)
	wrote := false
	for _, line := range lines {
		if name, _ := sseField(line); name != "data" {
			b.Write(line)
			continue
		}
		if wrote {
			continue
		}
		wrote = true
		eol := line[len(bytes.TrimRight(line, "\r\n")):]
		for _, part := range bytes.Split(bytes.TrimRight(msg, "\n"), []byte("\n")) {
			b.WriteString("data: ")
			b.Write(part)
			b.Write(eol)
		}
	}
	return b.Bytes()
}
