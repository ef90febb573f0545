package registry

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
)

// crateReleases reads the crate's file of the sparse index cargo is configured with (its
// config.toml, CARGO_REGISTRIES_* and source replacement all decide it): one line a version, in
// publish order, which it sorts by SemVer. A line's pubtime dates it; an index that writes no
// pubtime (older ones, or a mirror that strips it) leaves Published nil, as crates.io's web API
// is not a part of the index protocol a mirror serves. Yanked versions are left out.
func crateReleases(ctx context.Context, name string) ([]Release, error) {
	index, err := cargoIndex(ctx, name)
	if err != nil {
		return nil, err
	}
	body, err := getBody(ctx, index+indexPath(name), "")
	if err != nil {
		return nil, fmt.Errorf("crates.io %s: %w", name, err)
	}
	var rs []Release
	lines := bufio.NewScanner(bytes.NewReader(body))
	lines.Buffer(nil, 16<<20) // a version's line lists all its dependencies and features
	for lines.Scan() {
		if len(bytes.TrimSpace(lines.Bytes())) == 0 {
			continue
		}
		var v struct {
			Vers    string `json:"vers"`
			Yanked  bool   `json:"yanked"`
			Pubtime string `json:"pubtime"`
		}
		if err := json.Unmarshal(lines.Bytes(), &v); err != nil {
			return nil, fmt.Errorf("crates.io %s: a line of its index file: %w", name, err)
		}
		if !v.Yanked {
			rs = append(rs, Release{Version: v.Vers, Published: parseTime(v.Pubtime), Pre: semverPre(v.Vers)})
		}
	}
	if err := lines.Err(); err != nil {
		return nil, fmt.Errorf("crates.io %s: its index file: %w", name, err)
	}
	slices.SortStableFunc(rs, func(a, b Release) int { return semverCompare(a.Version, b.Version) })
	return rs, nil
}

// cargoFetch is the line cargo's network log writes as it reads its index's config.json.
var cargoFetch = regexp.MustCompile(`fetch (https?://\S+/)config\.json`)

// cargoIndex is the sparse index cargo reads crates.io's packages from: cargo itself is asked
// (cargo info, with its network log on), since no stable cargo command prints its settings and
// the index is wherever its defaults, config files, environment and source replacement lead.
func cargoIndex(ctx context.Context, name string) (string, error) {
	dir, err := os.MkdirTemp("", "toolscore-cargo-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	cmd := exec.CommandContext(ctx, "cargo", "info", name)
	cmd.Dir = dir // outside any workspace, so no project's settings count
	cmd.Env = append(os.Environ(), "CARGO_LOG=network=debug", "CARGO_TERM_COLOR=never")
	out, err := cmd.CombinedOutput() // the log goes to stderr; cargo info fails for an unknown crate after it has read the index
	if m := cargoFetch.FindSubmatch(out); m != nil {
		return string(m[1]), nil
	}
	if err != nil {
		return "", fmt.Errorf("cargo info %s: %w: %s", name, err, tail(out))
	}
	return "", fmt.Errorf("cargo info %s read no sparse index (a git index, or offline?): %s", name, tail(out))
}

// indexPath is a crate's file in a cargo index: by its name's length, then its first letters.
func indexPath(name string) string {
	n := strings.ToLower(name)
	switch len(n) {
	case 1:
		return "1/" + n
	case 2:
		return "2/" + n
	case 3:
		return "3/" + n[:1] + "/" + n
	}
	return n[:2] + "/" + n[2:4] + "/" + n
}

// tail is the end of cargo's output, where its error is, without the whole network log.
func tail(out []byte) string {
	s := strings.TrimSpace(string(out))
	if len(s) > 1000 {
		s = "..." + s[len(s)-1000:]
	}
	return s
}
