package registry

import (
	"context"
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"
)

// need skips the test where the registry's client is missing, or fails it when the variable
// that requires that client is set, as scripts/test sets them all.
func need(t *testing.T, command, require string) {
	t.Helper()
	if _, err := exec.LookPath(command); err != nil {
		if os.Getenv(require) != "" {
			t.Fatalf("%s is not installed, and %s is set", command, require)
		}
		t.Skipf("%s is not installed", command)
	}
}

// check asks the real registry for pkg's releases, through this machine's settings, and checks
// that want's versions are there in this order, each a release dated within the years given
// (dated false: the registry serves no dates, so none is checked).
func check(t *testing.T, registry, pkg string, want []string, dated bool, from, to int) []Release {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	rs, err := Releases(ctx, registry, pkg)
	if err != nil {
		t.Fatal(err)
	}
	last := -1
	for _, w := range want {
		i := slices.IndexFunc(rs, func(r Release) bool { return r.Version == w })
		switch {
		case i < 0:
			t.Fatalf("%s %s: no version %s among %d", registry, pkg, w, len(rs))
		case i <= last:
			t.Errorf("%s %s: %s at %d, not after %s at %d", registry, pkg, w, i, rs[last].Version, last)
		}
		last = i
		r := rs[i]
		if r.Pre {
			t.Errorf("%s %s %s: marked a pre-release", registry, pkg, w)
		}
		if !dated {
			continue
		}
		if r.Published == nil {
			t.Errorf("%s %s %s: no publish date", registry, pkg, w)
		} else if y := r.Published.Year(); y < from || y > to {
			t.Errorf("%s %s %s: published %v, want %d to %d", registry, pkg, w, r.Published, from, to)
		}
	}
	return rs
}

// hasPre checks that the version is listed as a pre-release.
func hasPre(t *testing.T, rs []Release, v string) {
	t.Helper()
	i := slices.IndexFunc(rs, func(r Release) bool { return r.Version == v })
	if i < 0 || !rs[i].Pre {
		t.Errorf("%s: not listed as a pre-release (at %d)", v, i)
	}
}

func TestNPM(t *testing.T) {
	need(t, "npm", "TOOLSCORE_REQUIRE_NPM")
	rs := check(t, "npm", "@modelcontextprotocol/sdk", []string{"1.11.3", "1.11.4", "1.11.5", "1.12.0"}, true, 2025, 2026)
	// 1.11.5 was published after 1.12.0, a fix to the older line: the order is the registry's
	// version order, not the dates'.
	if a, b := rs[index(rs, "1.11.5")].Published, rs[index(rs, "1.12.0")].Published; a != nil && b != nil && !a.After(*b) {
		t.Errorf("1.11.5 published %v, not after 1.12.0's %v: the case this checks is gone", a, b)
	}
}

func TestPyPI(t *testing.T) {
	need(t, "python3", "TOOLSCORE_REQUIRE_PIP")
	rs := check(t, "PyPI", "mcp", []string{"1.0.0", "1.9.4", "1.23.0", "1.23.1", "1.25.0"}, true, 2024, 2026)
	// 1.9.4 and 1.10.0 order by number, not by text.
	if i, j := index(rs, "1.9.4"), index(rs, "1.10.0"); i < 0 || j < i {
		t.Errorf("1.9.4 at %d, 1.10.0 at %d", i, j)
	}
	hasPre(t, rs, "1.2.0rc1")
	hasPre(t, rs, "2.0.0a1")
	if i, j, k := index(rs, "1.1.2"), index(rs, "1.2.0rc1"), index(rs, "1.2.0"); i < 0 || !(i < j && j < k) {
		t.Errorf("1.1.2 at %d, 1.2.0rc1 at %d, 1.2.0 at %d: want the pre-release between", i, j, k)
	}
	if i, j := index(rs, "2.0.0a3"), index(rs, "2.0.0b1"); i < 0 || j != i+1 {
		t.Errorf("2.0.0a3 at %d, 2.0.0b1 at %d: want it just after", i, j)
	}
}

func TestGo(t *testing.T) {
	check(t, "Go", "github.com/mark3labs/mcp-go", []string{"v1.0.0", "v1.1.0", "v1.1.1", "v1.2.0"}, true, 2025, 2026)
}

func TestCrates(t *testing.T) {
	need(t, "cargo", "TOOLSCORE_REQUIRE_CARGO")
	rs := check(t, "crates.io", "rmcp", []string{"0.1.5", "0.9.0", "0.10.0", "1.0.0", "3.0.0", "3.10.0"}, true, 2025, 2026)
	hasPre(t, rs, "1.0.0-alpha")
	if i, j := index(rs, "1.0.0-alpha"), index(rs, "1.0.0"); i < 0 || j != i+1 {
		t.Errorf("1.0.0-alpha at %d, 1.0.0 at %d: want it just before", i, j)
	}
	if index(rs, "0.1.0") >= 0 { // yanked
		t.Errorf("the yanked 0.1.0 is listed")
	}
}

func TestMaven(t *testing.T) {
	need(t, "mvn", "TOOLSCORE_REQUIRE_MAVEN")
	// Maven Central serves no Last-Modified on its .pom files through this machine's settings,
	// so no dates are checked.
	rs := check(t, "Maven", "io.modelcontextprotocol.sdk:mcp", []string{"0.7.0", "0.10.0", "1.0.0", "2.0.0"}, false, 0, 0)
	hasPre(t, rs, "2.0.0-M2")
	hasPre(t, rs, "2.0.0-RC1")
}

func TestUnknownRegistry(t *testing.T) {
	if _, err := Releases(context.Background(), "CRAN", "x"); err == nil {
		t.Error("CRAN: no error")
	}
}

// TestSemverOrder checks the order crates are sorted in: SemVer's precedence, not publish order.
func TestSemverOrder(t *testing.T) {
	vs := []string{"1.0.0", "0.10.0", "1.0.0-rc.1", "1.0.0-alpha.beta", "0.9.1", "1.0.0-alpha.1", "1.0.0-alpha", "1.0.0-beta.11", "1.0.0-beta.2", "1.0.0-beta", "1.0.0+build"}
	slices.SortStableFunc(vs, semverCompare)
	want := []string{"0.9.1", "0.10.0", "1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta", "1.0.0-beta.2", "1.0.0-beta.11", "1.0.0-rc.1", "1.0.0", "1.0.0+build"}
	if !slices.Equal(vs, want) {
		t.Errorf("got %v\nwant %v", vs, want)
	}
}

func index(rs []Release, v string) int {
	return slices.IndexFunc(rs, func(r Release) bool { return r.Version == v })
}
