package bisect

import (
	"reflect"
	"testing"
)

// TestVersionRange checks the range bisect searches: from good to bad in the registry's order,
// pre-releases between them left out, and the errors for versions that are not there.
func TestVersionRange(t *testing.T) {
	npm := []string{"1.11.0", "1.11.1", "1.12.0-beta.1", "1.12.0", "1.12.1", "1.13.0"}
	got, err := VersionRange(npm, "1.11.1", "1.13.0")
	if want := []string{"1.11.1", "1.12.0", "1.12.1", "1.13.0"}; err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("npm range: %v %v, want %v", got, err, want)
	}
	pypi := []string{"1.9.0", "1.10.0rc1", "1.10.0", "1.10.0.post1", "1.11.0"}
	got, err = VersionRange(pypi, "1.9.0", "1.11.0")
	if want := []string{"1.9.0", "1.10.0", "1.10.0.post1", "1.11.0"}; err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("PyPI range: %v %v, want %v", got, err, want)
	}
	for _, c := range [][2]string{{"1.0.0", "1.13.0"}, {"1.11.0", "9.9.9"}, {"1.13.0", "1.11.0"}} {
		if _, err := VersionRange(npm, c[0], c[1]); err == nil {
			t.Errorf("range %s..%s: no error", c[0], c[1])
		}
	}
}
