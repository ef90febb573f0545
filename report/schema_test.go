package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	googleschema "github.com/google/jsonschema-go/jsonschema"

	"github.com/toolscore/toolscore/record"
	"github.com/toolscore/toolscore/tally"
)

// schemaFile is the checked-in schema, which CI keeps in step with the types.
var schemaFile = filepath.Join("..", "schema", "results.schema.json")

// TestSchemaUpToDate fails when the checked-in schema is stale; run
// UPDATE_SCHEMA=1 go test ./report/ to rewrite it.
func TestSchemaUpToDate(t *testing.T) {
	got, err := ResultsSchema()
	if err != nil {
		t.Fatal(err)
	}
	if os.Getenv("UPDATE_SCHEMA") == "1" {
		if err := os.WriteFile(schemaFile, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(schemaFile)
	if err != nil {
		t.Fatalf("%v; run UPDATE_SCHEMA=1 go test ./report/ to create it", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is stale; run UPDATE_SCHEMA=1 go test ./report/ to rewrite it", schemaFile)
	}
}

// TestJSONMatchesSchema validates what JSON writes against the generated schema, so the schema
// describes the real results.json and not only the Go types.
func TestJSONMatchesSchema(t *testing.T) {
	raw, err := ResultsSchema()
	if err != nil {
		t.Fatal(err)
	}
	var s googleschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	resolved, err := s.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	for name, r := range map[string]*tally.Results{
		"sample": sample(),
		"empty":  {Scenario: "s"},
		"unrun":  {Scenario: "s", Cells: []*tally.Cell{{Cell: record.Cell{Client: "raw", Fault: "clean", Schema: "hidden", Transport: "stdio"}, Planned: 3}}},
	} {
		var b bytes.Buffer
		if err := JSON(&b, r); err != nil {
			t.Fatal(err)
		}
		var v any
		if err := json.Unmarshal(b.Bytes(), &v); err != nil {
			t.Fatal(err)
		}
		if err := resolved.Validate(v); err != nil {
			t.Errorf("%s: results.json does not match its schema: %v", name, err)
		}
	}
	// A schema that accepted anything would pass the above.
	if err := resolved.Validate(map[string]any{"scenario": 1}); err == nil {
		t.Error("the schema accepts a results.json whose scenario is a number")
	}
}

// TestHistorySchema keeps schema/history.schema.json in step with tally.History (rewrite it
// with UPDATE_SCHEMA=1 go test ./report/) and validates a history against it.
func TestHistorySchema(t *testing.T) {
	got, err := HistorySchema()
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join("..", "schema", "history.schema.json")
	if os.Getenv("UPDATE_SCHEMA") == "1" {
		if err := os.WriteFile(file, got, 0o644); err != nil {
			t.Fatal(err)
		}
	} else if want, err := os.ReadFile(file); err != nil || !bytes.Equal(got, want) {
		t.Errorf("%s is missing or stale (%v); run UPDATE_SCHEMA=1 go test ./report/ to rewrite it", file, err)
	}
	var s googleschema.Schema
	if err := json.Unmarshal(got, &s); err != nil {
		t.Fatal(err)
	}
	resolved, err := s.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(handHistory())
	var v any
	_ = json.Unmarshal(b, &v)
	if err := resolved.Validate(v); err != nil {
		t.Errorf("a history does not validate against its schema: %v", err)
	}
}
