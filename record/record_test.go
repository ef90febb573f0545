package record_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/toolscore/toolscore/record"
)

// testdata/runs-729dd7b.jsonl is the runs.jsonl of a real sweep written by toolscore at 729dd7b,
// before the record had a package of its own (the same as cmd/toolscore's
// testdata/sweep-729dd7b/runs.jsonl).
const oldRuns = "testdata/runs-729dd7b.jsonl"

// TestRunsReadBackTheSame: every record of an old runs.jsonl reads into a Run and writes back
// byte for byte, each in its cell (the one record every reader of the file reads: the runner,
// the counts and the report).
func TestRunsReadBackTheSame(t *testing.T) {
	old, err := os.ReadFile(oldRuns)
	if err != nil {
		t.Fatal(err)
	}
	var again bytes.Buffer
	good, err := record.ReadRuns(bytes.NewReader(old), oldRuns, func(_ int, r *record.Run) error {
		line, err := record.Line(r)
		again.Write(line)
		return err
	})
	if err != nil || good != int64(len(old)) {
		t.Fatalf("read %d of %d bytes: %v", good, len(old), err)
	}
	if again.String() != string(old) {
		t.Errorf("written back:\n%s\nwant:\n%s", again.String(), old)
	}

	var keys []string
	if _, err := record.ReadRuns(bytes.NewReader(old), oldRuns, func(_ int, r *record.Run) error {
		keys = append(keys, r.Key())
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	want := "raw|clean|hidden|stdio|2025-11-25 go-sdk/call|clean|hidden|stdio|2025-11-25 raw|error|hidden|stdio|2025-11-25 " +
		"go-sdk/call|error|hidden|stdio|2025-11-25 raw|truncate|hidden|stdio|2025-11-25 go-sdk/call|truncate|hidden|stdio|2025-11-25"
	if got := strings.Join(keys, " "); got != want {
		t.Errorf("the records read are of the cells %s, want %s", got, want)
	}
}

// TestKey: the protocol is in the key only when it is not as-is (an unset one is as-is), the
// tool only when there is one, so keys from before those axes name the same cells.
func TestKey(t *testing.T) {
	for _, tc := range []struct {
		cell record.Cell
		want string
	}{
		{record.Cell{Client: "go-sdk/call", Fault: "corrupt", Schema: "hidden", Transport: "stdio"}, "go-sdk/call|corrupt|hidden|stdio"},
		{record.Cell{Client: "raw", Fault: "clean", Schema: "published", Protocol: "as-is", Transport: "http"}, "raw|clean|published|http"},
		{record.Cell{Client: "raw", Fault: "clean", Schema: "hidden", Protocol: "2025-11-25", Transport: "stdio"}, "raw|clean|hidden|stdio|2025-11-25"},
		{record.Cell{Client: "raw", Fault: "clean", Schema: "hidden", Protocol: "as-is", Transport: "stdio", Tool: "get_rate"}, "raw|clean|hidden|stdio|tool:get_rate"},
	} {
		if got := tc.cell.Key(); got != tc.want {
			t.Errorf("%+v.Key() = %q, want %q", tc.cell, got, tc.want)
		}
	}
}

// TestRead: a last line cut short by a kill is left out of good and not read; a line in the
// middle that is not a whole record is an error naming its line; add's error stops the read.
func TestRead(t *testing.T) {
	one := `{"client":"raw","fault":"clean","schema":"hidden","protocol":"as-is","transport":"stdio","run":1,"outcome":"passed","ms":1,"tee":"t"}` + "\n"
	count := func(data string) (int, int64, error) {
		n := 0
		good, err := record.ReadRuns(strings.NewReader(data), "runs.jsonl", func(int, *record.Run) error { n++; return nil })
		return n, good, err
	}
	if n, good, err := count(one + one[:40]); n != 1 || good != int64(len(one)) || err != nil {
		t.Errorf("cut short: %d records, good %d, %v; want 1, %d, nil", n, good, err, len(one))
	}
	if n, good, err := count(one + one); n != 2 || good != int64(2*len(one)) || err != nil {
		t.Errorf("two whole: %d records, good %d, %v", n, good, err)
	}
	if _, _, err := count(one + `{"run":2}` + "\n" + one); err == nil || err.Error() != "runs.jsonl:2: not a run's record: it has no outcome" {
		t.Errorf("a record without an outcome in the middle: %v", err)
	}
	stop := errors.New("stop")
	if _, err := record.ReadRuns(strings.NewReader(one+one), "runs.jsonl", func(int, *record.Run) error { return stop }); err != stop {
		t.Errorf("add's error: %v, want it returned", err)
	}
}

// TestLine: a record is one line of valid UTF-8 JSON; a byte that is not UTF-8 (kept as the
// library returned it) is written as U+FFFD, as encoding/json writes one in a string.
func TestLine(t *testing.T) {
	line, err := record.Line(map[string]any{"returned": json.RawMessage("\"a\xffb\"")})
	if err != nil || string(line) != "{\"returned\":\"a\ufffdb\"}\n" || !utf8.Valid(line) {
		t.Errorf("Line = %q, %v", line, err)
	}
	if _, err := record.Line(func() {}); err == nil {
		t.Error("a value JSON cannot hold was written")
	}
}

// TestSlug keeps the readable names the run directories always had, takes no character that
// breaks a PATH or a shell word, and never gives two keys one directory.
func TestSlug(t *testing.T) {
	same := map[string]string{
		"go-sdk/list-then-call|clean|hidden|stdio":            "go-sdk_list-then-call__clean__hidden__stdio",
		"raw|error|hidden|stdio|2025-11-25":                   "raw__error__hidden__stdio__2025-11-25",
		"ts-sdk/call@1.11.4|type-swap|published|http":         "ts-sdk_call_at_1.11.4__type-swap__published__http",
		"claude-code|corrupt-plausible|published|stdio|as-is": "claude-code__corrupt-plausible__published__stdio__as-is",
	}
	for key, want := range same {
		if got := record.Slug(key); got != want {
			t.Errorf("Slug(%q) = %q, want %q", key, got, want)
		}
	}
	keys := []string{
		"go-sdk/call|clean|hidden|stdio", "go-sdk_call|clean|hidden|stdio", // a defined client named like a built-in's slug
		"raw|clean|hidden|stdio|tool:get-sum", "raw|clean|hidden|stdio|tool:get_sum", "raw|clean|hidden|stdio|tool:get sum",
		"raw|clean|hidden|stdio|tool:" + strings.Repeat("x", 300), "raw|clean|hidden|stdio|tool:" + strings.Repeat("x", 301),
		"x@1|clean|hidden|stdio", "x_at_1|clean|hidden|stdio", "claude-code:opus|clean|hidden|stdio", ".hidden|clean|hidden|stdio",
	}
	seen := map[string]string{}
	for _, k := range keys {
		s := record.Slug(k)
		if first, dup := seen[s]; dup {
			t.Errorf("Slug(%q) = Slug(%q) = %q", k, first, s)
		}
		seen[s] = k
		if strings.ContainsAny(s, ":/ |@\\") || strings.HasPrefix(s, ".") || len(s) > 200 {
			t.Errorf("Slug(%q) = %q: not a safe path element", k, s)
		}
	}
}
