package action

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sethvargo/go-githubactions"

	"github.com/toolscore/toolscore/scenario"
)

func TestManifestFile(t *testing.T) {
	ws := t.TempDir()
	if err := os.MkdirAll(filepath.Join(ws, "a"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "a", "m.yaml"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	cwd, _ := os.Getwd()
	for _, tc := range []struct{ path, want string }{
		{filepath.Join(ws, "a", "m.yaml"), "a/m.yaml"},
		{filepath.Join(ws, "a", "..", "a", "m.yaml"), "a/m.yaml"},
		{filepath.Join(ws, "..", "elsewhere.yaml"), ""},
		{"", ""}, // the embedded ledger, in a workspace that is not toolscore's
	} {
		if got := manifestFile(tc.path, ws); got != tc.want {
			t.Errorf("manifestFile(%q) = %q, want %q", tc.path, got, tc.want)
		}
	}
	// In toolscore's own repository the embedded ledger is scenarios/ledger.yaml.
	if got := manifestFile("", filepath.Join(cwd, "..", "..")); got != "scenarios/ledger.yaml" {
		t.Errorf("manifestFile of the embedded ledger in this repository = %q", got)
	}
}

// TestAnnotateUsage: the errors of a manifest that did not load, as scenario.Load returns
// them, are annotated on their lines (nine at most, so one error is left for GitHub's count);
// any other reason is one error that says it.
func TestAnnotateUsage(t *testing.T) {
	ws := t.TempDir()
	path := filepath.Join(ws, "bad.yaml")
	var manifest strings.Builder
	manifest.WriteString("name: bad\nserver: {builtin: ledger}\ntool: t\nfaults:\n")
	for i := range 12 {
		fmt.Fprintf(&manifest, "  - no-such-fault-%d\n", i)
	}
	manifest.WriteString("schema_modes: [hidden]\nclients: [raw]\n")
	_, loadErr := scenario.Load(path, []byte(manifest.String()), scenario.Known{Faults: []string{"clean"}, Clients: []string{"raw"}, Builtins: []string{"ledger"}})
	if n := len(scenario.Errors(loadErr)); n < 12 {
		t.Fatalf("the manifest gave %d errors, want 12 or more: %v", n, loadErr)
	}
	for _, tc := range []struct {
		name string
		err  error
		want []string
	}{
		{"manifest", loadErr, []string{
			`::error col=5,file=bad.yaml,line=5,title=toolscore%3A manifest error::faults[0]: unknown fault "no-such-fault-0" (known: clean)`,
			`::error col=5,file=bad.yaml,line=13,title=toolscore%3A manifest error::faults[8]: unknown fault "no-such-fault-8" (known: clean)`,
		}},
		{"other", fmt.Errorf("--shard \"4/3\": want 1 ≤ i ≤ n\nsecond line"), []string{
			"::error::toolscore: nothing ran: a usage or manifest error, printed in the group above: --shard \"4/3\": want 1 ≤ i ≤ n",
		}},
		{"none", nil, []string{"::error::toolscore: nothing ran: a usage or manifest error, printed in the group above"}},
		{"wrapped", fmt.Errorf("loading: %w", errors.Join(scenario.Errors(loadErr)[0])), []string{
			`::error col=5,file=bad.yaml,line=5,title=toolscore%3A manifest error::faults[0]: unknown fault "no-such-fault-0" (known: clean)`,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			st := &step{gha: githubactions.New(githubactions.WithWriter(&out)), workspace: ws}
			st.annotateUsage(tc.err)
			lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
			if tc.name == "manifest" {
				if len(lines) != 9 || lines[0] != tc.want[0] || lines[8] != tc.want[1] {
					t.Errorf("%d annotations:\n%s\nwant 9, from\n%s\nto\n%s", len(lines), out.String(), tc.want[0], tc.want[1])
				}
				return
			}
			if strings.Join(lines, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("annotations:\n%s\nwant:\n%s", out.String(), strings.Join(tc.want, "\n"))
			}
		})
	}
}
