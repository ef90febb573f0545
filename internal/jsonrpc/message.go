package jsonrpc

import (
	"bytes"
	"encoding/json"
)

// Message is the envelope of one JSON-RPC frame, what the proxy routes by and a transcript's
// readers match by: the raw bytes of its top-level id and params (nil where absent) and its
// method.
type Message struct {
	ID     json.RawMessage
	Method string
	Params json.RawMessage
}

// ParseMessage finds the top-level id, method and params of a frame in one pass without
// decoding the rest, so a 64 MiB result costs one scan. ok is false for anything that is not a
// JSON object (garbage, a batch, a blank line), which the proxy forwards untouched.
func ParseMessage(frame []byte) (env Message, ok bool) {
	ok = Members(frame, func(key, v []byte) bool {
		switch string(key) {
		case `"id"`:
			env.ID = v
		case `"method"`:
			var good bool
			env.Method, good = Unquote(v)
			return good
		case `"params"`:
			env.Params = v
		}
		return true
	})
	return env, ok
}

// Members calls fn with the raw key (quotes and all) and raw value of each top-level member of
// the JSON object in b; it is false when b is not an object or fn says stop.
func Members(b []byte, fn func(key, value []byte) bool) bool {
	return memberSpans(b, func(key []byte, start, end int) bool { return fn(key, b[start:end]) })
}

// memberSpans is Members with each value given as its place in b, b[start:end].
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

// Unquote decodes a raw JSON string, cheaply when it has no escapes.
func Unquote(v []byte) (string, bool) {
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

// WithMember returns a copy of the JSON object b whose member at path (each a key, one level
// deeper each) has the raw value v, every other byte kept; ok is false when the path is absent.
func WithMember(b []byte, v []byte, path ...string) (out []byte, ok bool) {
	start, end := -1, -1
	memberSpans(b, func(key []byte, s, e int) bool {
		if k, good := Unquote(key); good && k == path[0] {
			start, end = s, e
		}
		return true
	})
	if start < 0 {
		return nil, false
	}
	if len(path) > 1 {
		if v, ok = WithMember(b[start:end], v, path[1:]...); !ok {
			return nil, false
		}
	}
	out = make([]byte, 0, len(b)-(end-start)+len(v))
	return append(append(append(out, b[:start]...), v...), b[end:]...), true
}

// WithID returns a copy of frame whose top-level id is id, every other byte kept; ok is false
// when frame has no id.
func WithID(frame []byte, id json.RawMessage) ([]byte, bool) {
	return WithMember(frame, id, "id")
}
