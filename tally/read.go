package tally

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// ReadResults reads results.json from r; name names it in every error, and a JSON syntax error
// says where in it (line:col). Results that name no scenario, or hold a null cell, are refused:
// every reader of the counts takes each cell as there. Results written by an older toolscore
// read as they were written (an expectation with only held, a cell with no protocol).
func ReadResults(r io.Reader, name string) (*Results, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	var res Results
	if err := json.Unmarshal(data, &res); err != nil {
		var syntax *json.SyntaxError
		if errors.As(err, &syntax) {
			line, col := lineCol(data, syntax.Offset)
			return nil, fmt.Errorf("%s:%d:%d: not valid JSON: %w", name, line, col, err)
		}
		return nil, fmt.Errorf("%s is not a toolscore results.json: %w", name, err)
	}
	if res.Scenario == "" {
		return nil, fmt.Errorf("%s is not a toolscore results.json: it names no scenario", name)
	}
	if err := res.NullCell(); err != nil {
		return nil, fmt.Errorf("%s is not a usable toolscore results.json: %w", name, err)
	}
	return &res, nil
}

// NullCell says which of r's cells is null (JSON's null, not a cell), if one is.
func (r *Results) NullCell() error {
	for i, c := range r.Cells {
		if c == nil {
			return fmt.Errorf("cells[%d] is null, not a cell", i)
		}
	}
	return nil
}

// lineCol turns a json.SyntaxError's offset (the bytes read, the bad one included) into the
// 1-based line and column of the bad byte.
func lineCol(data []byte, offset int64) (line, col int) {
	offset = min(max(offset-1, 0), int64(len(data)))
	before := data[:offset]
	line = bytes.Count(before, []byte("\n")) + 1
	col = len(before) - bytes.LastIndexByte(before, '\n')
	return line, col
}
