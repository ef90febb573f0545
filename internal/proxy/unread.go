package proxy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/toolscore/toolscore/internal/jsonrpc"
	"github.com/toolscore/toolscore/internal/jsonstream"
	"github.com/toolscore/toolscore/internal/transcript"
)

// This file is what the proxy does with a message from a server larger than it reads whole
// (Config.MaxMessage), a stdio line or an HTTP body or event: it passes it on as it comes, byte for byte, neither the schema mode
// nor a fault applied, and records an excerpt of it once it ends.

// unreadNote says in the transcript what became of such a message.
func unreadNote(limit int) string {
	return fmt.Sprintf("a message over %d bytes, the most the proxy reads whole: passed on as it came, unread (no schema mode or fault applied); the transcript keeps its first bytes, size and sha256", limit)
}

// passedUnread finishes the record of a message over limit bytes passed on unread: head, its first bytes, may
// name the id of a request the proxy waits on, which is then answered, its fault not applied.
func (p *Proxy) passedUnread(scope string, head []byte, rec *transcript.Record, note string, limit int) {
	rec.Note = unreadNote(limit)
	var id json.RawMessage
	method := ""
	jsonrpc.Members(head, func(key, v []byte) bool { // the head is cut short: the members before the cut
		switch string(key) {
		case `"id"`:
			id = v
		case `"method"`:
			method, _ = jsonrpc.Unquote(v)
		}
		return true
	})
	if key := scopedKey(scope, id); key != "" && method == "" {
		p.mu.Lock()
		c := p.pending[key]
		delete(p.pending, key)
		p.mu.Unlock()
		if c != nil {
			rec.Note += fmt.Sprintf("; it answers %s (id %s)", c.method, id)
			if c.fires {
				rec.Fault = p.cfg.FaultName
				rec.Note += ", whose fault was not applied"
			}
		}
	}
	if note != "" {
		rec.Note += "; " + note
	}
	p.record(rec)
}

// unreadBody is a JSON body over the cap, passed on as it comes; its record is written once it
// ends, or once the client leaves.
type unreadBody struct {
	r    io.Reader
	body io.Closer
	keep *jsonstream.Keeper
	end  func(k *jsonstream.Keeper, note string) // nil once called
}

func (b *unreadBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	b.keep.Write(p[:n])
	if err != nil && b.end != nil {
		note := ""
		if err != io.EOF {
			note = "reading the server's answer: " + err.Error()
		}
		b.end(b.keep, note)
		b.end = nil
	}
	return n, err
}

func (b *unreadBody) Close() error {
	if b.end != nil {
		b.end(b.keep, "the client was not given all of it")
		b.end = nil
	}
	return b.body.Close()
}

// unreadJSON passes on a JSON body whose first bytes, head, are over the cap.
func (p *Proxy) unreadJSON(ex *exchange, facts *transcript.HTTPFacts, head []byte, body io.ReadCloser) io.ReadCloser {
	rec := &transcript.Record{Time: time.Now(), Dir: transcript.ServerToClient, HTTP: facts}
	return &unreadBody{
		r: io.MultiReader(bytes.NewReader(head), body), body: body,
		keep: jsonstream.NewKeeper(jsonstream.KeepLimit),
		end: func(k *jsonstream.Keeper, note string) {
			rec.Excerpt = k.Excerpt()
			p.passedUnread(ex.scope, []byte(k.Head(jsonstream.KeepLimit)), rec, note, p.maxMessage())
		},
	}
}

// passing is an SSE event over the cap, being passed on as it comes.
type passing struct {
	rec  *transcript.Record
	keep *jsonstream.Keeper // the event's data
	// lineStart says the next piece starts a line, inData that the line being passed is data.
	lineStart, inData, hadData bool
}

// startPassing begins passing on the event whose lines so far (the last one cut short) are
// lines, with data its data so far; it returns them for the client.
func (s *sseRelay) startPassing(lines [][]byte, data []byte, hasData bool, facts *transcript.HTTPFacts, err error) ([][]byte, error) {
	ps := &passing{rec: &transcript.Record{Time: time.Now(), Dir: transcript.ServerToClient, HTTP: facts}, keep: jsonstream.NewKeeper(jsonstream.KeepLimit), hadData: hasData}
	ps.keep.Write(data)
	last := lines[len(lines)-1]
	name, _ := sseField(last)
	ps.inData = name == "data"
	ps.lineStart = bytes.HasSuffix(last, []byte("\n"))
	s.pass = ps
	if err != nil {
		s.endPassing("the server's stream ended in the middle of it")
	} else if ps.lineStart && len(bytes.TrimRight(last, "\r\n")) == 0 {
		s.endPassing("") // the cut line was the blank one that ends the event
	}
	return lines, err
}

// passOn passes on the next piece of the event being passed.
func (s *sseRelay) passOn() ([][]byte, error) {
	ps := s.pass
	b, err := s.lr.piece()
	if len(b) > 0 {
		if ps.lineStart {
			if len(bytes.TrimRight(b, "\r\n")) == 0 {
				s.endPassing("")
				return [][]byte{b}, err
			}
			name, value := sseField(b)
			if ps.inData = name == "data"; ps.inData {
				if ps.hadData {
					ps.keep.Write([]byte("\n"))
				}
				ps.keep.Write(value)
				ps.hadData = true
			}
		} else if ps.inData {
			ps.keep.Write(bytes.TrimRight(b, "\r\n"))
		}
		ps.lineStart = b[len(b)-1] == '\n'
	}
	if err != nil {
		s.endPassing("the server's stream ended in the middle of it")
		return [][]byte{b}, err
	}
	return [][]byte{b}, nil
}

// endPassing records the event passed on unread, once.
func (s *sseRelay) endPassing(note string) {
	ps := s.pass
	if ps == nil {
		return
	}
	s.pass = nil
	ps.rec.Excerpt = ps.keep.Excerpt()
	s.p.passedUnread(s.ex.scope, []byte(ps.keep.Head(jsonstream.KeepLimit)), ps.rec, note, s.p.maxMessage())
}

// passLine passes on a stdio line from the server whose first bytes, head, are over the cap: the
// rest as it comes, piece by piece, to the client (while it reads), and records the line once it
// ends. It returns the stream's error, rerr if the head already met it.
func (p *Proxy) passLine(lr *lineReader, head []byte, rerr error, to io.Writer) error {
	rec := &transcript.Record{Time: time.Now(), Dir: transcript.ServerToClient}
	keep := jsonstream.NewKeeper(jsonstream.KeepLimit)
	pass := func(b []byte) {
		keep.Write(b)
		p.clientMu.Lock()
		defer p.clientMu.Unlock()
		if p.clientErr == nil {
			_, p.clientErr = to.Write(b)
		}
	}
	pass(head)
	b := head
	for rerr == nil && !bytes.HasSuffix(b, []byte("\n")) {
		b, rerr = lr.piece()
		pass(b)
	}
	note := ""
	if rerr != nil && rerr != io.EOF {
		note = "reading the server: " + rerr.Error()
	} else if !bytes.HasSuffix(b, []byte("\n")) {
		note = "the server's stdout ended in the middle of it"
	}
	rec.Excerpt = keep.Excerpt()
	p.passedUnread("", []byte(keep.Head(jsonstream.KeepLimit)), rec, note, p.maxLine())
	return rerr
}
