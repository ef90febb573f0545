package fault

import (
	"context"
	"fmt"
	"strconv"
)

// Oversize grows the result's first text block to bytes bytes: the server's text first, then
// lines of a statement that carry no value of the result ("line 000001 of the statement: no
// entry"), and keeps structuredContent as the server sent it, so the data is still whole there.
// Registered at three sizes: oversize-25k and oversize-100k, about 25,000 and 100,000 tokens
// of text at four bytes a token (25,000 is the limit Claude Code sets on a tool's output by
// default, MAX_MCP_OUTPUT_TOKENS), and oversize-1mb, one MiB. No revision (2025-11-25 and
// before) bounds a result's size; a client that cuts or refuses it is seen doing so. The grown
// text is not listed as introduced (each run's record would carry it), the note says how it
// grew. A result without a text block gets one of that size at the end of its content.
type Oversize struct {
	Bytes int `json:"bytes"`
}

func init() {
	Register("oversize-25k", &Oversize{Bytes: 100_000})
	Register("oversize-100k", &Oversize{Bytes: 400_000})
	Register("oversize-1mb", &Oversize{Bytes: 1 << 20})
}

func (f *Oversize) check() *OptionError {
	if f.Bytes < 1 || f.Bytes > 256<<20 {
		return &OptionError{Option: "bytes", Err: fmt.Errorf("want a size from 1 to %d bytes, got %d", 256<<20, f.Bytes)}
	}
	return nil
}

func (f *Oversize) Apply(_ context.Context, c *Call) (*Effect, error) {
	i, text := textBlock(c.Result)
	if len(text) >= f.Bytes {
		return &Effect{Note: fmt.Sprintf("the result's text is already %d bytes, at least the %d asked: the server's answer was sent", len(text), f.Bytes)}, nil
	}
	grown := pad(text, f.Bytes)
	if i < 0 {
		r := clone(c.Result)
		content, _ := r["content"].([]any)
		r["content"] = append(content, map[string]any{"type": "text", "text": grown})
		return &Effect{Result: r, Note: fmt.Sprintf("the result had no text block: one of %d bytes was added at the end of its content", f.Bytes)}, nil
	}
	note := fmt.Sprintf("the text of content[%d] grew from %d to %d bytes: the server's text, then lines that carry no value", i, len(text), f.Bytes)
	return &Effect{Result: withText(c.Result, i, grown), Note: note}, nil
}

// pad writes text and then numbered statement lines up to exactly n bytes (the last line cut).
func pad(text string, n int) string {
	b := make([]byte, 0, n+64)
	b = append(b, text...)
	for line := 1; len(b) < n; line++ {
		b = append(b, "\nline "...)
		b = appendPadded(b, line)
		b = append(b, " of the statement: no entry"...)
	}
	return string(b[:n])
}

// appendPadded appends line as six digits or more.
func appendPadded(b []byte, line int) []byte {
	d := strconv.Itoa(line)
	for range 6 - len(d) {
		b = append(b, '0')
	}
	return append(b, d...)
}
