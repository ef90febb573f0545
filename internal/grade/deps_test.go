package grade

import (
	"os/exec"
	"strings"
	"testing"
)

// TestGradeLinksNoEngine: grading is a pure function of a run's result and transcript, so the
// grader's package links neither the backends nor the Docker Engine client (go list -deps), nor
// the proxy: the transcript it reads is package transcript's, apart from the wire.
func TestGradeLinksNoEngine(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool to list the package's dependencies")
	}
	out, err := exec.Command(goTool, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 || !strings.Contains(string(out), "internal/transcript") {
		t.Fatalf("go list -deps listed %d packages, not the grader's dependencies: %s", len(deps), out)
	}
	for _, p := range deps {
		if strings.Contains(strings.ToLower(p), "docker") || strings.Contains(p, "/internal/backend") || strings.HasSuffix(p, "/internal/cellimage") || strings.HasSuffix(p, "/internal/proxy") {
			t.Errorf("internal/grade links %s", p)
		}
	}
}
