package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/toolscore/toolscore/internal/backend"
	"github.com/toolscore/toolscore/internal/hostile"
	"github.com/toolscore/toolscore/internal/jsonrpc"
	"github.com/toolscore/toolscore/internal/transcript"
	"github.com/toolscore/toolscore/record"
)

// wireSweep sweeps tools of the hostile server with raw, go-sdk/call and mcp-go/call, under
// faults, once each on the local backend, and returns the runs by tool, fault and client, and
// the output directory. Every line of runs.jsonl must be valid UTF-8 and valid JSON, as a strict
// reader wants it, whatever the server sent.
func wireSweep(t *testing.T, tools, faults string) (map[string]record.Run, string) {
	t.Helper()
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, "m.yaml"), "name: wire shapes\nserver: {builtin: hostile}\ntools: ["+tools+"]\nfaults: ["+faults+
		"]\nschema_modes: [as-is]\nclients: [raw, go-sdk/call, mcp-go/call]\nruns: 1\ntimeout: 20s\n")
	out := filepath.Join(ws, "out")
	if _, stderr, code := toolscore(t, ws, "run", "m.yaml", "--backend", "local", "--out", out); code != 0 {
		t.Fatalf("toolscore run: exit %d:\n%s", code, stderr)
	}
	return readWireRuns(t, out), out
}

// readWireRuns reads runs.jsonl of out by tool, fault and client; every line must be valid
// UTF-8 and valid JSON.
func readWireRuns(t *testing.T, out string) map[string]record.Run {
	t.Helper()
	runs, err := os.ReadFile(filepath.Join(out, "runs.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	recs := map[string]record.Run{}
	sc := bufio.NewScanner(bytes.NewReader(runs))
	sc.Buffer(nil, 1<<26)
	for n := 1; sc.Scan(); n++ {
		line := sc.Bytes()
		if !utf8.Valid(line) || !json.Valid(line) {
			t.Fatalf("runs.jsonl line %d is not valid UTF-8 JSON: %.300q", n, line)
		}
		var r record.Run
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatalf("runs.jsonl line %d: %v", n, err)
		}
		recs[r.Tool+" "+r.Fault+" "+r.Client] = r
	}
	return recs
}

// serverAnswer reads a run's transcript whole (an error fails the test) and returns the answer
// the proxy sent for the target call, and the frame the server wrote for it, by the hostile
// server's own account (hostile.WireAnswer), for the request's id as the client wrote it.
func serverAnswer(t *testing.T, out string, r record.Run) (sent *transcript.Entry, wrote []byte, id string) {
	t.Helper()
	entries, err := transcript.Read(filepath.Join(out, r.Tee))
	if err != nil {
		t.Fatalf("%s %s %s: the transcript does not read whole: %v", r.Tool, r.Fault, r.Client, err)
	}
	request, answer := transcript.TargetAnswer(entries)
	if request == nil || answer == nil {
		t.Fatalf("%s %s %s: no target call answered in the transcript", r.Tool, r.Fault, r.Client)
	}
	msg, _ := jsonrpc.ParseMessage(request.Wire)
	frame, ok := hostile.WireAnswer(r.Tool, string(msg.ID))
	if !ok {
		t.Fatalf("no wire answer for %s", r.Tool)
	}
	return answer, []byte(frame), string(msg.ID)
}

// TestWireShapes: answers a JSON parser may not give back as it came (a big integer, 1e400,
// bytes that are not UTF-8, a byte order mark, CRLF, an id written 3.0 for request 3) are carried
// byte for byte in a clean cell: the transcript's answer, and the result as the raw client got
// it, are what the server wrote. What each library makes of them is graded, with its evidence:
//
//   - big-number, go-sdk: altered. go-sdk v1.8.0 decodes structuredContent into an any
//     (mcp/protocol.go:287, decoded at :397), a float64, so 12345678901234567890123 comes back
//     1.2345678901234568e+22. mcp-go v1.2.1 keeps the raw bytes (mcp/tools.go:622) and writes
//     them back (mcp/tools.go:565): passed.
//   - inf-number, go-sdk and mcp-go: threw. 1e400 does not fit a float64: go-sdk fails at
//     mcp/protocol.go:397, mcp-go at mcp/tools.go:623 (raised by ParseCallToolResult,
//     mcp/utils.go:876).
//
// Every other cell passed: both libraries match the answer with id 3.0 to request 3 by value
// (go-sdk internal/jsonrpc2/messages.go:34, mcp-go mcp/types.go:402), as raw now does.
func TestWireShapes(t *testing.T) {
	recs, out := wireSweep(t, "odd-id, big-number, inf-number, bad-utf8, bom, crlf", "clean")
	want := map[string]string{ // tool and client -> outcome, evidence it holds
		"big-number go-sdk/call": "altered structuredContent {\"n\":1.2345678901234568e+22} where the wire had {\"n\":12345678901234567890123}",
		"inf-number go-sdk/call": "threw json: cannot unmarshal \"1e400\" into Go struct field",
		"inf-number mcp-go/call": "threw failed to unmarshal response: json: cannot unmarshal number 1e400 into Go value of type float64",
	}
	for _, tool := range []string{"odd-id", "big-number", "inf-number", "bad-utf8", "bom", "crlf"} {
		for _, client := range []string{"raw", "go-sdk/call", "mcp-go/call"} {
			r, ok := recs[tool+" clean "+client]
			if !ok {
				t.Errorf("%s %s: no run", tool, client)
				continue
			}
			w := want[tool+" "+client]
			if w == "" {
				w = "passed"
			}
			outcome, evidence, _ := strings.Cut(w, " ")
			if string(r.Outcome) != outcome || !strings.Contains(r.Evidence, evidence) {
				t.Errorf("%s %s: %s (%s), want %s with %q", tool, client, r.Outcome, r.Evidence, outcome, evidence)
			}

			sent, wrote, _ := serverAnswer(t, out, r)
			if !bytes.Equal(sent.Wire, wrote) || sent.Fault != "clean" || sent.Introduced != nil {
				t.Errorf("%s %s: the transcript's answer is\n%q\nthe server wrote\n%q", tool, client, sent.Wire, wrote)
			}
			if client != "raw" {
				continue
			}
			// The result as the raw client got it, from its observation on its stdout.
			obs, err := os.ReadFile(filepath.Join(out, filepath.Dir(r.Tee), backend.StdoutFile))
			if err != nil {
				t.Fatal(err)
			}
			var o struct {
				Returned json.RawMessage `json:"returned"`
			}
			if err := json.Unmarshal(bytes.TrimSpace(obs), &o); err != nil {
				t.Fatalf("%s raw: its observation: %v", tool, err)
			}
			_, result, _ := bytes.Cut(wrote, []byte(`"result":`))
			result = bytes.TrimSuffix(bytes.TrimRight(result, "\r\n"), []byte("}"))
			if !bytes.Equal(o.Returned, result) {
				t.Errorf("%s raw: returned\n%q\nthe server wrote\n%q", tool, o.Returned, result)
			}
		}
	}
}

// TestWireShapesFaulted: a fault applies to an answer whose id is written 3.0 for request 3 (the proxy matches
// ids by value), and keeps, byte for byte, the bytes that are not UTF-8 it does not touch; a
// value a fault records that no float64 holds (1e400) leaves the transcript readable, so raw is
// graded on it (passed) and the libraries by what they did (threw, as in TestWireShapes).
func TestWireShapesFaulted(t *testing.T) {
	recs, out := wireSweep(t, "odd-id, inf-number, bad-utf8", "corrupt, wrong-container")
	for _, tc := range []struct {
		tool, fault string
		want        map[string]string // client -> outcome and evidence; unlisted: passed
		kept        []string          // what the faulted answer still holds byte for byte; {ID} is the request's id
	}{
		{"odd-id", "corrupt", nil, []string{`{"id":{ID}.0,"jsonrpc":"2.0","result":{`}},
		{"inf-number", "wrong-container", map[string]string{
			"go-sdk/call": "threw 1e400\" into Go struct field",
			"mcp-go/call": "threw json: cannot unmarshal number -1e400 into Go value of type float64",
		}, []string{`"structuredContent":[{"m":-1e400,"n":1e400}]`}},
		{"bad-utf8", "wrong-container", nil, []string{"\"text\":\"bad \xff\xfe bytes, a cut \xe2\x82 rune and 42\"", "[{\"n\":42,\"s\":\"bad \xc3 byte\"}]"}},
		{"bad-utf8", "corrupt", nil, []string{"\"text\":\"bad \xff\xfe bytes, a cut \xe2\x82 rune and 4", "\"s\":\"bad \xc3 byte\""}},
	} {
		for _, client := range []string{"raw", "go-sdk/call", "mcp-go/call"} {
			r := recs[tc.tool+" "+tc.fault+" "+client]
			w := tc.want[client]
			if w == "" {
				w = "passed"
			}
			outcome, evidence, _ := strings.Cut(w, " ")
			if string(r.Outcome) != outcome || !strings.Contains(r.Evidence, evidence) {
				t.Errorf("%s %s %s: %s (%s), want %s with %q", tc.tool, tc.fault, client, r.Outcome, r.Evidence, outcome, evidence)
			}
			sent, wrote, id := serverAnswer(t, out, r)
			if sent.Fault != tc.fault || len(sent.Introduced) == 0 || len(r.Introduced) == 0 {
				t.Errorf("%s %s %s: the fault was not applied: fault %q, introduced %v", tc.tool, tc.fault, client, sent.Fault, sent.Introduced)
			}
			if bytes.Equal(sent.Wire, wrote) {
				t.Errorf("%s %s %s: the server's answer went as it was", tc.tool, tc.fault, client)
			}
			for _, k := range tc.kept {
				if k = strings.ReplaceAll(k, "{ID}", id); !bytes.Contains(sent.Wire, []byte(k)) {
					t.Errorf("%s %s %s: the faulted answer lacks %q:\n%q", tc.tool, tc.fault, client, k, sent.Wire)
				}
			}
		}
	}
}

// TestWireShapesOnDocker sweeps the odd wire shapes through the TypeScript and Python SDKs and
// Claude Code in their cell images (raw beside them), under corrupt, once each: the fault
// applies to the answer whose id is spelt 3.0-style whatever the client, runs.jsonl stays valid
// UTF-8 JSON, and each library does with the bytes what its own code says:
//
//   - @modelcontextprotocol/sdk 1.32.2 (dist/esm/shared/stdio.js:26 and :35): a line is
//     Buffer.toString('utf8'), which turns bytes that are not UTF-8 into U+FFFD (altered), then
//     JSON.parse, whose numbers are doubles: 12345678901234567890123 loses digits and 1e400 is
//     Infinity, which the adapter's JSON can only write as null (altered); ids are matched by
//     value, so the N.0 answer is the call's (passed). Claude Code bundles that transport: the
//     same for the numbers in what its model is shown; the text it shows its model has U+FFFD
//     where the bytes were, which is how the agent grader reads the wire's text too (passed).
//   - mcp 2.3.0 (mcp/client/stdio.py:110 and :145): stdout is decoded with errors "strict", so
//     the bytes that are not UTF-8 end the reader and the call is never answered (hung); each
//     line is validated by pydantic (stdio.py:222), whose RequestId is int or str: an id 2.0
//     fits neither, the answer is dropped as a parse error, and the call waits (hung). Python's
//     int holds the big integer (passed); 1e400 is float inf, written as null (altered).
func TestWireShapesOnDocker(t *testing.T) {
	engine(t)
	ws := t.TempDir()
	manifest := filepath.Join(ws, "m.yaml")
	writeFile(t, manifest, "name: wire shapes on docker\nserver: {builtin: hostile}\ntools: [odd-id, big-number, inf-number, bad-utf8]\n"+
		"faults: [corrupt]\nschema_modes: [as-is]\nclients: [raw, ts-sdk/call, python-sdk/call, claude-code]\nruns: 1\ntimeout: 8s\n")
	out := filepath.Join(ws, "out")
	if code, _, stderr := runStatic(t, manifest, "--backend", "docker", "--parallel", "3", "--out", out); code != 0 {
		t.Fatalf("toolscore run: exit %d:\n%s", code, stderr)
	}
	recs := readWireRuns(t, out)
	want := map[string]map[string]string{ // tool -> client -> outcome
		"odd-id":     {"raw": "passed", "ts-sdk/call": "passed", "python-sdk/call": "hung", "claude-code": "passed"},
		"big-number": {"raw": "passed", "ts-sdk/call": "altered", "python-sdk/call": "passed", "claude-code": "altered"},
		"inf-number": {"raw": "passed", "ts-sdk/call": "altered", "python-sdk/call": "altered", "claude-code": "altered"},
		"bad-utf8":   {"raw": "passed", "ts-sdk/call": "altered", "python-sdk/call": "hung", "claude-code": "passed"},
	}
	for tool, clients := range want {
		for client, outcome := range clients {
			r, ok := recs[tool+" corrupt "+client]
			switch {
			case !ok:
				t.Errorf("%s %s: no run", tool, client)
				continue
			case string(r.Outcome) != outcome:
				t.Errorf("%s %s: %s (%s), want %s", tool, client, r.Outcome, r.Evidence, outcome)
			}
			// The fault found the answer: by value for odd-id, whatever the client asked.
			if len(r.Introduced) == 0 {
				t.Errorf("%s %s: corrupt introduced nothing: the answer was not found", tool, client)
			}
		}
	}
	if r := recs["odd-id corrupt python-sdk/call"]; !strings.Contains(r.Stderr, "input_type=float") {
		t.Errorf("python-sdk/call on odd-id: its stderr does not show pydantic refusing the float id:\n%s", r.Stderr)
	}
	for _, tool := range []string{"big-number", "inf-number"} {
		if r := recs[tool+" corrupt ts-sdk/call"]; !strings.Contains(r.Evidence, "where the wire had") {
			t.Errorf("%s ts-sdk/call: the evidence does not set what came against the wire: %s", tool, r.Evidence)
		}
	}
}
