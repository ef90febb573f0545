package grade

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// graderSources are the packages whose code decides a run's outcome from the same bytes: the
// grader, the faults, the proxy that applies them and the transcript the grader reads.
var graderSources = []string{".", "../../fault", "../proxy", "../transcript"}

// sourceHash is the SHA-256 of the non-test Go files of graderSources, in order.
func sourceHash(t *testing.T) string {
	t.Helper()
	h := sha256.New()
	for _, dir := range graderSources {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(files)
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(h, "%s %d\n", filepath.ToSlash(f), len(b))
			h.Write(b)
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// TestGraderVersionBumped: the grader's, the faults' and the proxy's source is what it was when
// GraderVersion was last set. When it fails: if the change can grade or fault the same bytes
// differently, bump GraderVersion; either way write the new hash (UPDATE_GRADER_HASH=1 go test
// ./internal/grade -run TestGraderVersionBumped) in the same commit.
func TestGraderVersionBumped(t *testing.T) {
	const file = "testdata/grader-version.txt"
	now := fmt.Sprintf("%d %s\n", GraderVersion, sourceHash(t))
	if os.Getenv("UPDATE_GRADER_HASH") == "1" {
		if err := os.WriteFile(file, []byte(now), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	was, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var wasVersion int
	var wasHash string
	fmt.Sscanf(string(was), "%d %s", &wasVersion, &wasHash)
	switch {
	case wasHash == sourceHash(t) && wasVersion == GraderVersion:
	case wasHash == sourceHash(t):
		t.Errorf("GraderVersion is %d, %s says %d for the same source: run UPDATE_GRADER_HASH=1 go test ./internal/grade -run TestGraderVersionBumped", GraderVersion, file, wasVersion)
	default:
		t.Errorf("the grader's, the faults' or the proxy's source changed since GraderVersion %d was set (%s): cached cells would be reused as if graded by the old code. Bump GraderVersion if the change can grade or fault the same bytes differently, and update the hash: UPDATE_GRADER_HASH=1 go test ./internal/grade -run TestGraderVersionBumped", wasVersion, file)
	}
}
