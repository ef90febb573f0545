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
