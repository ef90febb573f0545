package record

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// A Record is a view of a runs.jsonl line: the runner's whole record, or the part of it a
// reader needs. Whole says the line read holds what the reader needs (the counts need an
// outcome; a reader of the evidence takes what there is).
type Record[T any] interface {
	*T
	Whole() bool
}

// Read reads the records of runs.jsonl from r, a line at a time whatever its size, calling add
// for each with its line number, and returns the length of the part that holds whole records.
// A last line without its newline that is not a whole record is what a sweep killed while
// writing it leaves: it is not read, and good ends before it. Any other line that is not a
// whole record is an error naming name and its line.
func Read[T any, P Record[T]](r io.Reader, name string, add func(line int, rec P) error) (good int64, err error) {
	br := bufio.NewReaderSize(r, 64<<10)
	for line := 1; ; line++ {
		b, err := br.ReadBytes('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return good, fmt.Errorf("reading %s: %w", name, err)
		}
		last := errors.Is(err, io.EOF)
		if len(bytes.TrimSpace(b)) > 0 {
			rec := P(new(T))
			if uerr := json.Unmarshal(b, rec); uerr != nil || !rec.Whole() {
				if last && b[len(b)-1] != '\n' {
					return good, nil // a record cut short by a kill
				}
				if uerr == nil {
					uerr = errors.New("it has no outcome")
				}
				return good, fmt.Errorf("%s:%d: not a run's record: %w", name, line, uerr)
			}
			if err := add(line, rec); err != nil {
				return good, err
			}
		}
		good += int64(len(b))
		if last {
			return good, nil
		}
	}
}

// Line encodes a run's record as its line of runs.jsonl, newline included: valid UTF-8 JSON
// whatever the server sent. What a library returned is kept as it returned it, bytes that are
// not UTF-8 included, and each such byte is written as U+FFFD, as encoding/json writes a
// string's (the transcript keeps the exact bytes).
func Line(rec any) ([]byte, error) {
	line, err := json.Marshal(rec)
	if err != nil {
		return nil, err
	}
	if utf8.Valid(line) {
		return append(line, '\n'), nil
	}
	out := make([]byte, 0, len(line)+64)
	for len(line) > 0 {
		r, n := utf8.DecodeRune(line)
		if r == utf8.RuneError && n == 1 {
			out = append(out, "\ufffd"...) // only a JSON string can hold such a byte
		} else {
			out = append(out, line[:n]...)
		}
		line = line[n:]
	}
	return append(out, '\n'), nil
}
