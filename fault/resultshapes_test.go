package fault_test

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/toolscore/toolscore/fault"
)

// modernBalance is the ledger's answer as a 2026-07-28 session carries it: with its resultType.
const modernBalance = `{"content":[{"type":"text","text":"ACC-4471: balance 40,718.77 USD as of 2026-03-31"}],"resultType":"complete","structuredContent":{"account_id":"ACC-4471","as_of":"2026-03-31","balance_minor":4071877,"currency":"USD"}}`

// ledgerSchema is the ledger's outputSchema, as far as the result-shape faults read it.
const ledgerSchema = `{"type":"object","required":["account_id","balance_minor","currency","as_of"],"properties":{"account_id":{"type":"string"},"balance_minor":{"type":"integer"},"currency":{"type":"string"},"as_of":{"type":"string"}}}`

// TestResultTypeValues: each value of result-type on a 2026-07-28 result, and on a 2025-11-25
// one, which has no resultType to remove.
func TestResultTypeValues(t *testing.T) {
	old := strings.Replace(modernBalance, `"resultType":"complete",`, "", 1)
	for _, tc := range []struct{ value, result, resultType, introduced, note string }{
		{"absent", modernBalance, "<none>", `[{"path":"resultType","value":null,"was":"complete"}]`, ""},
		{"unknown", modernBalance, "partial", `[{"path":"resultType","value":"partial","was":"complete"}]`, ""},
		{"input_required", modernBalance, "input_required", `[{"path":"resultType","value":"input_required","was":"complete"}]`, ""},
		{"later", modernBalance, "later", `[{"path":"resultType","value":"later","was":"complete"}]`, ""},
		{"complete", modernBalance, "<unchanged>", `null`, `the result's resultType was already "complete": the server's answer was sent`},
		{"absent", old, "<unchanged>", `null`, "the result carried no resultType (a 2025-11-25 session's results have none): nothing to remove, the server's answer was sent"},
		{"unknown", old, "partial", `[{"path":"resultType","value":"partial"}]`, `the result carried no resultType (a 2025-11-25 session's results have none): "partial" was added, a member that revision does not define`},
	} {
		eff := applyTo(t, "result-type", `{"value":"`+tc.value+`"}`, ledgerSchema, tc.result, 1)
		got := "<unchanged>"
		if eff.Result != nil {
			got = "<none>"
			if v, ok := eff.Result["resultType"]; ok {
				got = v.(string)
			}
			if !reflect.DeepEqual(eff.Result["structuredContent"], mustDecode(t, tc.result)["structuredContent"]) || eff.Result["content"] == nil {
				t.Errorf("%s: the tool's payload changed: %v", tc.value, eff.Result)
			}
		}
		if intro := mustJSON(t, eff.Introduced); got != tc.resultType || intro != tc.introduced || eff.Note != tc.note {
			t.Errorf("%s on %.40s…: resultType %s, introduced %s, note %q\nwant %s, %s, %q", tc.value, tc.result, got, intro, eff.Note, tc.resultType, tc.introduced, tc.note)
		}
	}
	// Left to the seed, the three values each come up.
	seen := map[string]bool{}
	for seed := uint64(1); seed <= 20; seed++ {
		eff := applyTo(t, "result-type", "", ledgerSchema, modernBalance, seed)
		seen[mustJSON(t, eff.Result["resultType"])] = true
	}
	if want := map[string]bool{`null`: true, `"partial"`: true, `"input_required"`: true}; !reflect.DeepEqual(seen, want) {
		t.Errorf("seeds 1 to 20 sent resultType %v, want each of %v", seen, want)
	}
}

// TestScalarStructuredKinds: left to the seed, each kind comes up, taken from the result; the
// value option fixes it, and an object or an array is refused (wrong-container sends those).
func TestScalarStructuredKinds(t *testing.T) {
	seen := map[string]bool{}
	for seed := uint64(1); seed <= 20; seed++ {
		seen[mustJSON(t, applyTo(t, "scalar-structured", "", "", modernBalance, seed).Result["structuredContent"])] = true
	}
	want := map[string]bool{`4071877`: true, `"ACC-4471: balance 40,718.77 USD as of 2026-03-31"`: true, `true`: true, `null`: true}
	if !reflect.DeepEqual(seen, want) {
		t.Errorf("seeds 1 to 20 sent %v, want each of %v", seen, want)
	}
	for opt, want := range map[string]string{`"x"`: `"x"`, `null`: `null`, `false`: `false`, `1e400`: `1e400`} {
		if got := mustJSON(t, applyTo(t, "scalar-structured", `{"value":`+opt+`}`, "", modernBalance, 1).Result["structuredContent"]); got != want {
			t.Errorf("value %s sent %s", opt, got)
		}
	}
	for _, opt := range []string{`{"value":{}}`, `{"value":[1]}`} {
		if err := fault.Check("scalar-structured", json.RawMessage(opt)); err == nil || !strings.Contains(err.Error(), "option value: want a number, a string, true, false or null") {
			t.Errorf("%s: %v", opt, err)
		}
	}
}

// TestErrorStructuredSaysWhenTheSchemaTakesIt: the error object breaks a schema that requires
// the tool's fields, and the note says when one would take it.
func TestErrorStructuredSaysWhenTheSchemaTakesIt(t *testing.T) {
	for schema, note := range map[string]string{
		ledgerSchema: "",
		`{"type":"object","properties":{"error":{"type":"integer"}}}`: "",
		`{"type":"object","properties":{"error":{"type":"string"}}}`:  "the outputSchema of read allows error as string and requires nothing else: the error object conforms",
		`{"type":"object"}`: "the outputSchema of read requires no field the error object lacks: it may conform",
		``:                  "no outputSchema for read (the server publishes none and the manifest sets none): nothing says the error object does not conform",
	} {
		if eff := applyTo(t, "error-structured", "", schema, modernBalance, 1); eff.Note != note || eff.Result["isError"] != true {
			t.Errorf("schema %s: note %q, isError %v; want %q", schema, eff.Note, eff.Result["isError"], note)
		}
	}
}

// TestNoContentWithoutStructured: a result with no structuredContent loses its content all the
// same, and the note says the answer carries neither.
func TestNoContentWithoutStructured(t *testing.T) {
	eff := applyTo(t, "no-content", "", "", `{"content":[{"type":"text","text":"hi"}]}`, 1)
	if got := mustJSON(t, eff.Result); got != `{}` || !strings.Contains(eff.Note, "neither content nor structuredContent") {
		t.Errorf("sent %s, note %q", got, eff.Note)
	}
	if eff := applyTo(t, "no-content", "", "", `{"structuredContent":{}}`, 1); eff.Result != nil || eff.Note == "" {
		t.Errorf("a result without content: %v, note %q; want the server's answer and a note", eff.Result, eff.Note)
	}
}

// fuzzFault is the named fault as a fuzzer runs it: the oversize faults at 256 bytes, since a
// MiB per input would make the fuzzer's budget a few hundred inputs (TestOversizeSizes checks
// their own sizes).
func fuzzFault(t *testing.T, name string) fault.Fault {
	t.Helper()
	if !strings.HasPrefix(name, "oversize-") {
		return mustNew(t, name)
	}
	f, err := fault.New(name, json.RawMessage(`{"bytes":256}`))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func mustDecode(t *testing.T, s string) map[string]any {
	t.Helper()
	m, err := decode([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// FuzzResultFaults: every fault of a result (the registry's, so a fault added later is fuzzed
// too), on any result and schema, with any seed: it does not panic or fail, leaves the server's
// result as it was, makes a result that encodes as JSON, makes the same effect from the same
// seed, and what it lists as introduced is where it says: a top-level member holds the value
// (null: removed or null), a nested one's member changed.
func FuzzResultFaults(f *testing.F) {
	f.Add(modernBalance, ledgerSchema, uint64(1))
	f.Add(strings.Replace(modernBalance, `"resultType":"complete",`, "", 1), ledgerSchema, uint64(2))
	f.Add(`{"content":[],"resultType":"input_required","_meta":{"a":1}}`, `{"type":"object"}`, uint64(3))
	f.Add(`{"structuredContent":"x","isError":true}`, ``, uint64(4))
	f.Add(`{"content":null,"structuredContent":[1,{"a":null}],"resultType":7}`, `{"required":["error"]}`, uint64(5))
	f.Add(reading, readingSchema, uint64(6))
	f.Add(`{"content":[{"type":"text","text":""}]}`, ``, uint64(7))
	f.Fuzz(func(t *testing.T, result, schema string, seed uint64) {
		if r, err := decode([]byte(result)); err != nil || r == nil {
			return
		}
		var s map[string]any
		_ = json.Unmarshal([]byte(schema), &s)
		for _, name := range fault.Names() {
			if fault.Transport(name) {
				continue
			}
			apply := func() (*fault.Effect, map[string]any) {
				r, _ := decode([]byte(result))
				eff, err := fuzzFault(t, name).Apply(context.Background(), &fault.Call{Tool: "t", Result: r, Schema: s, Rand: rand.New(rand.NewPCG(seed, 1))})
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				return eff, r
			}
			eff, server := apply()
			if after, _ := decode([]byte(result)); !reflect.DeepEqual(server, after) {
				t.Fatalf("%s changed the server's result in place:\n%v\nwas\n%v", name, server, after)
			}
			first, err := json.Marshal(eff)
			if err != nil {
				t.Fatalf("%s made an effect that is not JSON: %v", name, err)
			}
			if again, _ := apply(); mustJSON(t, again) != mustJSON(t, eff) {
				t.Fatalf("%s: the same seed made another effect:\n%s\nthen\n%s", name, first, mustJSON(t, again))
			}
			if eff.Result == nil {
				continue
			}
			for _, in := range eff.Introduced {
				top, nested := in.Path, false
				if i := strings.IndexAny(top, ".["); i >= 0 {
					top, nested = top[:i], true
				}
				got, has := eff.Result[top]
				switch {
				case nested && (!has || mustJSON(t, got) == mustJSON(t, server[top])):
					t.Fatalf("%s lists %s as introduced, but %s is unchanged: %s", name, in.Path, top, mustJSON(t, eff.Result))
				case !nested && in.Value == nil && got != nil:
					t.Fatalf("%s lists %s as removed, the result has %s", name, in.Path, mustJSON(t, got))
				case !nested && in.Value != nil && mustJSON(t, got) != mustJSON(t, in.Value):
					t.Fatalf("%s lists %s as %s, the result has %s", name, in.Path, mustJSON(t, in.Value), mustJSON(t, got))
				}
			}
		}
	})
}
