package proxy

import (
	"context"
	"io"
	"os"
	"slices"
	"strings"
	"testing"
)

// TestServerEnv: the server the proxy starts sees the allowlist of the proxy's environment and
// its own Env, not the proxy's other variables (the client contract's, a token).
func TestServerEnv(t *testing.T) {
	t.Setenv("GITHUB_TOKEN", "ghs_canary")
	t.Setenv("TOOLSCORE_SERVER", `["x"]`)
	t.Setenv("LC_ALL", "C.UTF-8")
	var out strings.Builder
	srv := Server{Command: []string{os.Args[0]}, Env: []string{"PROXY_TEST_SERVER=env", "MINE=mine"}}
	if code, err := Run(context.Background(), srv, Config{}, nil, strings.NewReader(""), &out, io.Discard); code != 0 || err != nil {
		t.Fatalf("exit %d, %v", code, err)
	}
	allowed := []string{"PATH", "HOME", "TMPDIR", "LANG", "LC_ALL", "TZ", "TOOLSCORE_AS_MAIN", "GORACE", "GOCOVERDIR", "PROXY_TEST_SERVER", "MINE"}
	var names []string
	for _, kv := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		name, _, _ := strings.Cut(kv, "=")
		names = append(names, name)
		if !slices.Contains(allowed, name) {
			t.Errorf("the server got %q", kv)
		}
	}
	for _, want := range []string{"MINE", "LC_ALL", "PATH"} {
		if !slices.Contains(names, want) {
			t.Errorf("the server did not get %s: %q", want, names)
		}
	}
}
