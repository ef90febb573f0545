package fault_test

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/toolscore/toolscore/fault"
)

// listCatalogue is what each fault of the listing does to the outputSchema the real ledger
// publishes for get_account_balance, with seed 1: the schema it publishes instead, and what it
// says it introduced. Serve stands in for the proxy's listener at http://127.0.0.1:9.
var listCatalogue = map[string]struct {
	options    string
	schema     string // the outputSchema published instead
	introduced string
	served     string // the documents the fault served, path: body
	draws      bool   // another seed publishes other bytes
}{
	"schema-ref": {
		schema:     `{"additionalProperties":false,"properties":{"account_id":{"description":"the account's id, e.g. ACC-4471","type":"string"},"as_of":{"description":"the date the balance holds for, YYYY-MM-DD","type":"string"},"balance_minor":{"$ref":"http://127.0.0.1:9/schemas/get_account_balance/9e85cbbd.json"},"currency":{"description":"ISO 4217 currency code","type":"string"}},"required":["account_id","balance_minor","currency","as_of"],"type":"object"}`,
		introduced: `[{"path":"properties.balance_minor","value":{"$ref":"http://127.0.0.1:9/schemas/get_account_balance/9e85cbbd.json"},"was":{"description":"the balance in minor units (cents)","type":"integer"}}]`,
		served:     `/schemas/get_account_balance/9e85cbbd.json: {"description":"the balance in minor units (cents)","type":"integer"}`,
		draws:      true,
	},
	"schema-dialect": {
		schema:     `{"$schema":"https://json-schema.toolscore.invalid/draft/2099-01/schema","additionalProperties":false,"properties":{"account_id":{"description":"the account's id, e.g. ACC-4471","type":"string"},"as_of":{"description":"the date the balance holds for, YYYY-MM-DD","type":"string"},"balance_minor":{"description":"the balance in minor units (cents)","type":"integer"},"currency":{"description":"ISO 4217 currency code","type":"string"}},"required":["account_id","balance_minor","currency","as_of"],"type":"object"}`,
		introduced: `[{"path":"$schema","value":"https://json-schema.toolscore.invalid/draft/2099-01/schema"}]`,
	},
	"schema-bomb": {
		options:    `{"depth":2,"width":3}`,
		schema:     `{"$defs":{"toolscore_bomb_0":{"description":"the balance in minor units (cents)","type":"integer"},"toolscore_bomb_1":{"allOf":[{"$ref":"#/$defs/toolscore_bomb_0"},{"$ref":"#/$defs/toolscore_bomb_0"},{"$ref":"#/$defs/toolscore_bomb_0"}]},"toolscore_bomb_2":{"anyOf":[{"allOf":[{"$ref":"#/$defs/toolscore_bomb_1"},{"not":{}}]},{"allOf":[{"$ref":"#/$defs/toolscore_bomb_1"},{"not":{}}]},{"$ref":"#/$defs/toolscore_bomb_1"}]}},"additionalProperties":false,"properties":{"account_id":{"description":"the account's id, e.g. ACC-4471","type":"string"},"as_of":{"description":"the date the balance holds for, YYYY-MM-DD","type":"string"},"balance_minor":{"$ref":"#/$defs/toolscore_bomb_2"},"currency":{"description":"ISO 4217 currency code","type":"string"}},"required":["account_id","balance_minor","currency","as_of"],"type":"object"}`,
		introduced: `[{"path":"$defs.toolscore_bomb_0","value":{"description":"the balance in minor units (cents)","type":"integer"}},{"path":"$defs.toolscore_bomb_1","value":{"allOf":[{"$ref":"#/$defs/toolscore_bomb_0"},{"$ref":"#/$defs/toolscore_bomb_0"},{"$ref":"#/$defs/toolscore_bomb_0"}]}},{"path":"$defs.toolscore_bomb_2","value":{"anyOf":[{"allOf":[{"$ref":"#/$defs/toolscore_bomb_1"},{"not":{}}]},{"allOf":[{"$ref":"#/$defs/toolscore_bomb_1"},{"not":{}}]},{"$ref":"#/$defs/toolscore_bomb_1"}]}},{"path":"properties.balance_minor","value":{"$ref":"#/$defs/toolscore_bomb_2"},"was":{"description":"the balance in minor units (cents)","type":"integer"}}]`,
		draws:      true,
	},
}

// TestSchemaBombDefaults: the default bomb is a few KB on the wire however many checks it asks.
func TestSchemaBombDefaults(t *testing.T) {
	s := startLedger(t)
	got, _, _ := rewrite(t, s.schema(t), "schema-bomb", "", 1)
	if n := len(got); n > 8<<10 || !strings.Contains(got, "toolscore_bomb_12") {
		t.Errorf("the default bomb is %d bytes (want under 8 KB) with 12 levels: %s", n, got)
	}
}

// TestListFaultsWithoutProperties: a schema with no properties (or not the named one) gets the
// fault at its root, and the note says so.
func TestListFaultsWithoutProperties(t *testing.T) {
	for _, tc := range []struct{ name, options, want, note string }{
		{"schema-ref", "", `{"$ref":"http://127.0.0.1:9/schemas/get_account_balance/4a4457f0.json","type":"string"}`, "declares no properties: its root points at the $ref"},
		{"schema-ref", `{"field":"nope"}`, `{"$ref":"http://127.0.0.1:9/schemas/get_account_balance/4a4457f0.json","type":"string"}`, `declares no property "nope"`},
		{"schema-bomb", `{"depth":1,"width":2}`, `{"$defs":{"toolscore_bomb_0":{},"toolscore_bomb_1":{"allOf":[{"$ref":"#/$defs/toolscore_bomb_0"},{"$ref":"#/$defs/toolscore_bomb_0"}]}},"allOf":[{"$ref":"#/$defs/toolscore_bomb_1"}],"type":"string"}`, "the whole schema holds the bomb"},
	} {
		got, eff, _ := rewrite(t, map[string]any{"type": "string"}, tc.name, tc.options, 1)
		if got != tc.want || !strings.Contains(eff.Note, tc.note) {
			t.Errorf("%s %s:\n got %s (%s)\nwant %s (%s)", tc.name, tc.options, got, eff.Note, tc.want, tc.note)
		}
	}
}

// TestListCatalogue rewrites the ledger's published outputSchema with every fault of the listing
// and checks the schema, the values it says it introduced, what it served, and that the seed
// alone decides its draws.
func TestListCatalogue(t *testing.T) {
	s := startLedger(t)
	schema := s.schema(t)
	for _, name := range fault.Names() {
		f, _ := fault.New(name, nil)
		if !fault.Lists(f) {
			if _, ok := listCatalogue[name]; ok {
				t.Errorf("listCatalogue has a row for %s, which does not rewrite the listing", name)
			}
			continue
		}
		t.Run(name, func(t *testing.T) {
			want, ok := listCatalogue[name]
			if !ok {
				t.Fatalf("fault %q has no row in listCatalogue: add what it publishes", name)
			}
			got, eff, served := rewrite(t, schema, name, want.options, 1)
			if got != want.schema {
				t.Errorf("published:\n%s\nwant:\n%s", got, want.schema)
			}
			if in := mustJSON(t, eff.Introduced); in != want.introduced {
				t.Errorf("introduced:\n%s\nwant:\n%s", in, want.introduced)
			}
			if served != want.served {
				t.Errorf("served:\n%s\nwant:\n%s", served, want.served)
			}
			if again, _, _ := rewrite(t, schema, name, want.options, 1); again != got {
				t.Errorf("seed 1 again published other bytes:\n%s\nfirst:\n%s", again, got)
			}
			differs := false
			for seed := uint64(2); seed <= 8 && !differs; seed++ {
				other, _, _ := rewrite(t, schema, name, want.options, seed)
				differs = other != got
			}
			if differs != want.draws {
				t.Errorf("seeds 2 to 8 change the bytes: %v, want %v", differs, want.draws)
			}
			// The call's answer goes as the server sent it.
			result, err := s.call(context.Background(), json.RawMessage(`{"account_id":"ACC-4471"}`))
			if err != nil {
				t.Fatal(err)
			}
			ce, err := f.Apply(context.Background(), &fault.Call{Tool: "get_account_balance", Result: result, Rand: rand.New(rand.NewPCG(1, 1))})
			if err != nil || ce.Result != nil || ce.RPCError != nil || ce.Delay != 0 {
				t.Errorf("the call's answer: %+v, %v; want it as sent", ce, err)
			}
		})
	}
}

// rewrite runs the named fault of the listing on schema as the proxy does, and returns the
// schema it publishes, its effect, and what it served.
func rewrite(t *testing.T, schema map[string]any, name, options string, seed uint64) (string, *fault.SchemaEffect, string) {
	t.Helper()
	f, err := fault.New(name, json.RawMessage(options))
	if err != nil {
		t.Fatal(err)
	}
	var served []string
	eff, err := f.(fault.ListFault).RewriteSchema(context.Background(), &fault.Published{
		Tool: "get_account_balance", Schema: schema, Rand: rand.New(rand.NewPCG(seed, 1<<63)),
		Serve: func(path string, doc any) (string, error) {
			served = append(served, path+": "+mustJSON(t, doc))
			return "http://127.0.0.1:9" + path, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return mustJSON(t, eff.Schema), eff, strings.Join(served, "\n")
}

// FuzzListFaults: whatever outputSchema a server publishes, the faults of the listing return a
// schema that encodes, leave the one they were handed as it was, and never fail.
func FuzzListFaults(f *testing.F) {
	f.Add(`{"type":"object","properties":{"a":{"type":"integer"}},"required":["a"]}`, uint64(1))
	f.Add(`{"properties":{"a":1},"required":["a","b",3],"$defs":[],"allOf":{}}`, uint64(2))
	f.Add(`{"properties":[],"$schema":7,"$ref":"#"}`, uint64(3))
	f.Fuzz(func(t *testing.T, schema string, seed uint64) {
		var s map[string]any
		if json.Unmarshal([]byte(schema), &s) != nil || s == nil {
			return
		}
		before := mustJSON(t, s)
		for _, name := range fault.Names() {
			f, _ := fault.New(name, json.RawMessage(`{"depth":3,"width":2}`))
			if f == nil {
				f, _ = fault.New(name, nil)
			}
			lf, ok := f.(fault.ListFault)
			if !ok {
				continue
			}
			eff, err := lf.RewriteSchema(context.Background(), &fault.Published{
				Tool: "t", Schema: s, Rand: rand.New(rand.NewPCG(seed, 1<<63)),
				Serve: func(path string, doc any) (string, error) { return "http://127.0.0.1:9" + path, nil },
			})
			if err != nil || eff == nil || eff.Schema == nil {
				t.Fatalf("%s: %v, %+v", name, err, eff)
			}
			if _, err := json.Marshal(eff.Schema); err != nil {
				t.Fatalf("%s made a schema that does not encode: %v", name, err)
			}
			if after := mustJSON(t, s); after != before {
				t.Fatalf("%s changed the schema it was handed:\n%s\nwas\n%s", name, after, before)
			}
		}
	})
}
