package proxy

import (
	"bufio"
	"context"
	"io"
	"strings"

	"github.com/toolscore/toolscore/internal/transcript"
)

// jsonRelay is the body of an application/json answer of unknown length (chunked) as the client
// reads it: the server's JSON values one at a time, each passed on as soon as it is whole (a
// server may keep such a body open and write a message at a time, as a stateless server's
// subscriptions/listen does), the whitespace between them as it comes. Each value is read up to
// the proxy's cap, not the body: one over it, and all that follows, is passed on unread.
type jsonRelay struct {
	ctx   context.Context
	p     *Proxy
	ex    *exchange
	facts *transcript.HTTPFacts // the response's, recorded with its first message; nil after
	body  io.Closer
	br    *bufio.Reader
	out   []byte
	err   error
	// passed is the record of the last message passed on, delivered once the next read comes.
	passed *answered
	// unread is the rest of the body, passed on as it comes past a value over the cap.
	unread io.ReadCloser
	seen   bool // a message was passed on
}

func newJSONRelay(ctx context.Context, p *Proxy, ex *exchange, facts *transcript.HTTPFacts, body io.ReadCloser) *jsonRelay {
	return &jsonRelay{ctx: ctx, p: p, ex: ex, facts: facts, body: body, br: bufio.NewReader(body)}
}

func (j *jsonRelay) Read(b []byte) (int, error) {
	if j.passed != nil && len(j.out) == 0 {
		// The reverse proxy asks for more only once it wrote and flushed what came before.
		j.p.sent(j.passed)
		j.passed = nil
	}
	for len(j.out) == 0 {
		if j.unread != nil {
			return j.unread.Read(b)
		}
		if j.err != nil {
			return 0, j.err
		}
		j.out, j.err = j.next()
	}
	n := copy(b, j.out)
	j.out = j.out[n:]
	return n, nil
}

func (j *jsonRelay) Close() error {
	if j.passed != nil {
		j.p.sent(j.passed)
		j.passed = nil
	}
	if j.unread != nil {
		return j.unread.Close()
	}
	return j.body.Close()
}

// next returns what goes to the client next: the whitespace that came, or the next message
// (the proxy's rewrite of it) with the whitespace already there after it.
func (j *jsonRelay) next() ([]byte, error) {
	c, err := j.br.ReadByte()
	if err != nil {
		if err == io.EOF && !j.seen {
			j.p.record(&transcript.Record{Dir: transcript.Event, Event: "http-response", HTTP: j.takeFacts()})
		}
		return nil, err
	}
	if isJSONSpace(c) {
		return append([]byte{c}, j.bufferedSpace()...), nil
	}
	msg := []byte{c}
	if c != '{' && c != '[' {
		// Not a message a stream is made of: the rest of the body, up to the cap, is one.
		rest, err := io.ReadAll(io.LimitReader(j.br, int64(j.p.maxMessage())))
		msg = append(msg, rest...)
		if err == nil && len(msg) > j.p.maxMessage() {
			j.passUnread(msg)
			return nil, nil
		}
		out, rerr := j.message(msg)
		if rerr != nil {
			return nil, rerr
		}
		if err == nil {
			err = io.EOF
		}
		return out, err
	}
	sc := valueScanner{depth: 1}
	for sc.depth > 0 {
		if len(msg) > j.p.maxMessage() {
			j.passUnread(msg)
			return nil, nil
		}
		if _, err := j.br.Peek(1); err != nil {
			// The body ended in the middle of a value: passed on as it came.
			out, rerr := j.message(msg)
			if rerr != nil {
				return nil, rerr
			}
			return out, err
		}
		// What is buffered, up to the value's end and the cap: scanned a buffer at a time.
		buf, _ := j.br.Peek(min(j.br.Buffered(), j.p.maxMessage()+1-len(msg)))
		n := sc.scan(buf)
		msg = append(msg, buf[:n]...)
		_, _ = j.br.Discard(n)
	}
	out, err := j.message(msg)
	if err != nil {
		return nil, err
	}
	return append(out, j.bufferedSpace()...), nil
}

// valueScanner finds the end of a JSON object or array, a buffer at a time.
type valueScanner struct {
	depth             int
	inString, escaped bool
}

// scan reads b up to the end of the value, and says how many bytes of b it took.
func (v *valueScanner) scan(b []byte) int {
	for i, c := range b {
		switch {
		case v.inString && v.escaped:
			v.escaped = false
		case v.inString && c == '\\':
			v.escaped = true
		case v.inString:
			v.inString = c != '"'
		case c == '"':
			v.inString = true
		case c == '{' || c == '[':
			v.depth++
		case c == '}' || c == ']':
			if v.depth--; v.depth == 0 {
				return i + 1
			}
		}
	}
	return len(b)
}

// message records one message of the body and returns the proxy's rewrite of it.
func (j *jsonRelay) message(msg []byte) ([]byte, error) {
	j.seen = true
	out, rec := j.p.answer(j.ctx, j.ex.scope, msg)
	out = sameEnding(msg, out, rec.Record)
	rec.HTTP = j.takeFacts()
	if j.ex.fault != nil && j.ex.fault.Cut {
		rec.Note = strings.TrimPrefix(rec.Note+"; the server answered in a JSON body: there is no stream to cut, sent as it is", "; ")
	}
	j.p.holdAnswer(j.ctx, rec)
	j.p.record(rec.Record)
	j.passed = rec
	if err := j.ctx.Err(); err != nil {
		return nil, err // the client left while a latency held the answer
	}
	return out, nil
}

// passUnread passes on a value whose first bytes, head, are over the cap, and the rest of the body
// with it, as it comes.
func (j *jsonRelay) passUnread(head []byte) {
	j.seen = true
	j.unread = j.p.unreadJSON(j.ex, j.takeFacts(), head, struct {
		io.Reader
		io.Closer
	}{j.br, j.body})
}

// takeFacts are the HTTP facts of the next record: the response's status and headers on the first.
func (j *jsonRelay) takeFacts() *transcript.HTTPFacts {
	if f := j.facts; f != nil {
		j.facts = nil
		return f
	}
	return &transcript.HTTPFacts{Method: j.ex.method, Path: j.ex.path}
}

// bufferedSpace takes the whitespace already read after a message (its newline, as a server
// writes them together), without waiting for more.
func (j *jsonRelay) bufferedSpace() []byte {
	var sp []byte
	for j.br.Buffered() > 0 {
		b, _ := j.br.Peek(1)
		if !isJSONSpace(b[0]) {
			break
		}
		sp = append(sp, b[0])
		_, _ = j.br.ReadByte()
	}
	return sp
}

func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
