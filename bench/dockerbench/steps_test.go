package main

import (
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/toolscore/toolscore/bench/internal/enginebench"
	"github.com/toolscore/toolscore/internal/backend/docker"
)

// TestCellConfigIsTheBackends: the container the benchmark times for each run of its plan is
// the one docker.Backend.Run creates for it (docker.CellConfig with the default sandbox), but
// for the labels that keep it out of every sweep's hands.
func TestCellConfigIsTheBackends(t *testing.T) {
	sc, err := loadScenario(2)
	if err != nil {
		t.Fatal(err)
	}
	o, jobs, err := plan(sc)
	if err != nil {
		t.Fatal(err)
	}
	if want := len(sc.Cells()) * 2; len(jobs) != want {
		t.Fatalf("the plan has %d runs, want %d", len(jobs), want)
	}
	for _, j := range jobs {
		spec, _ := o.Spec(j, t.TempDir())
		cfg, host := cellConfig("toolscore/cell-builtin:x", spec)
		wantCfg, wantHost := docker.CellConfig("toolscore/cell-builtin:x", docker.Sandbox{}, spec)
		if !reflect.DeepEqual(host, wantHost) {
			t.Fatalf("%s run %d: host config\n %+v\nwant\n %+v", j.Cell.Key(), j.Run, host, wantHost)
		}
		if cfg.Labels[docker.LabelMarker] != "" || cfg.Labels[enginebench.Label+".owner"] == "" {
			t.Fatalf("%s run %d: labels %v, want the benchmark's and not %s", j.Cell.Key(), j.Run, cfg.Labels, docker.LabelMarker)
		}
		for _, l := range []string{docker.LabelCell, docker.LabelRun} {
			if cfg.Labels[l] != wantCfg.Labels[l] {
				t.Fatalf("%s run %d: label %s is %q, want %q", j.Cell.Key(), j.Run, l, cfg.Labels[l], wantCfg.Labels[l])
			}
		}
		got, _ := strconv.ParseInt(cfg.Labels[docker.LabelDeadline], 10, 64)
		want, _ := strconv.ParseInt(wantCfg.Labels[docker.LabelDeadline], 10, 64)
		if d := time.Duration(want-got) * time.Second; d < 0 || d > 2*time.Second {
			t.Fatalf("%s run %d: deadline %d, want about %d", j.Cell.Key(), j.Run, got, want)
		}
		cfg.Labels, wantCfg.Labels = nil, nil
		if !reflect.DeepEqual(cfg, wantCfg) {
			t.Fatalf("%s run %d: config\n %+v\nwant\n %+v", j.Cell.Key(), j.Run, cfg, wantCfg)
		}
	}
}
