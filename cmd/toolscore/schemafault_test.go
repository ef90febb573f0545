package main

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolscore/toolscore/internal/transcript"
)

// TestSchemaFaultsSameWhateverTheClientAsked: drop-required and type-swap pick from the schema
// the server publishes (the hostile ref-schema tool: required under a $ref, a value of type
// [integer, string]) whether or not the client listed the tools: raw and go-sdk/call never ask
// for tools/list, go-sdk/list-then-call does, and every one gets the same faulted answer, byte
// for byte. drop-required drops a required field (seed 6 would drop the optional "note" if it
// picked among all four), and type-swap makes the value an array, outside the union, where the
// string of its digits would still conform.
func TestSchemaFaultsSameWhateverTheClientAsked(t *testing.T) {
	// The guard that makes seed 6 tell: picking among the result's four fields, sorted, it
	// drops an optional one.
	if all := []string{"id", "note", "unit", "value"}; all[rand.New(rand.NewPCG(6, 1)).IntN(4)] != "note" {
		t.Fatal("seed 6 no longer picks an optional field among all four: choose another seed")
	}
	manifest := filepath.Join(t.TempDir(), "ref-schema.yaml")
	writeFile(t, manifest, `name: schema faults whatever the client asked
server: {builtin: hostile}
tool: ref-schema
faults: [{name: drop-required, seed: 6}, {name: type-swap, seed: 6}]
schema_modes: [hidden]
clients: [raw, go-sdk/call, go-sdk/list-then-call]
runs: 1
timeout: 60s
`)
	out := t.TempDir()
	if _, stderr, code := toolscore(t, "", "run", manifest, "--backend", "local", "--out", out); code != 0 {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	for _, tc := range []struct{ fault, want, introduced string }{
		{"drop-required", `{"content":[{"text":"r-1: 42 mm, calm","type":"text"}],"structuredContent":{"id":"r-1","note":"calm","unit":"mm"}}`,
			`[{"path":"structuredContent.value","value":null,"was":42}]`},
		{"type-swap", `{"content":[{"text":"r-1: 42 mm, calm","type":"text"}],"structuredContent":{"id":"r-1","note":"calm","unit":"mm","value":[42]}}`,
			`[{"path":"structuredContent.value","value":[42],"was":42}]`},
	} {
		for _, client := range []string{"raw", "go-sdk/call", "go-sdk/list-then-call"} {
			tee := filepath.Join(out, "runs", strings.ReplaceAll(client, "/", "_")+"__"+tc.fault+"__hidden__stdio", "run-1", "tee.jsonl")
			entries, err := transcript.Read(tee)
			if err != nil {
				t.Fatalf("%s × %s: %v", client, tc.fault, err)
			}
			var faulted *transcript.Entry
			listed, asked := false, false
			for i, e := range entries {
				switch {
				case e.Dir == transcript.ClientToServer && bytes.Contains(e.Wire, []byte(`"tools/list"`)):
					listed = true
				case e.Event == "schema":
					asked = true
				case e.Fault != "":
					faulted = &entries[i]
				}
			}
			if listed != (client == "go-sdk/list-then-call") {
				t.Errorf("%s × %s: the client listed the tools: %v; the test wants a call-only and a list-then-call client", client, tc.fault, listed)
			}
			if faulted == nil {
				t.Fatalf("%s × %s: no faulted answer in %s", client, tc.fault, tee)
			}
			if !asked {
				t.Errorf("%s × %s: the transcript has no schema event: the proxy did not ask a fresh server", client, tc.fault)
			}
			var msg struct {
				Result json.RawMessage `json:"result"`
			}
			if err := json.Unmarshal(faulted.Wire, &msg); err != nil || string(msg.Result) != tc.want {
				t.Errorf("%s × %s: the faulted answer's result is\n%s\nwant\n%s", client, tc.fault, msg.Result, tc.want)
			}
			if got, _ := json.Marshal(faulted.Introduced); string(got) != tc.introduced || faulted.Note != "" {
				t.Errorf("%s × %s: introduced %s, note %q; want %s and no note", client, tc.fault, got, faulted.Note, tc.introduced)
			}
		}
	}
}
