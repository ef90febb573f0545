package action

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
)

// TestPinActionImage: scripts/pin-action-image, which the release workflow runs on the release's
// commit, turns action.yml's `image: Dockerfile` into the prebuilt image by digest and changes
// nothing else; an image named by a tag alone, or an action.yml already pinned, is refused.
func TestPinActionImage(t *testing.T) {
	orig, err := os.ReadFile("../../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "action.yml")
	if err := os.WriteFile(file, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	pin := func(ref string) (string, error) {
		out, err := exec.Command("../../scripts/pin-action-image", ref, file).CombinedOutput()
		return string(out), err
	}
	if out, err := pin("ghcr.io/org/toolscore:v1.2.3"); err == nil || !strings.Contains(out, "not an image pinned by digest") {
		t.Errorf("a tag alone: %v %s", err, out)
	}
	ref := "ghcr.io/org/toolscore@sha256:" + strings.Repeat("ab", 32)
	if out, err := pin(ref); err != nil {
		t.Fatalf("pinning: %v %s", err, out)
	}
	got, _ := os.ReadFile(file)
	var a struct {
		Runs struct {
			Using string   `yaml:"using"`
			Image string   `yaml:"image"`
			Args  []string `yaml:"args"`
		} `yaml:"runs"`
	}
	if err := yaml.Unmarshal(got, &a); err != nil {
		t.Fatal(err)
	}
	if a.Runs.Using != "docker" || a.Runs.Image != "docker://"+ref || len(a.Runs.Args) != 1 || a.Runs.Args[0] != "action" {
		t.Errorf("runs: %+v", a.Runs)
	}
	if want := strings.Replace(string(orig), "  image: Dockerfile\n", "  image: docker://"+ref+"\n", 1); string(got) != want {
		t.Error("pinning changed more than the image line")
	}
	if out, err := pin(ref); err == nil || !strings.Contains(out, "want exactly 1") {
		t.Errorf("pinning twice: %v %s", err, out)
	}
	wf, err := os.ReadFile("../../.github/workflows/release.yml")
	if err != nil || !strings.Contains(string(wf), `scripts/pin-action-image "$REF"`) {
		t.Errorf("the release workflow does not pin the action's image (%v)", err)
	}
}
