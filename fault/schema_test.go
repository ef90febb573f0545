package fault_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/toolscore/toolscore/fault"
)

// readingSchema is an outputSchema whose object (and so its required fields) sits under a $ref,
// with a field of union type, itself a $ref: the shapes pydantic and hand-written schemas take.
const readingSchema = `{"$ref":"#/$defs/Reading","$defs":{
  "Reading":{"type":"object","required":["id","value"],"properties":{
    "id":{"type":"string"},"value":{"$ref":"#/$defs/Num"},"note":{"type":"string"},"unit":{"type":"string"}}},
  "Num":{"type":["integer","string"]}}}`

// reading is a result that has the two required fields and two optional ones.
const reading = `{"content":[{"type":"text","text":"r-1: 42 mm"}],"structuredContent":{"id":"r-1","value":42,"note":"calm","unit":"mm"}}`

// applyTo runs the named fault with seed on result, given the schema (empty: none).
func applyTo(t *testing.T, name, options, schema, result string, seed uint64) *fault.Effect {
	t.Helper()
	f, err := fault.New(name, json.RawMessage(options))
	if err != nil {
		t.Fatal(err)
	}
	r, err := decode([]byte(result))
	if err != nil {
		t.Fatal(err)
	}
	c := &fault.Call{Tool: "read", Result: r, Rand: rand.New(rand.NewPCG(seed, 1))}
	if schema != "" {
		if err := json.Unmarshal([]byte(schema), &c.Schema); err != nil {
			t.Fatal(err)
		}
		c.SchemaFrom = "the server's tools/list"
	} else {
		c.SchemaFrom = "the server publishes none and the manifest sets none"
	}
	eff, err := f.Apply(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	return eff
}

// dropped returns the field drop-required took out, checking it is gone from the result.
func dropped(t *testing.T, eff *fault.Effect) string {
	t.Helper()
	if eff.Result == nil || len(eff.Introduced) != 1 {
		t.Fatalf("nothing dropped: %+v", eff)
	}
	field := strings.TrimPrefix(eff.Introduced[0].Path, "structuredContent.")
	if _, still := eff.Result["structuredContent"].(map[string]any)[field]; still {
		t.Fatalf("%s is said dropped but is still there", field)
	}
	return field
}

// TestDropRequiredFollowsRefs: with required under a $ref (under $defs, definitions or allOf),
// every seed drops a required field, never an optional one, and the seeds reach each required
// one; without a note, since the fault did what it says.
func TestDropRequiredFollowsRefs(t *testing.T) {
	for name, schema := range map[string]string{
		"$defs":       readingSchema,
		"definitions": strings.ReplaceAll(readingSchema, "$defs", "definitions"),
		"allOf":       `{"allOf":[{"$ref":"#/$defs/Base"}],"properties":{"unit":{"type":"string"}},"$defs":{"Base":{"required":["id"],"allOf":[{"required":["value"]}]}}}`,
		"escaped":     `{"$ref":"#/$defs/a~1b%20c","$defs":{"a/b c":{"required":["id","value"]}}}`,
	} {
		t.Run(name, func(t *testing.T) {
			seen := map[string]bool{}
			for seed := uint64(1); seed <= 40; seed++ {
				eff := applyTo(t, "drop-required", "", schema, reading, seed)
				field := dropped(t, eff)
				if field != "id" && field != "value" {
					t.Fatalf("seed %d dropped %q, which the schema does not require", seed, field)
				}
				if eff.Note != "" {
					t.Errorf("seed %d: a note where the fault did what it says: %s", seed, eff.Note)
				}
				seen[field] = true
			}
			if !seen["id"] || !seen["value"] {
				t.Errorf("40 seeds dropped only %v", seen)
			}
		})
	}
}

// TestDropRequiredWithoutSchema: with no schema the fault still drops a field, picked among all
// of the result's, and its note says there was no schema, why, and what it dropped.
func TestDropRequiredWithoutSchema(t *testing.T) {
	seen := map[string]bool{}
	for seed := uint64(1); seed <= 40; seed++ {
		eff := applyTo(t, "drop-required", "", "", reading, seed)
		field := dropped(t, eff)
		seen[field] = true
		want := `no outputSchema for read (the server publishes none and the manifest sets none): dropped "` + field + `", picked at random among the result's fields`
		if eff.Note != want {
			t.Errorf("note %q\nwant %q", eff.Note, want)
		}
	}
	if len(seen) != 4 {
		t.Errorf("40 seeds dropped only %v of the 4 fields", seen)
	}
	// A schema that requires none of the result's fields leaves the answer, and says so.
	eff := applyTo(t, "drop-required", "", `{"type":"object","required":["elsewhere"]}`, reading, 1)
	if eff.Result != nil || !strings.Contains(eff.Note, "requires none of the result's fields") {
		t.Errorf("with nothing required: %+v", eff)
	}
	// A $ref cycle ends; it requires nothing it can reach.
	eff = applyTo(t, "drop-required", "", `{"$ref":"#/$defs/a","$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}}}`, reading, 1)
	if eff.Result != nil || !strings.Contains(eff.Note, "requires none") {
		t.Errorf("with a $ref cycle: %+v", eff)
	}
}

// swappedTo returns the field type-swap changed and its new value as JSON.
func swappedTo(t *testing.T, eff *fault.Effect) (string, string) {
	t.Helper()
	if eff.Result == nil || len(eff.Introduced) != 1 {
		t.Fatalf("nothing swapped: %+v", eff)
	}
	in := eff.Introduced[0]
	b, _ := json.Marshal(in.Value)
	return strings.TrimPrefix(in.Path, "structuredContent."), string(b)
}

// TestTypeSwapLeavesTheUnion: a field of type [integer, string] (under a $ref) becomes a type
// outside the union, not the string of its digits the schema still allows; anyOf and oneOf count
// as unions; where even the array is allowed, null; the seed picks among the required fields.
func TestTypeSwapLeavesTheUnion(t *testing.T) {
	for _, tc := range []struct{ name, schema, field, value string }{
		{"union under a $ref", readingSchema, "value", `[42]`},
		{"plain integer", strings.Replace(readingSchema, `"type":["integer","string"]`, `"type":"integer"`, 1), "value", `"42"`},
		{"anyOf", strings.Replace(readingSchema, `"type":["integer","string"]`, `"anyOf":[{"type":"integer"},{"$ref":"#/$defs/S"}]},"S":{"type":"string"`, 1), "value", `[42]`},
		{"oneOf with array", strings.Replace(readingSchema, `"type":["integer","string"]`, `"oneOf":[{"type":"number"},{"type":["string","array"]}]`, 1), "value", `null`},
		// value allows any type: the string id is the one a swap can break.
		{"value open", strings.Replace(readingSchema, `"type":["integer","string"]`, `"description":"anything"`, 1), "id", `["r-1"]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for seed := uint64(1); seed <= 10; seed++ {
				eff := applyTo(t, "type-swap", "", tc.schema, reading, seed)
				field, value := swappedTo(t, eff)
				if field != tc.field || value != tc.value || eff.Note != "" {
					t.Fatalf("seed %d: %s became %s (note %q); want %s to become %s, no note", seed, field, value, eff.Note, tc.field, tc.value)
				}
			}
		})
	}
	// A field named by the option also leaves its union.
	if field, value := swappedTo(t, applyTo(t, "type-swap", `{"field":"value"}`, readingSchema, reading, 1)); field != "value" || value != `[42]` {
		t.Errorf("field option: %s became %s, want value [42]", field, value)
	}
}

// TestTypeSwapSaysWhenItCannotBreak: with no schema, or one that constrains no field's type,
// the fault swaps the way it always does and its note says the schema does not rule it out.
func TestTypeSwapSaysWhenItCannotBreak(t *testing.T) {
	eff := applyTo(t, "type-swap", "", "", reading, 1)
	if field, value := swappedTo(t, eff); field != "value" || value != `"42"` {
		t.Errorf("no schema: %s became %s, want value \"42\"", field, value)
	}
	if want := `no outputSchema for read (the server publishes none and the manifest sets none): swapped "value", picked at random among the result's fields (numbers first)`; eff.Note != want {
		t.Errorf("note %q\nwant %q", eff.Note, want)
	}
	eff = applyTo(t, "type-swap", "", `{"type":"object","required":["id","value"],"properties":{"value":{}}}`, reading, 1)
	if field, _ := swappedTo(t, eff); field != "value" || !strings.Contains(eff.Note, "constrains the type of none of the result's fields") {
		t.Errorf("open schema: swapped %s, note %q", field, eff.Note)
	}
	eff = applyTo(t, "type-swap", `{"field":"value"}`, `{"properties":{"value":{"type":["integer","string","array","null"]}}}`, reading, 1)
	if _, value := swappedTo(t, eff); value != `"42"` || !strings.Contains(eff.Note, "still conforms") {
		t.Errorf("every swap allowed: %s, note %q", value, eff.Note)
	}
	if !slices.Contains(fault.Names(), "type-swap") || !fault.UsesSchema(mustNew(t, "type-swap")) || !fault.UsesSchema(mustNew(t, "drop-required")) || fault.UsesSchema(mustNew(t, "corrupt")) {
		t.Error("UsesSchema: want true for type-swap and drop-required only")
	}
}

func mustNew(t *testing.T, name string) fault.Fault {
	t.Helper()
	f, err := fault.New(name, nil)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestSchemaBomb: a composition bomb (each of 40 definitions an anyOf of two $refs to the next:
// 2^40 paths) is cut off, and the field counted as open, instead of taking for ever.
func TestSchemaBomb(t *testing.T) {
	var defs []string
	for i := range 40 {
		defs = append(defs, fmt.Sprintf(`"d%d":{"anyOf":[{"$ref":"#/$defs/d%d"},{"$ref":"#/$defs/d%d"}]}`, i, i+1, i+1))
	}
	defs = append(defs, `"d40":{"type":"integer"}`)
	schema := `{"required":["id","value"],"properties":{"id":{"type":"string"},"value":{"$ref":"#/$defs/d0"}},"$defs":{` + strings.Join(defs, ",") + `}}`
	if field, value := swappedTo(t, applyTo(t, "type-swap", "", schema, reading, 1)); field != "id" || value != `["r-1"]` {
		t.Errorf("swapped %s to %s; want the id, the one field whose type could be read", field, value)
	}
}

// FuzzSchemaFaults: whatever the schema and the result, the schema faults neither panic nor
// loop, and what they say they put somewhere is there.
func FuzzSchemaFaults(f *testing.F) {
	f.Add(readingSchema, reading, uint64(1))
	f.Add(`{"$ref":"#","allOf":[{"$ref":"#/allOf/0"}],"properties":{"value":{"type":[]}}}`, reading, uint64(2))
	f.Add(`{"required":[1,"a"],"properties":{"a":{"oneOf":[]}}}`, `{"structuredContent":{"a":null}}`, uint64(3))
	f.Add(`{"properties":{"a":{"type":["string","array"]}}}`, `{"structuredContent":{"a":1}}`, uint64(4))
	f.Fuzz(func(t *testing.T, schema, result string, seed uint64) {
		r, err := decode([]byte(result))
		if err != nil || r == nil {
			return
		}
		var s map[string]any
		_ = json.Unmarshal([]byte(schema), &s)
		for _, name := range []string{"drop-required", "type-swap", "schema-drift"} {
			c := &fault.Call{Tool: "t", Result: r, Schema: s, Rand: rand.New(rand.NewPCG(seed, 1))}
			eff, err := mustNew(t, name).Apply(context.Background(), c)
			if err != nil {
				t.Fatal(err)
			}
			if eff.Result == nil {
				continue
			}
			for i, in := range eff.Introduced {
				got, ok := eff.Result["structuredContent"].(map[string]any)[strings.TrimPrefix(in.Path, "structuredContent.")]
				// type-swap puts a value, drop-required takes one away, schema-drift puts the value
				// under its new name and then takes the old one away.
				if fmt.Sprint(got) != fmt.Sprint(in.Value) || ok != (name == "type-swap" || name == "schema-drift" && i == 0) {
					t.Fatalf("%s says it put %v at %s, the result has %v", name, in.Value, in.Path, got)
				}
			}
		}
	})
}
