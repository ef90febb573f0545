package main

import (
	"path/filepath"
	"testing"
)

// TestFieldClientsFullProduct sweeps every client and agent of the field over every fault of
// the embedded study, both schema modes, both protocols and both transports on docker, twice a
// cell (nightly only: scripts/nightly sets TOOLSCORE_FULL=1). Each cell's counts are asserted in
// the clients' own sample tests where they are sampled; here every cell must be measured (never
// crashed, hung or unavailable, which would be toolscore's or the adapter's failing, not the
// client's behaviour) and give the same outcome in both runs, so the page built from it states
// what each client does.
func TestFieldClientsFullProduct(t *testing.T) {
	if !fullProduct() {
		t.Skip("the full product of the field's clients runs nightly (TOOLSCORE_FULL=1)")
	}
	engine(t)
	dir, out := t.TempDir(), t.TempDir()
	manifest := filepath.Join(dir, "field.yaml")
	// The embedded study's faults and prompt, every field client, and the time the slowest
	// agent CLIs need in a cell on a busy 2-core machine.
	writeFile(t, manifest, `name: the field's clients
server: {builtin: ledger}
tool: get_account_balance
arguments: {account_id: ACC-4471}
prompt: What is the balance of ledger account ACC-4471? Answer with the amount and currency.
truth: ["40718.77", "4071877"]
faults: [clean, error, rpc-error, empty, truncate, corrupt, {name: corrupt-plausible, decoy_args: {account_id: ACC-4476}}, type-swap, drop-required, wrong-container, {name: latency, latency: 1s}]
schema_modes: [hidden, published]
protocols: [2026-07-28, 2025-11-25]
transports: [stdio, http]
clients: [`+fieldClients+`]
runs: 2
timeout: 180s
`)
	code, _, stderr := runStatic(t, manifest, "--backend", "docker", "--fail-on", "never", "--out", out)
	if code != 0 {
		t.Fatalf("the sweep exited %d:\n%s", code, stderr)
	}
	res := readResultsDir(t, out)
	if len(res.Unavailable) > 0 {
		t.Errorf("clients unavailable: %v", res.Unavailable)
	}
	for _, c := range res.Cells {
		for _, bad := range []string{"crashed", "hung", "unavailable"} {
			if c.Outcome[bad] > 0 {
				t.Errorf("%s: %v (%s)", c.Key(), c.Outcome, filepath.Join(out, "runs.jsonl"))
			}
		}
		if len(c.Outcome) != 1 {
			t.Errorf("%s: %v, not one outcome in both runs", c.Key(), c.Outcome)
		}
	}
}
