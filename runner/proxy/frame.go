package proxy

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// lineReader splits a stdio stream into newline-delimited frames of any size, keeping every
// byte (the newline too) so a frame can be forwarded exactly as it came.
type lineReader struct {
	r   *bufio.Reader
	buf []byte
}

func newLineReader(r io.Reader) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 64<<10)}
}

// next returns the next frame with its newline, or the unterminated rest at EOF. The slice is
// valid until the following call.
func (l *lineReader) next() ([]byte, error) {
	if cap(l.buf) > 1<<20 {
		l.buf = nil // let a one-off huge line go rather than pin its buffer for the session
	}
	l.buf = l.buf[:0]
	for {
		chunk, err := l.r.ReadSlice('\n')
		l.buf = append(l.buf, chunk...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err == io.EOF && len(l.buf) > 0 {
			return l.buf, nil
		}
		return l.buf, err
	}
}

// envelope is the part of a JSON-RPC message the proxy routes by.
type envelope struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// parseEnvelope reads a frame's id and method; ok is false for anything that is not one JSON
// object (garbage, a batch, a blank line), which the proxy forwards untouched.
func parseEnvelope(frame []byte, withParams bool) (env envelope, ok bool) {
	body := bytes.TrimSpace(frame)
	if len(body) == 0 || body[0] != '{' {
		return env, false
	}
	var err error
	if withParams {
		err = json.Unmarshal(body, &env)
	} else {
		var e struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		err = json.Unmarshal(body, &e)
		env.ID, env.Method = e.ID, e.Method
	}
	return env, err == nil
}

// idKey normalises a JSON-RPC id (of any JSON type) into a map key.
func idKey(id json.RawMessage) string {
	if len(id) == 0 || string(id) == "null" {
		return ""
	}
	var b bytes.Buffer
	if json.Compact(&b, id) != nil {
		return string(id)
	}
	return b.String()
}

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
