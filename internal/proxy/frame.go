package proxy

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"

	"github.com/toolscore/toolscore/internal/jsonrpc"
)

// lineReader splits a stdio stream into newline-delimited frames of any size, keeping every
// byte (the newline too) so a frame can be forwarded exactly as it came.
type lineReader struct {
	r *bufio.Reader
}

func newLineReader(r io.Reader) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 64<<10)}
}

// next returns the next frame with its newline, or the unterminated rest at EOF. Each frame is
// a fresh slice, so the tee may keep it after the proxy has moved on.
func (l *lineReader) next() ([]byte, error) {
	chunk, err := l.r.ReadSlice('\n')
	if !errors.Is(err, bufio.ErrBufferFull) {
		return finish(bytes.Clone(chunk), err)
	}
	// A long line: keep the chunks and join them once at the exact size, rather than growing
	// one slice step by step, which copies a 64 MiB line some 25 times.
	var parts [][]byte
	total := 0
	for errors.Is(err, bufio.ErrBufferFull) {
		parts = append(parts, bytes.Clone(chunk))
		total += len(chunk)
		chunk, err = l.r.ReadSlice('\n')
	}
	frame := make([]byte, 0, total+len(chunk))
	for i, p := range parts {
		frame = append(frame, p...)
		parts[i] = nil
	}
	return finish(append(frame, chunk...), err)
}

// nextUpTo is next for a line of at most limit bytes; of a longer one it returns the first
// limit bytes or a little more, with cut true, and piece reads the rest.
func (l *lineReader) nextUpTo(limit int) (line []byte, cut bool, err error) {
	chunk, err := l.r.ReadSlice('\n')
	var parts [][]byte
	total := 0
	for errors.Is(err, bufio.ErrBufferFull) && total+len(chunk) <= limit {
		parts = append(parts, bytes.Clone(chunk))
		total += len(chunk)
		chunk, err = l.r.ReadSlice('\n')
	}
	long := errors.Is(err, bufio.ErrBufferFull)
	if long {
		err = nil
	}
	line = make([]byte, 0, total+len(chunk))
	for _, p := range parts {
		line = append(line, p...)
	}
	line, err = finish(append(line, chunk...), err)
	return line, long || len(line) > limit, err
}

// piece returns the stream's next bytes up to a newline (included), no more than the reader's
// buffer: a long line comes in several pieces.
func (l *lineReader) piece() ([]byte, error) {
	chunk, err := l.r.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		err = nil
	}
	return finish(bytes.Clone(chunk), err)
}

func finish(frame []byte, err error) ([]byte, error) {
	if err == io.EOF && len(frame) > 0 {
		return frame, nil
	}
	if len(frame) == 0 {
		frame = nil
	}
	return frame, err
}

// envelope is the part of a JSON-RPC message the proxy routes by: raw bytes of the top-level
// id, method and params, nil where absent.
type envelope struct {
	ID     json.RawMessage
	Method string
	Params json.RawMessage
}

// parseEnvelope finds the top-level id, method and params of a frame in one pass without
// decoding the rest, so a 64 MiB result costs one scan. ok is false for anything that is not a
// JSON object (garbage, a batch, a blank line), which the proxy forwards untouched.
func parseEnvelope(frame []byte) (env envelope, ok bool) {
	ok = members(frame, func(key, v []byte) bool {
		switch string(key) {
		case `"id"`:
			env.ID = v
		case `"method"`:
			var good bool
			env.Method, good = jsonString(v)
			return good
		case `"params"`:
			env.Params = v
		}
		return true
	})
	return env, ok
}

// members calls fn with the raw key (quotes and all) and raw value of each top-level member of
// the JSON object in b; it is false when b is not an object or fn says stop.
func members(b []byte, fn func(key, value []byte) bool) bool {
	return memberSpans(b, func(key []byte, start, end int) bool { return fn(key, b[start:end]) })
}

// memberSpans is members with each value given as its place in b, b[start:end].
func memberSpans(b []byte, fn func(key []byte, start, end int) bool) bool {
	s := scanner{b: b}
	s.space()
	if !s.eat('{') {
		return false
	}
	s.space()
	if s.eat('}') {
		return true
	}
	for {
		s.space()
		kstart := s.i
		if !s.str() {
			return false
		}
		key := b[kstart:s.i]
		s.space()
		if !s.eat(':') {
			return false
		}
		s.space()
		vstart := s.i
		if !s.value() || !fn(key, vstart, s.i) {
			return false
		}
		s.space()
		if s.eat('}') {
			return true
		}
		if !s.eat(',') {
			return false
		}
	}
}

// jsonString decodes a raw JSON string, cheaply when it has no escapes.
func jsonString(v []byte) (string, bool) {
	if len(v) >= 2 && v[0] == '"' && bytes.IndexByte(v, '\\') < 0 {
		return string(v[1 : len(v)-1]), true
	}
	var out string
	err := json.Unmarshal(v, &out)
	return out, err == nil
}

// scanner skips over JSON values without decoding them; it checks structure, not every detail
// (json.Unmarshal does that later wherever a value is actually used).
type scanner struct {
	b []byte
	i int
}

func (s *scanner) space() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *scanner) eat(c byte) bool {
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

func (s *scanner) str() bool {
	if !s.eat('"') {
		return false
	}
	for s.i < len(s.b) {
		j := bytes.IndexAny(s.b[s.i:], "\"\\")
		if j < 0 {
			return false
		}
		s.i += j
		if s.b[s.i] == '"' {
			s.i++
			return true
		}
		s.i += 2 // a backslash and the character it escapes
	}
	return false
}

func (s *scanner) value() bool {
	if s.i >= len(s.b) {
		return false
	}
	switch c := s.b[s.i]; c {
	case '"':
		return s.str()
	case '{', '[':
		depth := 0
		for s.i < len(s.b) {
			switch s.b[s.i] {
			case '"':
				if !s.str() {
					return false
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					s.i++
					return true
				}
			}
			s.i++
		}
		return false
	default:
		start := s.i
		for s.i < len(s.b) {
			switch s.b[s.i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return s.i > start
			}
			s.i++
		}
		return s.i > start
	}
}

// withMember returns a copy of the JSON object b whose member at path (each a key, one level
// deeper each) has the raw value v, every other byte kept; ok is false when the path is absent.
func withMember(b []byte, v []byte, path ...string) (out []byte, ok bool) {
	start, end := -1, -1
	memberSpans(b, func(key []byte, s, e int) bool {
		if k, good := jsonString(key); good && k == path[0] {
			start, end = s, e
		}
		return true
	})
	if start < 0 {
		return nil, false
	}
	if len(path) > 1 {
		if v, ok = withMember(b[start:end], v, path[1:]...); !ok {
			return nil, false
		}
	}
	out = make([]byte, 0, len(b)-(end-start)+len(v))
	return append(append(append(out, b[:start]...), v...), b[end:]...), true
}

// idKey is a JSON-RPC id as a map key, by value (see jsonrpc.IDKey).
func idKey(id json.RawMessage) string { return jsonrpc.IDKey(id) }

// marshal encodes v without HTML escaping, so text from the server keeps its exact characters.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil // Encode ends the line with the newline the frame needs
}
