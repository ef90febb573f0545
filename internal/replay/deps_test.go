package replay

import (
	"os/exec"
	"strings"
	"testing"
)

// TestReplayLinksNoProxy: the replayer reads a recording through package transcript, apart from
// the wire, so it links no proxy package (go list -deps).
func TestReplayLinksNoProxy(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool to list the package's dependencies")
	}
	out, err := exec.Command(goTool, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	if !strings.Contains(string(out), "internal/transcript") {
		t.Fatalf("go list -deps did not list the replayer's dependencies: %s", out)
	}
	for _, p := range strings.Fields(string(out)) {
		if strings.HasSuffix(p, "/internal/proxy") {
			t.Errorf("internal/replay links %s", p)
		}
	}
}
