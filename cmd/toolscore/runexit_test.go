package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunExitCodes: a bad manifest stops before anything runs (exit 2, file:line:col and the
// field named); an expect entry that does not hold is exit 1, and the summary names it.
func TestRunExitCodes(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("name: x\nserver: {builtin: ledger}\ntool: get_account_balance\nfaults: [clean, corupt]\nschema_modes: [hidden]\nclients: [raw]\n"), 0o644)
	unmet := filepath.Join(dir, "unmet.yaml")
	os.WriteFile(unmet, []byte(`name: unmet
server: {builtin: ledger}
tool: get_account_balance
arguments: {account_id: ACC-4471}
faults: [corrupt]
schema_modes: [hidden]
clients: [raw]
runs: 2
expect:
  - {client: raw, fault: corrupt, outcome: threw}
`), 0o644)
	// The billion laughs in arguments (10^9 strings expanded), and a manifest over the size limit.
	bomb := filepath.Join(dir, "bomb.yaml")
	var b strings.Builder
	b.WriteString("name: bomb\nserver: {builtin: ledger}\ntool: get_account_balance\nfaults: [clean]\nschema_modes: [hidden]\nclients: [raw]\narguments:\n  l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
	for i := 1; i < 9; i++ {
		fmt.Fprintf(&b, "  l%d: &l%d [%s]\n", i, i, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*l%d, ", i-1), 10), ", "))
	}
	os.WriteFile(bomb, []byte(b.String()), 0o644)
	huge := filepath.Join(dir, "huge.yaml")
	os.WriteFile(huge, []byte("name: huge\n# "+strings.Repeat("x", 2<<20)+"\n"), 0o644)
	for _, tc := range []struct {
		name, manifest string
		code           int
		stderr, stdout string
	}{
		{"bad manifest", bad, 2, bad + ":4:17: faults[1]: unknown fault \"corupt\"", ""},
		{"unmet expectation", unmet, 1, "", "expect"},
		{"missing file", filepath.Join(dir, "nope.yaml"), 2, "nope.yaml", ""},
		{"alias bomb", bomb, 2, bomb + ":12:12: arguments.l4[0]: aliases expand the manifest by more than 64 KiB here", ""},
		{"huge manifest", huge, 2, huge + ":1:1: the manifest is 2 MiB, over the limit of 128 KiB", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := t.TempDir()
			cmd := exec.Command(os.Args[0], "run", tc.manifest, "--backend", "local", "--out", out)
			var stdout, stderr strings.Builder
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			code := exitCode(cmd.Run())
			if code != tc.code || !strings.Contains(stderr.String(), tc.stderr) || !strings.Contains(stdout.String(), tc.stdout) {
				t.Errorf("exit %d (want %d)\nstderr: %s\nstdout: %s\nwant stderr to hold %q, stdout %q", code, tc.code, stderr.String(), stdout.String(), tc.stderr, tc.stdout)
			}
			if tc.code == 2 {
				if _, err := os.Stat(filepath.Join(out, "runs.jsonl")); err == nil {
					t.Error("a bad manifest still ran something")
				}
			}
		})
	}
}
