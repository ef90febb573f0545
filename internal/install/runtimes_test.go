package install

import (
	"slices"
	"testing"

	"github.com/toolscore/toolscore/scenario"
)

// TestRuntimesAgreeWithTheManifest holds the runtimes a manifest's own client may name (the
// scenario package keeps its list, since it imports nothing internal) to the ones installed.
func TestRuntimesAgreeWithTheManifest(t *testing.T) {
	if !slices.Equal(Runtimes, scenario.Runtimes) {
		t.Errorf("install.Runtimes = %v, scenario.Runtimes = %v: keep them the same", Runtimes, scenario.Runtimes)
	}
}
