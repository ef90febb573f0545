package registry

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"time"
)

// pypiJSON is PEP 691's JSON simple API, whose files carry their upload time (PEP 700).
const pypiJSON = "application/vnd.pypi.simple.v1+json"

// pypiReleases reads the project's page of the JSON simple API at the index pip is configured
// with: pip index versions lists no dates. A version is dated by its earliest file; one whose
// every file is yanked is left out, as pip leaves it out.
func pypiReleases(ctx context.Context, pkg string) ([]Release, error) {
	index, err := pipIndex(ctx)
	if err != nil {
		return nil, err
	}
	url := strings.TrimSuffix(index, "/") + "/" + pep503(pkg) + "/"
	body, err := getBody(ctx, url, pypiJSON)
	if err != nil {
		return nil, fmt.Errorf("PyPI %s: %w", pkg, err)
	}
	var page struct {
		Versions []string `json:"versions"` // PEP 700; absent from an index of API version 1.0
		Files    []struct {
			Filename   string `json:"filename"`
			UploadTime string `json:"upload-time"`
			Yanked     any    `json:"yanked"` // false, or true or the reason
		} `json:"files"`
	}
	if err := json.Unmarshal(body, &page); err != nil {
		return nil, fmt.Errorf("PyPI %s: %s does not serve PEP 691's JSON (%w)", pkg, url, err)
	}
	type dated struct {
		first *time.Time
		live  bool // a file of it is not yanked
	}
	byFile := map[string]*dated{}
	raw := append([]string(nil), page.Versions...)
	for _, f := range page.Files {
		v := fileVersion(pkg, f.Filename)
		if v == "" {
			continue
		}
		d := byFile[v]
		if d == nil {
			d = &dated{}
			byFile[v] = d
			raw = append(raw, v)
		}
		if t := parseTime(f.UploadTime); t != nil && (d.first == nil || t.Before(*d.first)) {
			d.first = t
		}
		if y, ok := f.Yanked.(bool); f.Yanked == nil || ok && !y {
			d.live = true
		}
	}
	sorted, err := pep440Sort(ctx, raw)
	if err != nil {
		return nil, fmt.Errorf("PyPI %s: %w", pkg, err)
	}
	// Files name their versions as their builders wrote them: group them by the normalized form.
	byVersion := map[string]*dated{}
	for _, s := range sorted {
		d := byFile[s.raw]
		if d == nil {
			continue
		}
		if all := byVersion[s.norm]; all == nil {
			byVersion[s.norm] = &dated{first: d.first, live: d.live}
		} else {
			if d.first != nil && (all.first == nil || d.first.Before(*all.first)) {
				all.first = d.first
			}
			all.live = all.live || d.live
		}
	}
	listed := map[string]bool{}
	for _, v := range page.Versions {
		listed[v] = true
	}
	var rs []Release
	seen := map[string]bool{}
	for _, s := range sorted {
		if (len(page.Versions) > 0 && !listed[s.raw]) || seen[s.norm] {
			continue
		}
		d := byVersion[s.norm]
		if d == nil || !d.live {
			continue // no file, or every file yanked
		}
		seen[s.norm] = true
		rs = append(rs, Release{Version: s.raw, Published: d.first, Pre: s.pre})
	}
	return rs, nil
}

// pipIndex is the index URL pip is configured with (its environment first, then its install
// and global settings), or pip's own default when none is set.
func pipIndex(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, "python3", "-m", "pip", "config", "list").Output()
	if err != nil {
		return "", fmt.Errorf("pip config list: %w", commandErr(err))
	}
	set := map[string]string{}
	for _, line := range strings.Split(string(out), "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), "="); ok {
			set[k] = strings.Trim(v, `'"`)
		}
	}
	for _, k := range []string{":env:.index-url", "install.index-url", "global.index-url"} {
		if v := set[k]; v != "" {
			return v, nil
		}
	}
	out, err = exec.CommandContext(ctx, "python3", "-c", "from pip._internal.models.index import PyPI; print(PyPI.simple_url)").Output()
	if err != nil {
		return "", fmt.Errorf("pip's default index: %w", commandErr(err))
	}
	return strings.TrimSpace(string(out)), nil
}

// pep503 is a project's normalized name, the path of its page on a simple index.
func pep503(name string) string {
	return strings.ToLower(separators.ReplaceAllString(name, "-"))
}

var separators = regexp.MustCompile(`[-_.]+`)

// fileVersion is the version a distribution's file name carries, "" for a kind it does not know.
func fileVersion(pkg, file string) string {
	switch {
	case strings.HasSuffix(file, ".whl"), strings.HasSuffix(file, ".egg"):
		if parts := strings.Split(file, "-"); len(parts) >= 3 {
			return parts[1]
		}
		return ""
	}
	for _, ext := range []string{".tar.gz", ".zip", ".tar.bz2", ".tar.xz", ".tgz", ".tar"} {
		if base, ok := strings.CutSuffix(file, ext); ok {
			// An sdist is NAME-VERSION, the name written as its builder wrote it.
			if i := strings.LastIndex(base, "-"); i > 0 && pep503(base[:i]) == pep503(pkg) {
				return base[i+1:]
			}
		}
	}
	return ""
}

// pep440 is one version as Python's packaging reads it.
type pep440 struct {
	raw, norm string
	pre       bool
}

// pep440Script sorts versions with packaging's Version (pip's own copy where packaging is not
// installed), leaving out what it cannot read.
const pep440Script = `
import json, sys
try:
    from packaging.version import Version, InvalidVersion
except ImportError:
    from pip._vendor.packaging.version import Version, InvalidVersion
vs = []
for s in json.load(sys.stdin):
    try:
        vs.append((Version(s), s))
    except InvalidVersion:
        pass
vs.sort(key=lambda p: p[0])
json.dump([[s, str(v), v.is_prerelease] for v, s in vs], sys.stdout)
`

// pep440Sort orders versions as PEP 440 does, asking python3, since its rules (epochs, pre, post
// and dev releases, local versions) are packaging's to keep.
func pep440Sort(ctx context.Context, versions []string) ([]pep440, error) {
	in, err := json.Marshal(versions)
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, "python3", "-c", pep440Script)
	cmd.Stdin = bytes.NewReader(in)
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("ordering its versions with python3's packaging: %w", commandErr(err))
	}
	var rows [][3]any
	if err := json.Unmarshal(out, &rows); err != nil {
		return nil, fmt.Errorf("ordering its versions with python3's packaging: %w", err)
	}
	sorted := make([]pep440, 0, len(rows))
	for _, r := range rows {
		raw, _ := r[0].(string)
		norm, _ := r[1].(string)
		pre, _ := r[2].(bool)
		sorted = append(sorted, pep440{raw: raw, norm: norm, pre: pre})
	}
	return sorted, nil
}
