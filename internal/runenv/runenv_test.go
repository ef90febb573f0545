package runenv

import (
	"reflect"
	"testing"
)

// TestAllowed keeps the allowlist and drops everything else, whatever its name looks like.
func TestAllowed(t *testing.T) {
	got := Allowed([]string{"PATH=/bin", "GITHUB_TOKEN=ghs_x", "HOME=/h", "INPUT_GITHUB-TOKEN=y", "LC_ALL=C.UTF-8", "LANG=C",
		"TZ=UTC", "TMPDIR=/t", "GORACE=atexit_sleep_ms=0", "TOOLSCORE_SERVER=[]", "TOOLSCORE_MODEL_KEY=k", "PATHEXT=x",
		"LC=x", "GITHUB_ENV=/f", "TOOLSCORE_AS_MAIN=1", "GOCOVERDIR=/c", "=odd"})
	want := []string{"PATH=/bin", "HOME=/h", "LC_ALL=C.UTF-8", "LANG=C", "TZ=UTC", "TMPDIR=/t", "GORACE=atexit_sleep_ms=0",
		"TOOLSCORE_AS_MAIN=1", "GOCOVERDIR=/c"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Allowed = %q, want %q", got, want)
	}
	// exec.Cmd inherits everything when Env is nil.
	if got := Allowed([]string{"GITHUB_TOKEN=x"}); got == nil || len(got) != 0 {
		t.Errorf("Allowed of nothing allowed = %#v, want an empty, non-nil list", got)
	}
}
