// Package registry lists a package's released versions with their publish dates, from npm,
// PyPI, the Go module proxy, crates.io and Maven Central, each through its own client or the
// registry's standard protocol at the address this machine's client is configured with, so a
// mirror set for the client is the one asked.
package registry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// Release is one published version.
type Release struct {
	Version   string
	Published *time.Time // nil where the registry does not serve the date
	Pre       bool       // a pre-release
}

// Releases lists pkg's published versions on registry ("npm", "PyPI", "Go", "crates.io",
// "Maven"; a Maven pkg is "group:artifact"), oldest first in the registry's version order.
func Releases(ctx context.Context, registry, pkg string) ([]Release, error) {
	switch registry {
	case "npm":
		return npmReleases(ctx, pkg)
	case "PyPI":
		return pypiReleases(ctx, pkg)
	case "Go":
		return goReleases(ctx, pkg)
	case "crates.io":
		return crateReleases(ctx, pkg)
	case "Maven":
		return mavenReleases(ctx, pkg)
	}
	return nil, fmt.Errorf("no registry client for %s packages", registry)
}

// commandErr adds a failed command's stderr to its error, since that is where the client says why.
func commandErr(err error) error {
	var exit *exec.ExitError
	if errors.As(err, &exit) && len(exit.Stderr) > 0 {
		return fmt.Errorf("%w: %s", err, strings.TrimSpace(string(exit.Stderr)))
	}
	return err
}

// get does one HTTP request with Go's default transport (the system's CA pool, the
// environment's proxy) and returns the response, whose body the caller closes; a status other
// than 200 is an error.
func get(ctx context.Context, method, url, accept string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, method, url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", "toolscore")
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, fmt.Errorf("%s %s: %s", method, url, resp.Status)
	}
	return resp, nil
}

// getBody is get's body, at most 64 MiB (a popular package's index page is a few MiB).
func getBody(ctx context.Context, url, accept string) ([]byte, error) {
	resp, err := get(ctx, http.MethodGet, url, accept)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", url, err)
	}
	return b, nil
}

// semverLess orders two semantic versions (a leading v allowed) by SemVer 2.0.0's precedence;
// build metadata does not count.
func semverLess(a, b string) bool {
	return semverCompare(a, b) < 0
}

func semverCompare(a, b string) int {
	coreA, preA := semverSplit(a)
	coreB, preB := semverSplit(b)
	for i := 0; i < len(coreA) || i < len(coreB); i++ {
		if c := compareIdent(at(coreA, i), at(coreB, i), true); c != 0 {
			return c
		}
	}
	switch {
	case preA == nil && preB == nil:
		return 0
	case preA == nil: // a release follows its pre-releases
		return 1
	case preB == nil:
		return -1
	}
	for i := 0; i < len(preA) && i < len(preB); i++ {
		if c := compareIdent(preA[i], preB[i], false); c != 0 {
			return c
		}
	}
	return len(preA) - len(preB)
}

// semverSplit is a version's dotted core and its pre-release identifiers (nil for a release).
func semverSplit(v string) (core, pre []string) {
	v = strings.TrimPrefix(v, "v")
	v, _, _ = strings.Cut(v, "+")
	v, p, ok := strings.Cut(v, "-")
	if ok {
		pre = strings.Split(p, ".")
	}
	return strings.Split(v, "."), pre
}

// semverPre tells a pre-release: a hyphen in the version before any build metadata.
func semverPre(v string) bool {
	_, pre := semverSplit(v)
	return pre != nil
}

func at(s []string, i int) string {
	if i < len(s) {
		return s[i]
	}
	return "0"
}

// compareIdent compares numeric identifiers as numbers, below any alphanumeric one, which
// compare as text.
func compareIdent(a, b string, core bool) int {
	na, errA := strconv.ParseUint(a, 10, 64)
	nb, errB := strconv.ParseUint(b, 10, 64)
	switch {
	case errA == nil && errB == nil:
		return cmpInt(na, nb)
	case errA == nil && !core:
		return -1
	case errB == nil && !core:
		return 1
	}
	return strings.Compare(a, b)
}

func cmpInt(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// parseTime reads an RFC 3339 date, nil for none or one it cannot read.
func parseTime(s string) *time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return nil
	}
	return &t
}
