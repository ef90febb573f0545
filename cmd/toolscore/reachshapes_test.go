package main

import (
	"bytes"
	"encoding/json"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolscore/toolscore/internal/transcript"
	"github.com/toolscore/toolscore/record"
)

// reachShapes is, for each result-shape fault of issue 49, a test of its answer on the wire:
// the bytes the fault puts there, read back from the run's transcript.
var reachShapes = map[string]func(wire []byte) bool{
	"summary-split": func(w []byte) bool {
		return bytes.Contains(w, []byte(`"content":[{"text":"Retrieved 1 record.","type":"text"}]`))
	},
	"structured-only": func(w []byte) bool { return bytes.Contains(w, []byte(`"content":[],"structuredContent":{`)) },
	"text-only": func(w []byte) bool {
		return !bytes.Contains(w, []byte(`structuredContent`)) && bytes.Contains(w, []byte(`40,718.77`))
	},
	"error-structured-detail": func(w []byte) bool {
		return bytes.Contains(w, []byte(`"isError":true,"structuredContent":{"error":{"code":"UPSTREAM_UNAVAILABLE"`))
	},
	"image-and-text": func(w []byte) bool { return bytes.Contains(w, []byte(`"mimeType":"image/png","type":"image"}]`)) },
	"resource-link": func(w []byte) bool {
		return bytes.Contains(w, []byte(`"type":"resource_link","uri":"ledger://statements/2026-03.csv"}]`))
	},
	"oversize-25k":  func(w []byte) bool { return textLen(w) == 100_000 },
	"oversize-100k": func(w []byte) bool { return textLen(w) == 400_000 },
	"oversize-1mb":  func(w []byte) bool { return textLen(w) == 1<<20 },
}

// textLen is the length in bytes of the first content block's text of the answer w, decoded.
func textLen(w []byte) int {
	var a struct {
		Result struct {
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
	}
	if json.Unmarshal(w, &a) != nil || len(a.Result.Content) == 0 {
		return -1
	}
	return len(a.Result.Content[0].Text)
}

// reachShapesWant is what each client does with the result shapes of issue 49 (run 1, seed 1),
// found on docker (the sample) and on the local backend (the full product). An SDK's passed says it returned its caller every part on the
// wire as it was (content, each block by type; structuredContent; isError: grade.differs);
// each other outcome, by the line that causes it:
//
//   - text-only under the published schema: the Python SDK (mcp 2.3.0) revalidates every result
//     that is not an error against the tool's outputSchema, listing the tools itself when it
//     has not (mcp/client/session.py:1101, :1124-1126), and raises "Tool get_account_balance
//     has an output schema but did not return structured content" (:1139-1140): threw. With the
//     schema hidden there is no schema to hold it to: passed.
//   - oversize-1mb over streamable HTTP: the Python SDK reads the call's SSE answer with an event
//     size limit of one MiB (DEFAULT_MAX_SSE_EVENT_SIZE, mcp/client/streamable_http.py:61,
//     passed to EventSource at :482), which an answer of a MiB of text and its envelope exceeds:
//     threw "MCPError: SSE stream failed: Server-sent event exceeded the 1048576 byte limit.".
//     On stdio it reads the line whole: passed.
//   - resource-link: mcp-go v1.2.1 reads the block into its ResourceLink, whose Description has
//     no omitempty (mcp/types.go:1301), so its caller gets "description": "", a member the
//     server never sent: altered.
//
// go-sdk v1.8.0's client checks no result against a schema (mcp/client.go has no
// structuredContent check) and reads image and resource_link blocks as their own types
// (mcp/content.go:383, :391), re-encoded as they came: passed, as raw, which returns the wire's
// bytes. The Python SDK's error-structured-detail is an error, which it does not validate
// (session.py:1101): passed. No other client of these cuts or refuses an oversize answer, a
// MiB included. The full product (252 cells) ran once on the local backend with these counts.
func reachShapesWant(client, fault, schema, transport string) string {
	switch {
	case strings.HasPrefix(client, "python-sdk/") && fault == "text-only" && schema == "published":
		return "threw"
	case strings.HasPrefix(client, "python-sdk/") && fault == "oversize-1mb" && transport == "http":
		return "threw"
	case strings.HasPrefix(client, "mcp-go/") && fault == "resource-link":
		return "altered"
	}
	return "passed"
}

// reachedWant is what each run's record says reached the caller (grade.reached), part by part:
// every part of the answer on the wire, as it was, where the client returned it and its outcome
// was passed; mcp-go's resource_link block changed (the description it adds, types.go:1301);
// nothing for a client that threw, nor for an oversize answer, which is larger than what a
// record keeps whole (64 KiB), so its parts are not told apart.
func reachedWant(client, fault, outcome string) string {
	parts := map[string][]string{
		"summary-split":           {"content[0] text", "structuredContent"},
		"structured-only":         {"structuredContent"},
		"text-only":               {"content[0] text"},
		"error-structured-detail": {"content[0] error text", "structuredContent"},
		"image-and-text":          {"content[0] text", "content[1] image", "structuredContent"},
		"resource-link":           {"content[0] text", "content[1] resource_link", "structuredContent"},
	}[fault]
	if outcome == "threw" || len(parts) == 0 {
		return "null"
	}
	var out []string
	for _, p := range parts {
		state := "reached"
		if strings.HasPrefix(client, "mcp-go/") && p == "content[1] resource_link" {
			state = "changed"
		}
		out = append(out, `{"part":"`+p+`","state":"`+state+`"}`)
	}
	return "[" + strings.Join(out, ",") + "]"
}

// TestReachShapesOnDocker runs the result shapes of issue 49 through real clients on docker,
// checks that each fault's bytes were on the wire, every count against reachShapesWant, and
// what each run's record says reached the caller against reachedWant: in
// scripts/test a sample (raw, mcp-go and the Python SDK, the schema published, stdio, the
// smallest oversize), under TOOLSCORE_FULL=1 go-sdk too and each SDK's list-then-call, both
// schema modes, stdio and http, and every size.
func TestReachShapesOnDocker(t *testing.T) {
	engine(t)
	faults := "summary-split, structured-only, text-only, error-structured-detail, image-and-text, resource-link, oversize-25k"
	clients, schemas, transports := "raw,mcp-go/call,python-sdk/call", "published", "stdio"
	if fullProduct() {
		faults += ", oversize-100k, oversize-1mb"
		clients, schemas, transports = "raw,go-sdk/call,go-sdk/list-then-call,mcp-go/call,mcp-go/list-then-call,python-sdk/call,python-sdk/list-then-call", "hidden, published", "stdio, http"
	}
	manifest := filepath.Join(t.TempDir(), "reach-shapes.yaml")
	writeFile(t, manifest, `name: reach shapes
server: {builtin: ledger}
tool: get_account_balance
arguments: {account_id: ACC-4471}
prompt: What is the balance of ledger account ACC-4471? Answer with the amount and currency.
truth: ["40718.77", "4071877"]
faults: [`+faults+`]
schema_modes: [`+schemas+`]
protocols: [2025-11-25]
transports: [`+transports+`]
clients: [`+clients+`]
runs: 1
timeout: 60s
`)
	out := t.TempDir()
	if code, _, stderr := runStatic(t, manifest, "--backend", "docker", "--parallel", "2", "--out", out); code != 0 {
		t.Fatalf("the sweep exited %d:\n%s", code, stderr)
	}
	res := readResultsDir(t, out)
	want := len(clientList(clients)) * len(strings.Split(faults, ",")) * len(strings.Split(schemas, ",")) * len(strings.Split(transports, ","))
	if len(res.Unavailable) > 0 || len(res.Cells) != want {
		t.Fatalf("%d cells, unavailable %v; want %d and none", len(res.Cells), res.Unavailable, want)
	}
	reachedOf := map[string]string{}
	for _, r := range record.RunsIn(out) {
		b, _ := json.Marshal(r.Reached)
		reachedOf[r.Client+" "+r.Fault+" "+r.Schema+" "+r.Transport] = string(b)
	}
	var counts []string
	for _, c := range res.Cells {
		if got, want := reachedOf[c.Client+" "+c.Fault+" "+c.Schema+" "+c.Transport], reachedWant(c.Client, c.Fault, reachShapesWant(c.Client, c.Fault, c.Schema, c.Transport)); got != want {
			t.Errorf("%s: the record says reached %s, want %s", c.Coordinates(), got, want)
		}
		counts = append(counts, c.Coordinates()+": "+c.Counts())
		w := reachShapesWant(c.Client, c.Fault, c.Schema, c.Transport)
		if c.Outcome[w] != 1 {
			t.Errorf("%s: %s, want %s 1/1 (evidence: %v)", c.Coordinates(), c.Counts(), w, c.Examples)
		}
		if ex, ok := c.Examples[w]; ok {
			if wire := targetAnswer(t, filepath.Join(out, ex.Tee)); !reachShapes[c.Fault](wire) {
				t.Errorf("%s: the fault's bytes are not on the wire: %.300s", c.Coordinates(), wire)
			}
		}
	}
	t.Logf("%d cells:\n%s", len(counts), strings.Join(counts, "\n"))
}

// targetAnswer is the answer to the target call as the run's transcript holds it, whole.
func targetAnswer(t *testing.T, tee string) []byte {
	t.Helper()
	entries, err := transcript.Read(tee)
	if err != nil {
		t.Fatal(err)
	}
	_, answer := transcript.TargetAnswer(entries)
	if answer == nil {
		t.Fatalf("%s: no answer to the target call", tee)
	}
	r, err := answer.OpenWire()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
