package runner

import (
	"strings"
	"testing"

	"github.com/toolscore/toolscore/internal/backend/local"
	"github.com/toolscore/toolscore/scenario"
)

// TestCheckResume: a sweep resumes only with the plan it started with: not with more runs per
// cell, another shard, or a client unavailable now that ran then (or the other way round).
func TestCheckResume(t *testing.T) {
	load := func(runs int) *scenario.Scenario {
		sc, err := scenario.Load("m.yaml", []byte("name: m\nserver: {builtin: ledger}\ntool: t\nfaults: [clean, corrupt]\nschema_modes: [hidden]\nclients: [raw, go-sdk/call]\n"),
			scenario.Known{Faults: []string{"clean", "corrupt"}, Clients: []string{"raw", "go-sdk/call"}})
		if err != nil {
			t.Fatal(err)
		}
		sc.Runs = runs
		return sc
	}
	dir := t.TempDir()
	started := Options{Plan: Plan{Scenario: load(2)}, Backend: local.Backend{}, Out: dir}
	f, err := started.start(started.Results())
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if _, err := started.CheckResume(); err != nil {
		t.Fatalf("the same sweep: %v", err)
	}
	for _, c := range []struct {
		name string
		o    Options
		want string
	}{
		{"more runs", Options{Plan: Plan{Scenario: load(3)}, Backend: local.Backend{}, Out: dir}, "with 2 runs where this sweep has raw|clean|hidden|stdio with 3"},
		{"a shard", Options{Plan: Plan{Scenario: load(2), Shard: 1, Shards: 2}, Backend: local.Backend{}, Out: dir}, `it is shard "" of its sweep, this would be "1/2"`},
		{"unavailable now", Options{Plan: Plan{Scenario: load(2), Unavailable: map[string]string{"raw": "gone"}}, Backend: local.Backend{}, Out: dir}, "its plan has raw|clean|hidden|stdio with 2 runs where this sweep has go-sdk/call"},
		{"no sweep", Options{Plan: Plan{Scenario: load(2)}, Backend: local.Backend{}, Out: t.TempDir()}, "has no sweep.json"},
	} {
		if _, err := c.o.CheckResume(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", c.name, err, c.want)
		}
	}
	unavailable := Options{Plan: Plan{Scenario: load(2), Unavailable: map[string]string{"go-sdk/call": "gone"}}, Backend: local.Backend{}, Out: t.TempDir()}
	f, _ = unavailable.start(unavailable.Results())
	f.Close()
	unavailable.Unavailable = nil
	if _, err := unavailable.CheckResume(); err == nil || !strings.Contains(err.Error(), "was not in its plan") && !strings.Contains(err.Error(), "where this sweep has go-sdk/call") {
		t.Errorf("a client available now that was not then: %v", err)
	}
}
