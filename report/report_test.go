package report

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/toolscore/toolscore/record"
	"github.com/toolscore/toolscore/tally"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// golden compares got with testdata/name, or rewrites the file under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v; run go test ./report/ -update to create it", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (run go test ./report/ -update to accept):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

var t0 = time.Date(2026, 3, 31, 12, 0, 0, 0, time.UTC)

// mkCell builds a cell from "outcome:count" pairs.
func mkCell(client, fault, schema string, planned int, counts ...string) *tally.Cell {
	c := &tally.Cell{Cell: record.Cell{Client: client, Fault: fault, Schema: schema, Protocol: "as-is", Transport: "stdio"}, Planned: planned, Outcome: map[string]int{}}
	for _, oc := range counts {
		o, n, _ := strings.Cut(oc, ":")
		k, _ := strconv.Atoi(n)
		c.Outcome[o] += k
		c.Runs += k
	}
	return c
}

// sample is a small ledger sweep: two schema modes, four faults, three clients, one
// unmet expectation and one client that could not run.
func sample() *tally.Results {
	r := &tally.Results{
		Scenario: "ledger balance", Toolscore: "v0.1.0",
		Backend: "docker", BackendWhy: "docker is on PATH",
		Started: t0, Finished: t0.Add(62 * time.Second),
	}
	for _, mode := range []string{"hidden", "published"} {
		for _, f := range []string{"clean", "corrupt", "type-swap", "latency"} {
			for _, client := range []string{"raw", "go-sdk/call@1.8.0", "ts-sdk/call"} {
				var c *tally.Cell
				switch {
				case f == "latency" && client == "ts-sdk/call":
					c = mkCell(client, f, mode, 3, "passed:2", "hung:1")
				case mode == "published" && f == "type-swap" && client != "raw":
					c = mkCell(client, f, mode, 3, "threw:3")
					c.Examples = map[string]tally.Example{"threw": {Run: 2, Evidence: "validating structuredContent: balance_minor: want integer, got string", Tee: "tee/" + client + ".jsonl"}}
				default:
					c = mkCell(client, f, mode, 3, "passed:3")
				}
				r.Cells = append(r.Cells, c)
			}
		}
	}
	r.Expectations = []tally.Expectation{
		{Line: 21, Fault: "clean", Outcome: "passed", Status: tally.Held, Held: true},
		{Line: 23, Client: "go-sdk/call", Fault: "type-swap", Outcome: "passed", Status: tally.Unmet,
			Misses: []string{"go-sdk/call@1.8.0|type-swap|published|stdio: threw 3/3"}},
		{Line: 25, Client: "ts-sdk/call", Fault: "error", Outcome: "threw", Status: tally.Unchecked,
			Unchecked: "it selects no cell of this sweep (the matrix was narrowed by clients, faults or schema modes)"},
	}
	r.Unavailable = []tally.Unavailable{{Client: "claude-code", Reason: "no ANTHROPIC_API_KEY in the environment"}}
	return r
}

func TestSchemaChanges(t *testing.T) {
	got := SchemaChanges(sample())
	want := []Change{
		{Client: "go-sdk/call@1.8.0", Fault: "type-swap", Protocol: "as-is", Transport: "stdio", Hidden: "passed 3/3", Published: "threw 3/3"},
		{Client: "ts-sdk/call", Fault: "type-swap", Protocol: "as-is", Transport: "stdio", Hidden: "passed 3/3", Published: "threw 3/3"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("SchemaChanges:\n%+v\nwant:\n%+v", got, want)
	}
}

func TestSchemaChangesCases(t *testing.T) {
	for _, tc := range []struct {
		name          string
		hidden, publd *tally.Cell
		changed       bool
	}{
		{"same", mkCell("raw", "clean", "hidden", 3, "passed:3"), mkCell("raw", "clean", "published", 3, "passed:3"), false},
		{"other outcome", mkCell("raw", "clean", "hidden", 3, "passed:3"), mkCell("raw", "clean", "published", 3, "threw:3"), true},
		{"other split", mkCell("raw", "clean", "hidden", 3, "passed:2", "hung:1"), mkCell("raw", "clean", "published", 3, "passed:1", "hung:2"), true},
		{"same shares, fewer runs", mkCell("raw", "clean", "hidden", 4, "passed:2", "hung:2"), mkCell("raw", "clean", "published", 4, "passed:1", "hung:1"), false},
		{"one more outcome", mkCell("raw", "clean", "hidden", 3, "passed:3"), mkCell("raw", "clean", "published", 4, "passed:3", "threw:1"), true},
		{"published not run", mkCell("raw", "clean", "hidden", 3, "passed:3"), mkCell("raw", "clean", "published", 3), false},
		{"other client", mkCell("raw", "clean", "hidden", 3, "passed:3"), mkCell("go-sdk", "clean", "published", 3, "threw:3"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := SchemaChanges(&tally.Results{Cells: []*tally.Cell{tc.hidden, tc.publd}})
			if (len(got) == 1) != tc.changed || len(got) > 1 {
				t.Errorf("SchemaChanges = %+v, want changed %v", got, tc.changed)
			}
		})
	}
}

func TestTablesOrder(t *testing.T) {
	r := &tally.Results{Cells: []*tally.Cell{
		mkCell("b", "corrupt", "published", 1, "passed:1"),
		mkCell("a", "clean", "hidden", 1, "passed:1"),
		mkCell("b", "clean", "published", 1, "passed:1"),
		mkCell("c", "corrupt", "hidden", 1, "passed:1"),
		mkCell("a", "corrupt", "published", 1, "passed:1"),
	}}
	var got []string
	for _, tb := range tables(r) {
		got = append(got, tb.Schema+": "+strings.Join(tb.Faults, ",")+" / "+strings.Join(tb.Clients, ","))
	}
	want := []string{"published: corrupt,clean / b,a", "hidden: clean,corrupt / a,c"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("tables = %q, want %q", got, want)
	}
}

func TestJSON(t *testing.T) {
	var b bytes.Buffer
	if err := JSON(&b, sample()); err != nil {
		t.Fatal(err)
	}
	golden(t, "sample.json", b.Bytes())

	// Empty lists and counts are written as the schema has them, not as null.
	b.Reset()
	if err := JSON(&b, &tally.Results{Scenario: "s", Cells: []*tally.Cell{{Cell: record.Cell{Client: "raw"}}}}); err != nil {
		t.Fatal(err)
	}
	if s := b.String(); strings.Contains(s, "null") {
		t.Errorf("JSON wrote null:\n%s", s)
	}
}

// TestJSONHostile: results.json keeps every hostile string exactly, as data, yet printed (by
// toolscore report --format json in a CI log) it shows no character a terminal acts on and
// holds no legacy workflow command.
func TestJSONHostile(t *testing.T) {
	// The hostile strings but the two huge ones, a legacy workflow command, and the controls
	// encoding/json writes as they are.
	strs := append(hostile[:len(hostile)-2:len(hostile)-2], "##[error]legacy", "###[x] #[y] ##", "\u0085next\u009b31m\u007fdel", "\u202aembed\u200fmark\u061c")
	r := &tally.Results{Scenario: strings.Join(strs, " ")}
	for i, s := range strs {
		c := mkCell(s, strs[(i+1)%len(strs)], "hidden", 1, s+":1")
		c.Examples = map[string]tally.Example{s: {Run: 1, Evidence: s, Tee: s}}
		r.Cells = append(r.Cells, c)
	}
	var b bytes.Buffer
	if err := JSON(&b, r); err != nil {
		t.Fatal(err)
	}
	var got tally.Results
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatalf("results.json does not decode: %v", err)
	}
	for i, c := range got.Cells {
		want := string([]rune(strs[i])) // JSON strings are UTF-8: encoding/json makes each bad byte U+FFFD
		if c.Client != want || c.Examples[want].Evidence != want {
			t.Errorf("cell %d: client %.60q, want %.60q", i, c.Client, want)
		}
	}
	out := b.String()
	if i := strings.IndexFunc(out, func(r rune) bool { return r != '\n' && isControl(r) }); i >= 0 {
		t.Errorf("results.json has a raw control character: %.80q", out[i:])
	}
	if strings.Contains(out, "##[") {
		t.Errorf("results.json holds a legacy workflow command")
	}
}
