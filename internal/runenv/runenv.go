package runenv

import (
	"slices"
	"strings"
)

// Names are the variables of the environment a process of a run starts from that it keeps:
// the search path, the home and temporary directories (the run's own: the backend sets them),
// and the locale.
var Names = []string{"PATH", "HOME", "TMPDIR", "LANG", "TZ"}

// Self are the variables the toolscore binary itself needs to start, kept too because the
// adapter, the proxy and a builtin server are that binary: its test binary stands in for it
// only with TOOLSCORE_AS_MAIN=1, a race-instrumented build sleeps 1 s at every exit unless
// GORACE says atexit_sleep_ms=0, and a coverage build writes its counters to GOCOVERDIR.
var Self = []string{"TOOLSCORE_AS_MAIN", "GORACE", "GOCOVERDIR"}

// Allowed keeps of environ (NAME=value lines) only Names, LC_* and Self. The result is never
// nil: an exec.Cmd with a nil Env inherits the whole environment.
func Allowed(environ []string) []string {
	out := []string{}
	for _, kv := range environ {
		if k, _, _ := strings.Cut(kv, "="); kept(k) {
			out = append(out, kv)
		}
	}
	return out
}

// kept says whether the variable name is one Allowed keeps.
func kept(name string) bool {
	return strings.HasPrefix(name, "LC_") || slices.Contains(Names, name) || slices.Contains(Self, name)
}
