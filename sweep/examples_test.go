package sweep_test

import (
	"path/filepath"
	"testing"

	"github.com/toolscore/toolscore/sweep"
)

// TestExampleScenariosLoad loads every manifest in scenarios/ as toolscore run does, so an
// example never drifts from what the loader takes.
func TestExampleScenariosLoad(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("..", "scenarios", "*.yaml"))
	if err != nil || len(paths) < 2 {
		t.Fatalf("scenarios: %v %v", paths, err)
	}
	for _, p := range paths {
		sc, err := sweep.Load(p)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		if sc.CellCount() == 0 || len(sc.Cells()) != sc.CellCount() {
			t.Errorf("%s: %d cells, CellCount %d", p, len(sc.Cells()), sc.CellCount())
		}
	}
}
