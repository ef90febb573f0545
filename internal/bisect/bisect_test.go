package bisect

import (
	"reflect"
	"testing"

	"github.com/toolscore/toolscore/internal/registry"
)

// releases is versions as registry.Releases lists them, each marked a pre-release when pre says.
func releases(pre map[string]bool, versions ...string) []registry.Release {
	rs := make([]registry.Release, len(versions))
	for i, v := range versions {
		rs[i] = registry.Release{Version: v, Pre: pre[v]}
	}
	return rs
}

// TestVersionRange checks the range bisect searches: from good to bad in the registry's order,
// pre-releases between them left out, and the errors for versions that are not there.
func TestVersionRange(t *testing.T) {
	npm := releases(map[string]bool{"1.12.0-beta.1": true}, "1.11.0", "1.11.1", "1.12.0-beta.1", "1.12.0", "1.12.1", "1.13.0")
	got, err := VersionRange(npm, "1.11.1", "1.13.0")
	if want := []string{"1.11.1", "1.12.0", "1.12.1", "1.13.0"}; err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("npm range: %v %v, want %v", got, err, want)
	}
	pypi := releases(map[string]bool{"1.10.0rc1": true}, "1.9.0", "1.10.0rc1", "1.10.0", "1.10.0.post1", "1.11.0")
	got, err = VersionRange(pypi, "1.9.0", "1.11.0")
	if want := []string{"1.9.0", "1.10.0", "1.10.0.post1", "1.11.0"}; err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("PyPI range: %v %v, want %v", got, err, want)
	}
	// A pre-release named as good or bad is searched from or to all the same.
	got, err = VersionRange(npm, "1.12.0-beta.1", "1.12.1")
	if want := []string{"1.12.0-beta.1", "1.12.0", "1.12.1"}; err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("range from a pre-release: %v %v, want %v", got, err, want)
	}
	for _, c := range [][2]string{{"1.0.0", "1.13.0"}, {"1.11.0", "9.9.9"}, {"1.13.0", "1.11.0"}} {
		if _, err := VersionRange(npm, c[0], c[1]); err == nil {
			t.Errorf("range %s..%s: no error", c[0], c[1])
		}
	}
}
