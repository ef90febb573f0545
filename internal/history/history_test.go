package history

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	googleschema "github.com/google/jsonschema-go/jsonschema"

	"github.com/toolscore/toolscore/internal/install"

	"github.com/toolscore/toolscore/record"
	"github.com/toolscore/toolscore/scenario"
	"github.com/toolscore/toolscore/tally"
)

// TestSamples: both ends and the last release of each minor line, in the registry's order.
func TestSamples(t *testing.T) {
	vs := []string{"1.10.0", "1.11.0", "1.11.1", "1.11.5", "1.12.0", "1.12.1", "2.0.0"}
	if got, want := Samples(vs, false), []int{0, 3, 5, 6}; !slices.Equal(got, want) {
		t.Errorf("minor samples %v, want %v", got, want)
	}
	if got := Samples(vs, true); len(got) != len(vs) {
		t.Errorf("every: %v", got)
	}
	if got, want := Samples([]string{"v1.1.1", "v1.2.0"}, false), []int{0, 1}; !slices.Equal(got, want) {
		t.Errorf("Go versions: %v, want %v", got, want)
	}
}

// TestSegments: versions not swept between two alike take their outcome, versions that could
// not run are a segment of their own and never join the outcome on either side.
func TestSegments(t *testing.T) {
	cell := record.Cell{Client: "c", Fault: "type-swap", Schema: "published", Transport: "stdio"}
	ran := func(outcome string) *version {
		c := &tally.Cell{Cell: cell, Outcome: map[string]int{outcome: 1}, Examples: map[string]tally.Example{outcome: {Run: 1, Evidence: outcome}}}
		return &version{cells: map[string]*tally.Cell{cell.Key(): c}, dir: "d"}
	}
	vs := []string{"1", "2", "3", "4", "5", "6", "7"}
	s := &Search{Client: scenario.Client{Name: "c"}, swept: map[string]*version{
		"1": {failed: "ImportError"}, "2": ran("passed"), "4": ran("passed"), "5": ran("threw"), "7": ran("threw"),
	}}
	for _, v := range vs {
		s.Releases = append(s.Releases, tally.Release{Version: v})
	}
	ch := s.history(vs)
	var got []string
	for _, seg := range ch.Cells[0].Segments {
		got = append(got, seg.First+"-"+seg.Last+" "+seg.Outcome)
	}
	if want := []string{"1-1 install-failed", "2-4 passed", "5-7 threw"}; !slices.Equal(got, want) {
		t.Errorf("segments %q, want %q", got, want)
	}
	if seg := ch.Cells[0].Segments[1]; !slices.Equal(seg.Swept, []string{"2", "4"}) || seg.Outcomes["passed"] != 2 || seg.Example == nil {
		t.Errorf("the passed segment: %+v", seg)
	}
	if ch.Versions[0].InstallFailed != "ImportError" || ch.Versions[2].Swept {
		t.Errorf("versions: %+v", ch.Versions)
	}
}

// tsSDK is the TypeScript SDK's releases 1.10.0–1.13.3 in the registry's order, with the
// publish dates npm gives (npm view @modelcontextprotocol/sdk time, 2026-12-07): 1.10.x, 1.11.4
// and 1.12.3 were published after 1.13.x, 1.11.5 and 1.12.2 in 2026.
var tsSDK = []struct{ version, published string }{
	{"1.10.0", "2025-10-05T04:47:17Z"}, {"1.10.1", "2025-10-01T21:46:46Z"}, {"1.10.2", "2025-10-02T22:32:57Z"},
	{"1.11.0", "2025-05-03T14:48:14Z"}, {"1.11.1", "2025-05-09T17:39:09Z"}, {"1.11.2", "2025-05-12T14:15:50Z"},
	{"1.11.3", "2025-05-15T11:08:47Z"}, {"1.11.4", "2025-10-11T08:09:41Z"}, {"1.11.5", "2026-03-25T02:22:08Z"},
	{"1.12.0", "2025-05-23T20:42:33Z"}, {"1.12.1", "2025-05-30T02:21:37Z"}, {"1.12.2", "2026-03-25T14:07:35Z"},
	{"1.12.3", "2025-10-11T06:06:52Z"}, {"1.13.0", "2025-06-20T20:42:37Z"}, {"1.13.1", "2025-07-18T05:08:23Z"},
	{"1.13.2", "2025-06-27T17:13:10Z"}, {"1.13.3", "2025-07-02T06:28:34Z"},
}

// tsSDKOutcome is what the type-swap cell with the schema published gives at a release of the
// TypeScript SDK against a server that only speaks revisions 1.10's do not: 1.10.x cannot
// complete the handshake, 1.11.0–1.11.3 pass the swapped type on, 1.11.4 and later validate it.
func tsSDKOutcome(v string) record.Outcome {
	switch {
	case strings.HasPrefix(v, "1.10."):
		return record.HandshakeFailed
	case v >= "1.11.0" && v <= "1.11.3":
		return record.Passed
	}
	return record.Threw
}

// search runs the search over releases with outcome standing for each version's sweep of one
// cell, and returns its history and the versions it swept, in the order it swept them.
func search(t *testing.T, releases []tally.Release, order string, outcome func(string) record.Outcome) (tally.ClientHistory, []string) {
	t.Helper()
	cell := record.Cell{Client: "ts-sdk/list-then-call", Fault: "type-swap", Schema: "published", Protocol: "2025-11-25", Transport: "stdio"}
	var swept []string
	s := &Search{Client: scenario.Client{Name: cell.Client}, Releases: releases, Order: order,
		sweepOne: func(_ context.Context, ver string) (*version, error) {
			swept = append(swept, ver)
			o := string(outcome(ver))
			c := &tally.Cell{Cell: cell, Outcome: map[string]int{o: 1}, Examples: map[string]tally.Example{o: {Run: 1, Evidence: o}}}
			return &version{cells: map[string]*tally.Cell{cell.Key(): c}, dir: Dir(cell.Client, ver)}, nil
		}}
	ch, _, _, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return ch, swept
}

func tsSDKReleases(t *testing.T) []tally.Release {
	var rs []tally.Release
	for _, r := range tsSDK {
		at, err := time.Parse(time.RFC3339, r.published)
		if err != nil {
			t.Fatal(err)
		}
		rs = append(rs, tally.Release{Version: r.version, Published: &at})
	}
	return rs
}

// segmentsOf renders a history's one cell's segments as "FIRST–LAST OUTCOME".
func segmentsOf(ch tally.ClientHistory) []string {
	var out []string
	for _, s := range ch.Cells[0].Segments {
		out = append(out, s.First+"–"+s.Last+" "+s.Outcome)
	}
	return out
}

// TestSearchHandshakeBoundary: over the TypeScript SDK's 1.10.0–1.13.3, sampling the last of
// each minor line, the search finds both boundaries where 1.10's handshake failure is an
// outcome of its own: 1.10.2 → 1.11.0 (handshake-failed → passed) and 1.11.3 → 1.11.4
// (passed → threw). Graded threw, as a handshake failure was, the samples 1.10.0, 1.10.2,
// 1.11.5, 1.12.3 and 1.13.3 all agreed and it reported threw throughout.
func TestSearchHandshakeBoundary(t *testing.T) {
	ch, swept := search(t, tsSDKReleases(t), "", tsSDKOutcome)
	want := []string{"1.10.0–1.10.2 handshake-failed", "1.11.0–1.11.3 passed", "1.11.4–1.13.3 threw"}
	if got := segmentsOf(ch); !slices.Equal(got, want) {
		t.Errorf("segments %q, want %q (swept %v)", got, want, swept)
	}
	if ch.Order != tally.OrderRegistry || len(swept) >= len(tsSDK) {
		t.Errorf("order %q, %d of %d versions swept; want registry and fewer than every one", ch.Order, len(swept), len(tsSDK))
	}
	noneBackwards(t, ch)
}

// TestSearchByDate: by publish date, the TypeScript SDK's first release that validates is
// 1.12.0 (2025-05-23), where in the registry's order it is 1.11.4, published in October; the
// history says which order it used, lists the releases in it, and no segment's dates run
// backwards in either.
func TestSearchByDate(t *testing.T) {
	ch, _ := search(t, tsSDKReleases(t), tally.OrderDate, tsSDKOutcome)
	segs := ch.Cells[0].Segments
	if ch.Order != tally.OrderDate || ch.Versions[0].Version != "1.11.0" || len(segs) < 2 ||
		segs[0].First+"–"+segs[0].Last+" "+segs[0].Outcome != "1.11.0–1.11.3 passed" || segs[1].First != "1.12.0" || segs[1].Outcome != "threw" {
		t.Errorf("by date: order %q, first version %s, segments %q; want date, 1.11.0, passed until 1.11.3 and threw from 1.12.0", ch.Order, ch.Versions[0].Version, segmentsOf(ch))
	}
	for i := 1; i < len(ch.Versions); i++ {
		if ch.Versions[i].Published.Before(*ch.Versions[i-1].Published) {
			t.Errorf("by date, %s comes after %s, published later", ch.Versions[i].Version, ch.Versions[i-1].Version)
		}
	}
	if len(ch.OutOfOrder) == 0 {
		t.Error("by date, the versions published out of the registry's order are not named")
	}
	noneBackwards(t, ch)
	if _, err := Ordered([]tally.Release{{Version: "1.0.0"}}, tally.OrderDate); err == nil || !strings.Contains(err.Error(), "no publish date for 1.0.0") {
		t.Errorf("a release without a date, by date: %v", err)
	}
}

// noneBackwards fails the test for a segment whose dates run backwards.
func noneBackwards(t *testing.T, ch tally.ClientHistory) {
	t.Helper()
	for _, s := range ch.Cells[0].Segments {
		if s.FirstPublished == nil || s.LastPublished == nil || s.LastPublished.Before(*s.FirstPublished) {
			t.Errorf("segment %s–%s %s: dates %v – %v", s.First, s.Last, s.Outcome, s.FirstPublished, s.LastPublished)
		}
	}
}

// TestNoneInstalls: a client none of whose releases installs is written as install-failed
// segments of the scenario's cells, with every release tried counted as swept, valid against
// schema/history.schema.json (it was "cells": null, which the schema refuses), and the
// machine's folders in the reasons named, never spelt out.
func TestNoneInstalls(t *testing.T) {
	home, _ := os.UserHomeDir()
	installs, err := install.Root()
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	cache := filepath.Join(t.TempDir(), "cells")
	cells := []record.Cell{
		{Client: "python-sdk/call", Fault: "clean", Schema: "hidden", Protocol: "as-is", Transport: "stdio"},
		{Client: "python-sdk/call", Fault: "type-swap", Schema: "published", Protocol: "as-is", Transport: "stdio"},
	}
	s := &Search{Client: scenario.Client{Name: "python-sdk/call"}, Work: work, matrix: cells, scrub: machinePaths(work, cache),
		sweepOne: func(_ context.Context, ver string) (*version, error) {
			return &version{dir: Dir("python-sdk/call", ver), failed: "the client never started: ImportError: cannot import name 'x'\n" +
				"  File \"" + filepath.Join(work, "versions", ver, "runs", "a") + "\", line 1\n  File \"" + filepath.Join(installs, "ab12", "lib") + "\"\n" +
				"  in " + filepath.Join(cache, "cd34")}, nil
		}}
	for _, v := range []string{"1.0.0", "1.0.1", "1.1.0"} {
		s.Releases = append(s.Releases, tally.Release{Version: v})
	}
	ch, _, _, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	h := tally.History{Scenario: "s", Clients: []tally.ClientHistory{ch}}
	b, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	var schema googleschema.Schema
	if err := json.Unmarshal(readFile(t, "../../schema/history.schema.json"), &schema); err != nil {
		t.Fatal(err)
	}
	resolved, err := schema.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	_ = json.Unmarshal(b, &v)
	if err := resolved.Validate(v); err != nil {
		t.Errorf("history.json does not validate against its schema: %v\n%s", err, b)
	}
	if len(ch.Cells) != 2 || len(ch.Cells[0].Segments) != 1 || ch.Cells[0].Segments[0].Outcome != tally.InstallFailed ||
		!slices.Equal(ch.Cells[0].Segments[0].Swept, []string{"1.0.0", "1.0.1", "1.1.0"}) {
		t.Errorf("cells %+v; want both cells, each one install-failed segment of the three releases tried", ch.Cells)
	}
	for _, r := range ch.Versions {
		if !r.Swept || r.InstallFailed == "" {
			t.Errorf("%s: swept %v, install failed %q; want tried and why", r.Version, r.Swept, r.InstallFailed)
		}
	}
	for _, path := range []string{work, home, cache, os.TempDir()} {
		if strings.Contains(string(b), path) {
			t.Errorf("history.json spells out %s:\n%s", path, b)
		}
	}
	if why := ch.Versions[0].InstallFailed; !strings.Contains(why, `"<history>/versions/1.0.0/runs/a"`) || !strings.Contains(why, `"<install cache>/ab12/lib"`) || !strings.Contains(why, "in <cell cache>/cd34") {
		t.Errorf("the folders are not named in the reason: %s", why)
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
