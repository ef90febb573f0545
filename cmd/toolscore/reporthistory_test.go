package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolscore/toolscore/record"
	"github.com/toolscore/toolscore/tally"
)

// TestReportHistory: `toolscore report` of a history.json (or its directory) prints what
// changed release by release, the file re-indented, and the compatibility page of every
// client's newest release swept (read from that release's sweep, its transcripts' paths
// relative to the history) saying since which release each outcome holds; a client none of
// whose releases ran is unavailable; a format that is not one for a history is a usage error.
func TestReportHistory(t *testing.T) {
	ws := t.TempDir()
	day := func(s string) *time.Time {
		d, err := time.Parse("2006-01-02", s)
		if err != nil {
			t.Fatal(err)
		}
		return &d
	}
	cell := record.Cell{Client: "go-sdk/call", Fault: "type-swap", Schema: "published", Protocol: "as-is", Transport: "stdio"}
	h := tally.History{
		Scenario: "history", Toolscore: "test", Backend: "local",
		Clients: []tally.ClientHistory{{
			Client: "go-sdk/call", Registry: "go", Package: "github.com/modelcontextprotocol/go-sdk",
			Versions: []tally.Release{
				{Version: "1.0.0", Published: day("2025-01-02"), Swept: true, Sweep: "v/go-sdk-1.0.0"},
				{Version: "1.1.0", Published: day("2025-02-03"), Swept: true, Sweep: "v/go-sdk-1.1.0"},
			},
			Cells: []tally.CellHistory{{Cell: cell, Segments: []tally.Segment{
				{First: "1.0.0", Last: "1.0.0", Outcome: "passed", Outcomes: map[string]int{"passed": 2}, Swept: []string{"1.0.0"}},
				{First: "1.1.0", Last: "1.1.0", FirstPublished: day("2025-02-03"), Outcome: "threw", Outcomes: map[string]int{"threw": 2}, Swept: []string{"1.1.0"},
					Example: &tally.SegmentExample{Version: "1.1.0", Sweep: "v/go-sdk-1.1.0", Run: 1, Evidence: "invalid result: balance_minor"}},
			}}},
		}, {
			Client: "ts-sdk/call", Registry: "npm", Package: "@modelcontextprotocol/sdk",
			Versions: []tally.Release{{Version: "1.0.0", Swept: true, InstallFailed: "npm error code ETARGET\nnpm error notarget"}},
			Cells: []tally.CellHistory{{Cell: record.Cell{Client: "ts-sdk/call", Fault: "type-swap", Schema: "published", Protocol: "as-is", Transport: "stdio"},
				Segments: []tally.Segment{{First: "1.0.0", Last: "1.0.0", Outcome: tally.InstallFailed, Swept: []string{"1.0.0"}, Reason: "npm error code ETARGET"}}}},
		}},
	}
	data, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(ws, "out", tally.HistoryFile), string(data))
	for version, outcome := range map[string]string{"1.0.0": "passed", "1.1.0": "threw"} {
		r := &tally.Results{Scenario: "history", Toolscore: "test", Backend: "local"}
		c := cell
		c.Client += "@" + version
		r.Cells = []*tally.Cell{{Cell: c, Runs: 2, Planned: 2, Outcome: map[string]int{outcome: 2},
			Examples: map[string]tally.Example{outcome: {Run: 1, Evidence: outcome + " at " + version, Tee: "cells/1/tee.jsonl"}}}}
		writeSweep(t, filepath.Join(ws, "out", "v"), "go-sdk-"+version, r, "")
	}

	text, stderr, code := toolscore(t, ws, "report", "out")
	if code != 0 {
		t.Fatalf("report out: exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"go-sdk/call (go github.com/modelcontextprotocol/go-sdk), 1.0.0–1.1.0 in the registry's order: 2 versions, 2 swept\n",
		"  1.1.0 (2025-02-03): type-swap/published/as-is/stdio passed → threw (invalid result: balance_minor)\n",
		"  1.0.0: install-failed: npm error code ETARGET\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the text lacks %q:\n%s", want, text)
		}
	}

	js, stderr, code := toolscore(t, ws, "report", filepath.Join("out", tally.HistoryFile), "--format", "json")
	var back tally.History
	if code != 0 || json.Unmarshal([]byte(js), &back) != nil || !strings.Contains(js, "\n  \"clients\": [") || back.Clients[0].Cells[0].Segments[1].First != "1.1.0" {
		t.Errorf("report --format json: exit %d: %s\n%s", code, stderr, js)
	}

	md, stderr, code := toolscore(t, ws, "report", "out", "--format", "compat")
	if code != 0 {
		t.Fatalf("report --format compat: exit %d: %s", code, stderr)
	}
	for _, want := range []string{"The 1 client: threw 2/2, threw since 1.1.0.\n", "threw: threw at 1.1.0", "Unavailable: ts-sdk/call: no release in the history's range ran; the newest that would not install, 1.0.0: npm error code ETARGET"} {
		if !strings.Contains(md, want) {
			t.Errorf("the compatibility page lacks %q:\n%s", want, md)
		}
	}
	page, stderr, code := toolscore(t, ws, "report", "out", "--format", "compat-html")
	if code != 0 {
		t.Fatalf("report --format compat-html: exit %d: %s", code, stderr)
	}
	for _, want := range []string{`<section id="t-1">`, `<a href="#t-1-1-2">threw since 1.1.0</a>`, "transcript v/go-sdk-1.1.0/cells/1/tee.jsonl", `<td class="seg o-install-failed">`} {
		if !strings.Contains(page, want) {
			t.Errorf("the HTML page lacks %q", want)
		}
	}

	_, stderr, code = toolscore(t, ws, "report", "out", "--format", "md")
	if code != 2 || !strings.Contains(stderr, "--format md is not one for a history: want text, json, compat or compat-html") {
		t.Errorf("report --format md of a history: exit %d, want 2: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(ws, "out", "results.json")); err == nil {
		t.Fatal("the history's directory has a results.json")
	}
}
