package scenario

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStarterHostile: a server's names, descriptions and schema text cannot add keys to the
// starter, and the manifest reads back with the tool's name as the server gave it.
func TestStarterHostile(t *testing.T) {
	name := "get: {x}\n\"'#"
	st := Starter{Name: "hostile\nfaults: []", Server: Server{Command: []string{"srv", "--flag: x"}}, Tools: []StarterTool{{
		Name:        name,
		Description: "line one\nschema_modes: [as-is]\r\n\u202e# tail",
		InputSchema: map[string]any{
			"type":     "object",
			"required": []any{"a\nb: c", "n", "mode", "filled"},
			"properties": map[string]any{
				"n":      map[string]any{"type": "integer", "description": "count\nruns: 99"},
				"mode":   map[string]any{"enum": []any{"fast", "slow"}},
				"filled": map[string]any{"type": "object", "required": []any{"k"}, "properties": map[string]any{"k": map[string]any{"default": 7}}},
			},
		},
	}}}
	b, err := st.Write()
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.ContainsRune(l, '\u202e') || strings.HasPrefix(l, "schema_modes: [as-is]") || strings.HasPrefix(l, "runs: 99") {
			t.Errorf("hostile text escaped its line: %q", l)
		}
	}
	_, err = Load("starter.yaml", b, Known{})
	if err == nil || !strings.Contains(err.Error(), "fill this in") {
		t.Fatalf("the unfilled starter loaded: %v", err)
	}
	filled := strings.NewReplacer(`"FILL IN: a b: c"`, `"x"`, `"FILL IN: n, count runs: 99 (integer)"`, `3`).Replace(string(b))
	sc, err := Load("starter.yaml", []byte(filled), Known{})
	if err != nil {
		t.Fatalf("%v\n%s", err, filled)
	}
	if sc.Tool != name || sc.Name != "hostile\nfaults: []" || len(sc.Faults) != 7 || len(sc.SchemaModes) != 1 {
		t.Errorf("read back tool %q, name %q, %d faults, modes %v", sc.Tool, sc.Name, len(sc.Faults), sc.SchemaModes)
	}
	if sc.Arguments["mode"] != "fast" || sc.Arguments["filled"].(map[string]any)["k"] != uint64(7) && sc.Arguments["filled"].(map[string]any)["k"] != int64(7) {
		t.Errorf("arguments %v; want mode from the enum, filled.k from its default", sc.Arguments)
	}
}

// TestStarterOwnClientLoads uncomments the starter's example of a client of one's own and loads
// it beside its adapter: the example a user copies is a client the loader takes.
func TestStarterOwnClientLoads(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "my_adapter.py"), []byte("print()\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var example []string
	for _, l := range strings.Split(OwnClientExample, "\n") {
		if rest, ok := strings.CutPrefix(l, "  # "); ok && (strings.HasPrefix(rest, "- ") || strings.HasPrefix(rest, "  ")) {
			example = append(example, "  "+rest)
		}
	}
	manifest := "name: t\nserver: {builtin: ledger}\ntool: get_balance\nfaults: [clean]\nschema_modes: [hidden]\nclients:\n" + strings.Join(example, "\n") + "\n"
	sc, err := Load(filepath.Join(dir, "scenario.yaml"), []byte(manifest), known)
	if err != nil {
		t.Fatalf("%v\n%s", err, manifest)
	}
	if c := sc.Clients[0]; !c.Defined() || c.Name != "my-client" || len(c.Install) != 1 {
		t.Errorf("the example read back as %+v", c)
	}
}

// TestStarterMentionsVolatile (issue 52, item 5): a starter says by each tool what volatile is
// for, the key commented out; uncommented, it loads as the tool's volatile list, in the
// single-tool form and under tools:.
func TestStarterMentionsVolatile(t *testing.T) {
	tool := func(name string) StarterTool {
		return StarterTool{Name: name, InputSchema: map[string]any{"type": "object"}}
	}
	for _, tools := range [][]StarterTool{{tool("one")}, {tool("one"), tool("two")}} {
		b, err := Starter{Name: "v", Server: Server{Command: []string{"srv"}}, Tools: tools}.Write()
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(b), VolatileExample); n != len(tools) {
			t.Fatalf("%d tools, %d commented volatile keys:\n%s", len(tools), n, b)
		}
		filled := strings.ReplaceAll(string(b), VolatileExample, strings.TrimPrefix(VolatileExample, "# "))
		sc, err := Load("starter.yaml", []byte(filled), Known{})
		if err != nil {
			t.Fatalf("%v\n%s", err, filled)
		}
		for _, c := range sc.Calls() {
			if len(c.Volatile) != 1 || c.Volatile[0] != "/structuredContent/as_of" {
				t.Errorf("tool %s: volatile %v", c.Name, c.Volatile)
			}
		}
	}
}
