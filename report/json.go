package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/toolscore/toolscore/record"
	"github.com/toolscore/toolscore/tally"
)

// jsonFormat is results.json itself, and a history.json re-indented.
var jsonFormat = Format{
	Name: "json", Help: record.ResultsFile, File: record.ResultsFile,
	Results: func(w io.Writer, r *tally.Results, _ Inputs) error { return JSON(w, r) },
	History: func(w io.Writer, _ *tally.History, in Inputs) error {
		var b bytes.Buffer
		if err := json.Indent(&b, in.Raw, "", "  "); err != nil {
			return err
		}
		b.WriteString("\n")
		_, err := w.Write(b.Bytes())
		return err
	},
}

// JSON writes results.json, indented so that a diff between two sweeps reads line by line.
// Empty lists and counts are written as [] and {} rather than null, as the schema says, and
// each cell's mixed is what its counts say.
func JSON(w io.Writer, r *tally.Results) error {
	out := *r
	out.Cells = make([]*tally.Cell, 0, len(r.Cells))
	for _, c := range r.Cells {
		if c == nil {
			continue
		}
		if c.Outcome == nil || c.Mixed != c.IsMixed() {
			cc := *c
			cc.Mixed = cc.IsMixed()
			if cc.Outcome == nil {
				cc.Outcome = map[string]int{}
			}
			c = &cc
		}
		out.Cells = append(out.Cells, c)
	}
	return WriteJSON(w, &out)
}

// WriteJSON writes v as indented JSON that is as safe to print as Plain text, and decodes to
// exactly what v holds: encoding/json escapes the C0 controls in strings, and WriteJSON also
// escapes what it leaves (DEL, the C1 controls, bidirectional overrides, and the "[" of a
// legacy "##[" workflow command). None of those can stand outside a string, so each escape
// lands inside one.
func WriteJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	var out strings.Builder
	out.Grow(len(b) + 1)
	done := 0 // b[:done] is in out
	for i := 0; i < len(b); {
		if b[i] < 0x7f && b[i] != '[' {
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if r >= 0x7f && isControl(r) || r == '[' && i >= 2 && b[i-1] == '#' && b[i-2] == '#' {
			out.Write(b[done:i])
			fmt.Fprintf(&out, `\u%04x`, r)
			done = i + n
		}
		i += n
	}
	out.Write(b[done:])
	out.WriteByte('\n')
	_, err = io.WriteString(w, out.String())
	return err
}
