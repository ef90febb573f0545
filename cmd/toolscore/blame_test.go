package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolscore/toolscore/internal/backend"
	"github.com/toolscore/toolscore/internal/prcomment/fakegithub"
	"github.com/toolscore/toolscore/record"
)

// hostileManifest writes a manifest that calls one tool of the hostile server, clean, with each
// of clients, once.
func hostileManifest(t *testing.T, tool, clients string, extra string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), tool+".yaml")
	writeFile(t, path, "name: hostile "+tool+"\nserver: {builtin: hostile}\ntool: "+tool+
		"\nfaults: [clean]\nschema_modes: [as-is]\nclients: ["+clients+"]\nruns: 1\ntimeout: 60s\n"+extra)
	return path
}

// runRecords reads runs.jsonl of an output directory, by client.
func runRecords(t *testing.T, out string) map[string]record.Run {
	t.Helper()
	f, err := os.Open(filepath.Join(out, "runs.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs := map[string]record.Run{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<26)
	for sc.Scan() {
		var r record.Run
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		recs[r.Client] = r
	}
	return recs
}

// TestRawReportsWhatCame: the raw client reports the answers it cannot use as what it saw,
// the way the libraries do, instead of waiting out the timeout (a 20,000-deep answer, past
// encoding/json's nesting limit) or dying (a server that exits mid-answer).
//
// What the libraries do with the same bytes (found by running them; not asserted for mcp-go
// on deep, which costs the whole timeout): go-sdk v1.8.0 throws "exceeded max depth" and
// "unexpected EOF"; mcp-go v1.2.1 throws "transport closed" on the exit, but skips the deep
// frame as unreadable and never returns, so it is hung, which is what it does.
func TestRawReportsWhatCame(t *testing.T) {
	for _, tc := range []struct {
		tool, clients string
		want          map[string]string // client -> evidence it must hold
	}{
		{"deep", "raw, go-sdk/call", map[string]string{
			"raw":         "undecodable-answer: the answer to tools/call came (40107 bytes) but does not decode: invalid character '[' exceeded max depth",
			"go-sdk/call": "exceeded max depth",
		}},
		{"exit-mid-call", "raw, go-sdk/call, mcp-go/call", map[string]string{
			"raw":         "connection-closed: the server closed before answering tools/call (after 79 bytes of an unfinished frame): EOF",
			"go-sdk/call": "unexpected EOF",
			"mcp-go/call": "transport closed",
		}},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			out := t.TempDir()
			_, stderr, code := toolscore(t, "", "run", hostileManifest(t, tc.tool, tc.clients, ""), "--backend", "local", "--out", out)
			if code != 0 {
				t.Fatalf("exit %d:\n%s", code, stderr)
			}
			recs := runRecords(t, out)
			for client, evidence := range tc.want {
				r := recs[client]
				if r.Outcome != "threw" || !strings.Contains(r.Evidence, evidence) {
					t.Errorf("%s: %s (%s), want threw with %q", client, r.Outcome, r.Evidence, evidence)
				}
			}
		})
	}
}

// TestServerCommandChecked: a server command that cannot be started is a setup error named
// before anything runs (exit 2), not every run crashed, at its program's file:line:col, and
// leaves no output folder behind (issue 52, item 3: not even toolscore-out/*/sweep.lock); a
// command the manifest's PATH finds is started as the runs start it.
func TestServerCommandChecked(t *testing.T) {
	bin := t.TempDir()
	if err := os.Symlink(os.Args[0], filepath.Join(bin, "toolscore-test-server")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, server string
		code         int
		stderr       string
	}{
		{"missing", "{command: [toolscore-no-such-server, --stdio]}", 2,
			`m.yaml:2:20: server.command[0]: the server command "toolscore-no-such-server" cannot be started: exec: "toolscore-no-such-server": executable file not found in $PATH`},
		{"on the manifest's PATH", "{command: [toolscore-test-server, hostile], env: {PATH: " + bin + "}}", 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, filepath.Join(dir, "m.yaml"), "name: command server\nserver: "+tc.server+"\ntool: rpc-error\nfaults: [clean]\nschema_modes: [as-is]\nclients: [raw]\nruns: 1\n")
			out := filepath.Join(t.TempDir(), "out")
			_, stderr, code := toolscore(t, dir, "run", "m.yaml", "--backend", "local", "--out", out)
			if code != tc.code || !strings.Contains(stderr, tc.stderr) {
				t.Fatalf("exit %d, want %d with %q:\n%s", code, tc.code, tc.stderr, stderr)
			}
			if tc.code != 0 {
				if _, err := os.Stat(out); err == nil {
					t.Errorf("the refused sweep left %s behind", out)
				}
				// Without --out: the stamped folder, and toolscore-out around it.
				if _, stderr, code := toolscore(t, dir, "run", "m.yaml", "--backend", "local"); code != tc.code {
					t.Fatalf("without --out: exit %d:\n%s", code, stderr)
				}
				if entries, _ := os.ReadDir(dir); len(entries) != 1 {
					t.Errorf("the refused sweep left %v behind beside the manifest", entries)
				}
			}
			_, err := os.Stat(filepath.Join(out, "runs.jsonl"))
			if ran := err == nil; ran != (tc.code == 0) {
				t.Errorf("runs.jsonl there: %v, want %v", ran, tc.code == 0)
			}
			if tc.code == 0 {
				if r := runRecords(t, out)["raw"]; r.Outcome != "rpc-error" {
					t.Errorf("raw: %s (%s), want rpc-error", r.Outcome, r.Evidence)
				}
			}
		})
	}
}

// TestServerCommandCheckedInImage: on docker the server command is looked up inside the cell
// image, where the runs start it: a program this machine has but the image lacks is a setup
// error, one only the image has is started, and the check leaves no container behind.
func TestServerCommandCheckedInImage(t *testing.T) {
	api := engine(t)
	host := staticToolscore(t) // on this machine, not in the builtin image
	sweep := func(server string) (int, string, string) {
		manifest := filepath.Join(t.TempDir(), "m.yaml")
		writeFile(t, manifest, "name: command server\nserver: {command: ["+server+", hostile]}\ntool: rpc-error\nfaults: [clean]\nschema_modes: [as-is]\nclients: [raw]\nruns: 1\n")
		out := filepath.Join(t.TempDir(), "out")
		code, _, stderr := runStatic(t, manifest, "--backend", "docker", "--out", out)
		return code, stderr, out
	}
	code, stderr, out := sweep(host)
	want := `m.yaml:2:20: server.command[0]: the server command "` + host + `" cannot be started in the image toolscore/cell-builtin:`
	if code != 2 || !strings.Contains(stderr, want) || !strings.Contains(stderr, "no such file or directory") {
		t.Errorf("exit %d, want 2 with %q and the lookup's error:\n%s", code, want, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "runs.jsonl")); err == nil {
		t.Error("runs ran with a server that cannot start")
	}
	if code, stderr, out = sweep(backend.CellBinary); code != 0 || runRecords(t, out)["raw"].Outcome != "rpc-error" {
		t.Errorf("a server only the image has: exit %d:\n%s", code, stderr)
	}
	noLeftovers(t, api, "the server check")
}

// TestUncheckedExpectations: expectations that no run of a narrowed sweep checked are
// unchecked, not held, in results.json and every report; a warning by default, a failure
// under fail-on unchecked, for toolscore run and for the action (annotations, outputs, the
// job summary and the pull-request comment).
func TestUncheckedExpectations(t *testing.T) {
	out := t.TempDir()
	narrow := []string{"run", "--backend", "local", "--clients", "raw", "--faults", "clean", "--schema", "hidden", "--runs", "1", "--out", out}
	stdout, stderr, code := toolscore(t, "", narrow...)
	if code != 0 || !strings.Contains(stdout, "\n1 of 4 expectations held, 3 unchecked.\nUnchecked expectations (3 of 4), neither held nor unmet:\n") ||
		!strings.Contains(stdout, "expect at line 57: client raw fault corrupt schema * → want passed; unchecked: it selects no cell of this sweep") ||
		!strings.Contains(stderr, "warning: 3 expectations were not checked by this sweep") {
		t.Errorf("exit %d, want 0, the unchecked listed and warned of:\n%s\n%s", code, stdout, stderr)
	}
	var got []string
	for _, e := range readResultsDir(t, out).Expectations {
		got = append(got, fmt.Sprint(e.Line, " ", e.Status, " ", e.Held))
	}
	if want := []string{"56 held true", "57 unchecked false", "59 unchecked false", "62 unchecked false"}; !slices.Equal(got, want) {
		t.Errorf("expectations %q, want %q", got, want)
	}
	narrow[len(narrow)-1] = t.TempDir()
	if _, stderr, code := toolscore(t, "", append(narrow, "--fail-on", "unchecked")...); code != 1 || strings.Contains(stderr, "warning:") {
		t.Errorf("--fail-on unchecked: exit %d, want 1 and no warning:\n%s", code, stderr)
	}

	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, "scenarios", "mine.yaml"), actionManifest)
	api := fakegithub.New("octo-org", "octo-repo")
	defer api.Close()
	api.Token = actionToken
	a := newActionRun(t, ws, api, "pull_request.json")
	a.inputs = map[string]string{
		"scenario": "scenarios/mine.yaml", "backend": "local", "clients": "raw", "faults": "clean,rpc-error", "schema": "published",
		"out": "toolscore-out/a", "github-token": actionToken,
	}
	annotation := "file=scenarios/mine.yaml,line=19,title=expectation not checked%3A want threw::client go-sdk/call, fault type-swap, schema published: want threw in every run; not checked, so neither held nor unmet: it selects no cell of this sweep"
	stdout, summary, outputs, code := a.run()
	if code != 0 || len(commands(stdout, "error")) != 0 || !slices.ContainsFunc(commands(stdout, "warning"), func(w string) bool { return strings.HasPrefix(w, "::warning "+annotation) }) {
		t.Errorf("default fail-on: exit %d, errors %q, warnings %q; want 0 and the warning %q", code, commands(stdout, "error"), commands(stdout, "warning"), annotation)
	}
	if outputs["unchecked"] != "1" || outputs["unmet"] != "0" {
		t.Errorf("outputs unchecked %q unmet %q, want 1 and 0", outputs["unchecked"], outputs["unmet"])
	}
	item := "- **line 19**: client go-sdk/call, fault type-swap, schema published → want **threw**; unchecked: it selects no cell of this sweep"
	if !strings.Contains(summary, "## Expectations\n\n1 of 2 expectations held, 1 unchecked.\n\nUnchecked, neither held nor unmet:\n\n"+item) {
		t.Errorf("the job summary lacks the unchecked expectation:\n%s", summary)
	}
	if c := api.Comments(42); len(c) != 1 || !strings.Contains(c[0].Body, "**toolscore:** 1 of 2 expectations held, 1 unchecked") || !strings.Contains(c[0].Body, item) {
		t.Errorf("the comment does not show the unchecked expectation: %+v", c)
	}
	a.inputs["fail-on"], a.inputs["out"] = "unchecked", "toolscore-out/b"
	stdout, _, _, code = a.run()
	if code != 1 || !slices.ContainsFunc(commands(stdout, "error"), func(e string) bool { return strings.HasPrefix(e, "::error "+annotation) }) ||
		!strings.Contains(stdout, "toolscore: the check fails (fail-on: unchecked): 1 expectation was not checked") {
		t.Errorf("fail-on unchecked: exit %d, errors %q; want 1 and the error %q", code, commands(stdout, "error"), annotation)
	}
}
