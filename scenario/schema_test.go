package scenario

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// schemaFile is the checked-in schema, which CI keeps in step with the types.
var schemaFile = filepath.Join("..", "schema", "scenario.schema.json")

// TestSchemaUpToDate fails when the checked-in schema is stale; run
// UPDATE_SCHEMA=1 go test ./scenario/ to rewrite it.
func TestSchemaUpToDate(t *testing.T) {
	got, err := Schema()
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
		t.Fatalf("%v; run UPDATE_SCHEMA=1 go test ./scenario/ to create it", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is stale; run UPDATE_SCHEMA=1 go test ./scenario/ to rewrite it", schemaFile)
	}
}
