package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/toolscore/toolscore/internal/action"
	"github.com/toolscore/toolscore/internal/outdir"
	"github.com/toolscore/toolscore/internal/prcomment"
	"github.com/toolscore/toolscore/internal/prcomment/fakegithub"
	"github.com/toolscore/toolscore/record"
	"github.com/toolscore/toolscore/sweep"
	"github.com/toolscore/toolscore/tally"
)

// actionManifest is a small scenario whose entries sit on known lines: faults on 8-10,
// clients on 13-14, expect entries on 18-19. The second expectation does not hold: go-sdk
// v1.8.0 validates no result, so type-swap passes.
const actionManifest = `name: action test
server:
  builtin: ledger
tool: get_account_balance
arguments:
  account_id: ACC-4471
faults:
  - clean
  - rpc-error
  - type-swap
schema_modes: [hidden, published]
clients:
  - raw
  - go-sdk/call
runs: 1
timeout: 20s
expect:
  - {fault: rpc-error, outcome: rpc-error}
  - {client: go-sdk/call, fault: type-swap, schema: published, outcome: threw}
`

const actionToken = "ghs_16C7e42F292c6912E7710c838347Ae178B4a"

// actionRun is one run of the entrypoint, the way the runner starts a Docker action: the
// inputs as INPUT_* variables (hyphens kept), the file commands' files, the event payload.
type actionRun struct {
	t         *testing.T
	workspace string
	inputs    map[string]string
	env       map[string]string
	stderr    string // what the last run printed on stderr
}

func newActionRun(t *testing.T, workspace string, api *fakegithub.Server, event string) *actionRun {
	t.Helper()
	evPath, err := filepath.Abs(filepath.Join("testdata", event))
	if err != nil {
		t.Fatal(err)
	}
	a := &actionRun{t: t, workspace: workspace, inputs: map[string]string{}, env: map[string]string{
		"GITHUB_ACTIONS":           "true",
		"CI":                       "true",
		"GITHUB_WORKSPACE":         workspace,
		"GITHUB_EVENT_PATH":        evPath,
		"GITHUB_EVENT_NAME":        strings.TrimSuffix(event, ".json"),
		"GITHUB_REPOSITORY":        "octo-org/octo-repo",
		"GITHUB_REPOSITORY_OWNER":  "octo-org",
		"GITHUB_SERVER_URL":        "https://github.com",
		"GITHUB_RUN_ID":            "8675309",
		"GITHUB_RUN_NUMBER":        "12",
		"GITHUB_RUN_ATTEMPT":       "1",
		"GITHUB_SHA":               "0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c",
		"GITHUB_REF":               "refs/pull/42/merge",
		"GITHUB_JOB":               "toolscore",
		"GITHUB_ACTION":            "__run",
		"GITHUB_ACTION_REPOSITORY": "toolscore/toolscore",
		"RUNNER_OS":                "Linux",
	}}
	if api != nil {
		a.env["GITHUB_API_URL"] = api.URL
	}
	return a
}

// run runs toolscore action with fresh summary and output files and returns what it wrote.
func (a *actionRun) run() (stdout, summary string, outputs map[string]string, code int) {
	t := a.t
	t.Helper()
	files := t.TempDir()
	summaryPath, outputPath := filepath.Join(files, "step_summary"), filepath.Join(files, "output")
	for _, p := range []string{summaryPath, outputPath} {
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(os.Args[0], "action")
	cmd.Dir = a.workspace
	// Nothing of a real runner's environment (these tests may run in GitHub Actions) leaks in.
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GITHUB_") && !strings.HasPrefix(kv, "INPUT_") && !strings.HasPrefix(kv, "RUNNER_") && !strings.HasPrefix(kv, "ACTIONS_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	for k, v := range a.env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Env = append(cmd.Env, "GITHUB_STEP_SUMMARY="+summaryPath, "GITHUB_OUTPUT="+outputPath)
	for k, v := range a.inputs {
		// What the runner does: INPUT_ and the name upper-cased, spaces to _, hyphens kept.
		cmd.Env = append(cmd.Env, "INPUT_"+strings.ToUpper(strings.ReplaceAll(k, " ", "_"))+"="+v)
	}
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	a.stderr = e.String()
	code = exitCode(err)
	if code < 0 {
		t.Fatalf("toolscore action: %v", err)
	}
	s, err := os.ReadFile(summaryPath)
	if err != nil {
		t.Fatal(err)
	}
	out, err := os.ReadFile(outputPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("stdout:\n%.3000s\nstderr:\n%.3000s", o.String(), e.String())
		}
	})
	return o.String(), string(s), parseOutputs(t, string(out)), code
}

// parseOutputs reads a GITHUB_OUTPUT file of name<<DELIMITER blocks.
func parseOutputs(t *testing.T, s string) map[string]string {
	t.Helper()
	out := map[string]string{}
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		if lines[i] == "" {
			continue
		}
		name, delim, ok := strings.Cut(lines[i], "<<")
		if !ok || i+2 >= len(lines) || lines[i+2] != delim {
			t.Fatalf("GITHUB_OUTPUT line %d is not name<<DELIMITER, value, DELIMITER: %q", i+1, lines[i:min(i+3, len(lines))])
		}
		if _, dup := out[name]; dup {
			t.Errorf("output %s is set twice", name)
		}
		out[name] = lines[i+1]
		i += 2
	}
	return out
}

// commands returns the workflow commands on stdout: ::name props::message, one per line.
func commands(stdout, name string) []string {
	var out []string
	for _, l := range strings.Split(stdout, "\n") {
		if strings.HasPrefix(l, "::"+name+" ") || strings.HasPrefix(l, "::"+name+"::") {
			out = append(out, l)
		}
	}
	return out
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestActionPullRequest runs a real sweep (local backend) as the action on a pull request:
// the summary, the outputs, the annotations on the manifest's lines, the one comment created
// and then updated in place, then a baseline that the sweep differs from under fail-on change.
func TestActionPullRequest(t *testing.T) {
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, "scenarios", "mine.yaml"), actionManifest)
	api := fakegithub.New("octo-org", "octo-repo")
	defer api.Close()
	api.Token = actionToken
	api.Add(42, fakegithub.User{Login: "octocat", Type: "User"}, "Could someone run toolscore on this?")

	a := newActionRun(t, ws, api, "pull_request.json")
	a.inputs = map[string]string{
		"scenario": "scenarios/mine.yaml", "backend": "local", "runs": "1", "parallel": "2",
		"out": "toolscore-out/pr", "github-token": actionToken, "fail-on": "expect", "comment": "true",
	}
	stdout, summary, outputs, code := a.run()
	if code != 1 {
		t.Fatalf("exit %d, want 1: an expectation does not hold", code)
	}

	// The token is masked before anything else is printed, and never printed itself otherwise.
	if first, _, _ := strings.Cut(stdout, "\n"); first != "::add-mask::"+actionToken {
		t.Errorf("first line %q, want the token's mask", first)
	}
	if strings.Count(stdout, actionToken) != 1 {
		t.Errorf("the token shows %d times on stdout", strings.Count(stdout, actionToken))
	}
	// The sweep's log is a group in which no workflow command is read.
	group := regexp.MustCompile(`(?s)::group::toolscore run\n::stop-commands::(toolscore-[0-9a-f]{32})\n.*\n::(toolscore-[0-9a-f]{32})::\n::endgroup::\n`)
	if m := group.FindStringSubmatch(stdout); m == nil || m[1] != m[2] {
		t.Errorf("no group with stop-commands and its resume around the sweep's log")
	}

	// One error annotation, on the expect entry's line of the manifest, relative to the workspace.
	errs := commands(stdout, "error")
	want := "::error file=scenarios/mine.yaml,line=19,title=expectation not met%3A want threw::client go-sdk/call, fault type-swap, schema published: want threw in every run; got:%0A- go-sdk/call × type-swap × published: passed 1/1"
	if len(errs) != 1 || errs[0] != want {
		t.Errorf("error annotations:\n%s\nwant:\n%s", strings.Join(errs, "\n"), want)
	}
	if w := commands(stdout, "warning"); len(w) != 0 {
		t.Errorf("warnings: %q", w)
	}

	for _, w := range []string{
		"# toolscore: action test\n",
		"## Schema published\n\n| fault | raw | go-sdk/call |\n|---|---|---|\n| clean | passed 1/1 | passed 1/1 |\n| rpc-error | rpc-error 1/1 | rpc-error 1/1 |\n| type-swap | passed 1/1 | passed 1/1 |\n",
		"## Unmet expectations\n\n1 of 2 expectations did not hold.\n",
		"- **line 19**: client go-sdk/call, fault type-swap, schema published → want **threw**",
	} {
		if !strings.Contains(summary, w) {
			t.Errorf("the job summary lacks %q:\n%s", w, summary)
		}
	}
	if strings.Contains(summary, "Changes against the baseline") {
		t.Errorf("a summary with no baseline has a baseline section")
	}
	full, err := os.ReadFile(filepath.Join(ws, "toolscore-out", "pr", action.JobSummaryFile))
	if err != nil || string(full) != summary {
		t.Errorf("%s (%v) is not the job summary", action.JobSummaryFile, err)
	}

	wantOut := map[string]string{
		"results": "toolscore-out/pr/results.json", "dir": "toolscore-out/pr", "summary": "toolscore-out/pr/job-summary.md",
		"html": "toolscore-out/pr/report.html", "junit": "toolscore-out/pr/junit.xml", "ctrf": "toolscore-out/pr/ctrf.json",
		"runs": "12", "unmet": "1", "unchecked": "0", "changed": "0",
		"outcome-passed": "8", "outcome-rpc-error": "4", "outcome-threw": "0", "outcome-altered": "0",
		"outcome-hung": "0", "outcome-crashed": "0", "outcome-oom-killed": "0", "outcome-server-exited": "0", "outcome-rejected": "0", "outcome-no-call": "0", "outcome-not-ready": "0",
		"outcome-unavailable": "0", "outcome-unsupported": "0", "outcome-handshake-failed": "0", "outcome-diverged": "0", "outcome-off-path": "0", "outcome-unobserved": "0",
	}
	if fmt.Sprint(outputs) != fmt.Sprint(wantOut) {
		t.Errorf("outputs:\n%v\nwant:\n%v", outputs, wantOut)
	}
	if _, err := os.Stat(filepath.Join(ws, outputs["results"])); err != nil {
		t.Errorf("the results output does not lead to the file: %v", err)
	}
	checkTestReports(t, filepath.Join(ws, "toolscore-out", "pr"), 1)

	// The comment: created, with the marker, after the comment that was there.
	comments := api.Comments(42)
	marker := prcomment.Marker("action test")
	if len(comments) != 2 || !strings.HasPrefix(comments[1].Body, marker+"\n**toolscore:** 1 of 2 expectations did not hold · [job summary](https://github.com/octo-org/octo-repo/actions/runs/8675309)\n\n# toolscore: action test") {
		t.Fatalf("comments after the first run: %+v", comments)
	}
	if !strings.Contains(stdout, "toolscore: commented on #42: https://github.example/octo-org/octo-repo/pull/42#issuecomment-") {
		t.Errorf("the log does not say where the comment is")
	}
	id := comments[1].ID

	// The second run edits that comment; no new one.
	a.inputs["out"] = "toolscore-out/pr2"
	stdout, _, _, code = a.run()
	comments = api.Comments(42)
	if code != 1 || len(comments) != 2 || comments[1].ID != id || !strings.HasPrefix(comments[1].Body, marker+"\n") {
		t.Fatalf("second run: exit %d, comments %+v; want comment %d edited", code, comments, id)
	}
	var patched bool
	for _, r := range api.Requests() {
		patched = patched || r.Method == http.MethodPatch && r.Path == fmt.Sprintf("/repos/octo-org/octo-repo/issues/comments/%d", id)
	}
	if !patched {
		t.Errorf("the second run did not edit comment %d: %+v", id, api.Requests())
	}
	if !strings.Contains(stdout, "toolscore: updated the comment on #42") {
		t.Errorf("the log does not say the comment was updated")
	}
	for _, r := range api.Requests() {
		if r.Auth != "Bearer "+actionToken {
			t.Errorf("%s %s without the token", r.Method, r.Path)
		}
	}

	// A committed baseline (toolscore baseline's format) in which go-sdk/call validated
	// type-swap: under fail-on change, that cell is news, annotated on the client's line.
	res, err := outdir.ReadResults(filepath.Join(ws, "toolscore-out", "pr", "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	b := tally.NewBaseline(res)
	for i, c := range b.Cells {
		if c.Client == "go-sdk/call" && c.Fault == "type-swap" && c.Schema == "published" {
			b.Cells[i].Outcomes = map[string]int{"threw": 1}
		}
	}
	data, _ := json.MarshalIndent(b, "", "  ")
	writeFile(t, filepath.Join(ws, "toolscore-baseline.json"), string(data))
	a.inputs["baseline"] = "toolscore-baseline.json"
	a.inputs["fail-on"] = "change"
	a.inputs["comment"] = "false"
	a.inputs["out"] = "toolscore-out/pr3"
	stdout, summary, outputs, code = a.run()
	if code != 1 || outputs["changed"] != "1" || outputs["unmet"] != "1" {
		t.Errorf("with the baseline: exit %d, changed %q, unmet %q; want 1, 1, 1", code, outputs["changed"], outputs["unmet"])
	}
	// The changed cell is the one the expectation fails too: one failing case, with two failures.
	checkTestReports(t, filepath.Join(ws, "toolscore-out", "pr3"), 1)
	if html := readFile(t, filepath.Join(ws, outputs["html"])); !strings.Contains(html, "<li>manifest line 14: go-sdk/call × type-swap × published: changed, was threw 1/1, now passed 1/1</li>") {
		t.Errorf("report.html does not list the changed cell with its client's manifest line")
	}
	if junit := readFile(t, filepath.Join(ws, outputs["junit"])); strings.Count(junit, "<failure ") != 2 || !strings.Contains(junit, `message="manifest line 14: changed against the baseline toolscore-baseline.json: was threw 1/1, now passed 1/1" type="baseline"`) {
		t.Errorf("junit.xml with the baseline: want the expectation's and the change's failures:\n%s", junit)
	}
	errs = commands(stdout, "error")
	wantChange := "::error file=scenarios/mine.yaml,line=14,title=changed against the baseline%3A go-sdk/call × type-swap × published::go-sdk/call × type-swap × published: threw 1/1 in the baseline, now passed 1/1"
	if len(errs) != 2 || !strings.HasPrefix(errs[0], "::error file=scenarios/mine.yaml,line=19,") || errs[1] != wantChange {
		t.Errorf("error annotations:\n%s\nwant the unmet expectation, then:\n%s", strings.Join(errs, "\n"), wantChange)
	}
	if !strings.Contains(summary, "## Changes against the baseline\n\nCompared with toolscore-baseline.json: 1 cell changed.\n\n| client | fault | schema | baseline | now |\n|---|---|---|---|---|\n| go-sdk/call | type-swap | published | threw 1/1 | **passed 1/1** |\n") {
		t.Errorf("the summary's baseline section:\n%s", summary[strings.Index(summary, "## Unmet"):])
	}
	if len(api.Comments(42)) != 2 || len(api.Requests()) != 4 {
		t.Errorf("comment: false still commented")
	}

	// The same against results.json as the baseline, under fail-on never: no change, exit 0.
	a.inputs["baseline"] = "toolscore-out/pr/results.json"
	a.inputs["fail-on"] = "never"
	a.inputs["out"] = "toolscore-out/pr4"
	stdout, _, outputs, code = a.run()
	if code != 0 || outputs["changed"] != "0" || len(commands(stdout, "error")) != 0 || len(commands(stdout, "warning")) != 1 {
		t.Errorf("fail-on never: exit %d, changed %q, %d errors, %d warnings; want 0, 0, 0 and the unmet expectation as a warning",
			code, outputs["changed"], len(commands(stdout, "error")), len(commands(stdout, "warning")))
	}
}

// actionResults is a hand-made sweep of actionManifest's scenario, for the tests that merge
// outputs instead of running: n unmet expectations (lines from 100) on top of line 19's.
func actionResults(n int) *tally.Results {
	r := &tally.Results{Scenario: "action test", Toolscore: "test", Backend: "local", Started: sweepStart, Finished: sweepStart.Add(3e9)}
	for _, schema := range []string{"hidden", "published"} {
		for _, f := range []string{"clean", "rpc-error", "type-swap"} {
			for _, c := range []string{"raw", "go-sdk/call"} {
				o := "passed"
				if f == "rpc-error" {
					o = "rpc-error"
				}
				r.Cells = append(r.Cells, &tally.Cell{Cell: record.Cell{Client: c, Fault: f, Schema: schema, Transport: "stdio"}, Runs: 1, Planned: 1, Outcome: map[string]int{o: 1}})
			}
		}
	}
	r.Expectations = []tally.Expectation{{Line: 18, Fault: "rpc-error", Outcome: "rpc-error", Held: true}}
	for i := range n {
		r.Expectations = append(r.Expectations, tally.Expectation{Line: 100 + i, Client: "go-sdk/call", Fault: "type-swap", Schema: "published", Outcome: "threw",
			Misses: []string{"go-sdk/call × type-swap × published: passed 1/1"}})
	}
	return r
}

// TestActionBudget: more unmet expectations than GitHub keeps annotations for: 10 errors, in
// manifest order, then one notice with the count of the rest.
func TestActionBudget(t *testing.T) {
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, "scenarios", "mine.yaml"), actionManifest)
	writeSweep(t, ws, "shard-1", actionResults(27), "{}\n")
	a := newActionRun(t, ws, nil, "schedule.json")
	a.inputs = map[string]string{"scenario": "scenarios/mine.yaml", "merge": "shard-*", "out": "merged", "fail-on": "expect"}
	stdout, summary, outputs, code := a.run()
	if code != 1 || outputs["unmet"] != "27" {
		t.Fatalf("exit %d, unmet %q; want 1 and 27", code, outputs["unmet"])
	}
	errs := commands(stdout, "error")
	if len(errs) != 10 {
		t.Fatalf("%d error annotations, want 10", len(errs))
	}
	for i, e := range errs {
		if !strings.HasPrefix(e, "::error file=scenarios/mine.yaml,line="+strconv.Itoa(100+i)+",title=expectation not met") {
			t.Errorf("error %d: %q", i, e)
		}
	}
	notices := commands(stdout, "notice")
	want := "::notice file=scenarios/mine.yaml,title=17 more in the job summary::17 more findings are not annotated here (17 unmet expectations): GitHub shows at most 10 errors and 10 warnings per step. The job summary lists every one."
	if len(notices) != 1 || notices[0] != want {
		t.Errorf("notices:\n%s\nwant:\n%s", strings.Join(notices, "\n"), want)
	}
	if n := strings.Count(summary, "- **line "); n != 27 {
		t.Errorf("the summary lists %d unmet expectations, want all 27", n)
	}
	if !regexp.MustCompile(`(?s)::group::toolscore merge\n::stop-commands::`).MatchString(stdout) {
		t.Errorf("the merge's log is not a group without commands")
	}
}

// TestActionFork: a pull request from a fork gets a read-only token; the comment is refused
// with 403, and that is a notice, not a failure.
func TestActionFork(t *testing.T) {
	for _, status := range []int{http.StatusForbidden, http.StatusNotFound} {
		t.Run(strconv.Itoa(status), func(t *testing.T) {
			ws := t.TempDir()
			writeSweep(t, ws, "out", actionResults(0), "{}\n")
			api := fakegithub.New("octo-org", "octo-repo")
			defer api.Close()
			api.Deny = status
			a := newActionRun(t, ws, api, "pull_request.json")
			a.inputs = map[string]string{"merge": "out", "out": "merged", "github-token": actionToken}
			stdout, summary, _, code := a.run()
			if code != 0 {
				t.Errorf("exit %d, want 0: every expectation held and a comment is never a reason to fail", code)
			}
			want := fmt.Sprintf("::notice::toolscore: the token may not comment on #42 (HTTP %d; a pull request from a fork gets a read-only token), so there is no pull-request comment; the job summary has the report", status)
			if n := commands(stdout, "notice"); len(n) != 1 || n[0] != want {
				t.Errorf("notices %q, want %q", n, want)
			}
			if len(commands(stdout, "error"))+len(commands(stdout, "warning")) != 0 || !strings.Contains(summary, "# toolscore: action test") {
				t.Errorf("errors or warnings, or no summary")
			}
		})
	}
}

// TestActionNotPullRequest: a scheduled run has no pull request to comment on, and the
// embedded scenario is no file of this workspace, so annotations anchor nothing.
func TestActionNotPullRequest(t *testing.T) {
	ws := t.TempDir()
	r := actionResults(1)
	r.Scenario = "ledger balance"
	writeSweep(t, ws, "out", r, "{}\n")
	api := fakegithub.New("octo-org", "octo-repo")
	defer api.Close()
	a := newActionRun(t, ws, api, "schedule.json")
	a.inputs = map[string]string{"merge": "out", "out": "merged", "github-token": actionToken}
	stdout, _, _, code := a.run()
	if code != 1 || len(api.Requests()) != 0 {
		t.Errorf("exit %d, %d API requests; want 1 and none", code, len(api.Requests()))
	}
	if e := commands(stdout, "error"); len(e) != 1 || !strings.HasPrefix(e[0], "::error title=expectation not met%3A want threw::") {
		t.Errorf("errors %q, want one anchored to no file", e)
	}
}

// TestActionHostile: everything a server under test (or a hand-edited results file) can put
// in the results comes out escaped in the summary, the comment and the annotations.
func TestActionHostile(t *testing.T) {
	hostile := []string{
		"a | b || c", "`rm -rf /` and ```fence```", "<script>alert(1)</script>", `<img src=x onerror="alert(1)">`,
		"cc @someone and @org/team", "line\n::error::injected\r\n::add-mask::x", "%0A::warning::encoded",
		"[click](https://evil.example)", "fixes #1", "\x1b[2J\x1b[31mred", "\u202eevil", "<!-- hidden -->",
		"x\n_GitHubActionsFileCommandDelimeter_\nunmet<<EOF\n999\nEOF",
	}
	// What a server under test says reaches the results as evidence (exception texts, what
	// differed); a client that cannot run gives a reason. Those may be huge.
	huge := []string{strings.Repeat("A", 1<<20), strings.Repeat("|`<@\n", 1<<16), strings.Repeat("@someone <script> ", 1<<16)}
	r := &tally.Results{Scenario: "action test", Backend: hostile[2], BackendWhy: huge[1], Toolscore: hostile[1]}
	at := func(i, j int) string { // one huge string after the j-th hostile one
		if i == j {
			return huge[j%len(huge)]
		}
		return ""
	}
	for i, s := range hostile {
		c := &tally.Cell{Cell: record.Cell{Client: s, Fault: hostile[(i+3)%len(hostile)], Schema: "hidden", Transport: "stdio"}, Runs: 2, Planned: 2,
			Outcome:  map[string]int{"passed": 1, s: 1},
			Examples: map[string]tally.Example{s: {Run: 1, Evidence: s + at(i, 0) + at(i, 1) + at(i, 2), Tee: s}}}
		r.Cells = append(r.Cells, c)
		r.Unavailable = append(r.Unavailable, tally.Unavailable{Client: s, Reason: s + at(i, 3)})
		r.Expectations = append(r.Expectations, tally.Expectation{Line: 18 + i, Client: s, Fault: "*", Outcome: s, Misses: []string{s + at(i, 4), s}})
	}
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, "scenarios", "mine.yaml"), actionManifest)
	writeSweep(t, ws, "out", r, "{}\n")
	// The baseline differs in every cell.
	base := *r
	base.Cells = nil
	for _, c := range r.Cells {
		cc := *c
		cc.Outcome = map[string]int{"threw": 2}
		base.Cells = append(base.Cells, &cc)
	}
	writeSweep(t, ws, "base", &base, "")
	api := fakegithub.New("octo-org", "octo-repo")
	defer api.Close()
	a := newActionRun(t, ws, api, "pull_request.json")
	a.inputs = map[string]string{"scenario": "scenarios/mine.yaml", "merge": "out", "out": "merged", "baseline": "base/results.json",
		"fail-on": "change", "github-token": actionToken}
	stdout, summary, outputs, code := a.run()
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}

	// Stdout: every line that starts a workflow command is one of ours, whole on its line.
	ours := regexp.MustCompile(`^::(add-mask|group|endgroup|stop-commands|toolscore-[0-9a-f]{32}|error|warning|notice)( [a-z]+=[^:,\r]*(,[a-z]+=[^:,\r]*)*)?::[^\r]*$`)
	for i, l := range strings.Split(stdout, "\n") {
		if strings.HasPrefix(l, "::") && !ours.MatchString(l) {
			t.Errorf("stdout line %d is a workflow command not of ours: %.200q", i, l)
		}
		if strings.HasPrefix(l, "::error::injected") || strings.HasPrefix(l, "::add-mask::x") || strings.HasPrefix(l, "::warning::encoded") {
			t.Errorf("a hostile string issued a command: %q", l)
		}
	}
	anns := append(append(commands(stdout, "error"), commands(stdout, "warning")...), commands(stdout, "notice")...)
	if len(commands(stdout, "error")) != 10 || len(commands(stdout, "warning")) > 10 {
		t.Errorf("%d errors, %d warnings: the budget is 10 each", len(commands(stdout, "error")), len(commands(stdout, "warning")))
	}
	for _, l := range anns {
		if len(l) > 3*action.AnnotationLimit+1000 || !utf8.ValidString(l) || regexp.MustCompile("[\x00-\x1f\x7f\u202a-\u202e]").MatchString(l) {
			t.Errorf("annotation of %d bytes with a control character or bad UTF-8: %.200q", len(l), l)
		}
	}

	// The summary and the comment: no HTML, mention, link or broken table gets through.
	comments := api.Comments(42)
	if len(comments) != 1 {
		t.Fatalf("%d comments, want 1", len(comments))
	}
	body := comments[0].Body
	if n := utf8.RuneCountInString(body); n > action.CommentLimit {
		t.Errorf("the comment is %d characters", n)
	}
	if len(summary) > action.SummaryLimit {
		t.Errorf("the summary is %d bytes", len(summary))
	}
	for name, md := range map[string]string{"summary": summary, "comment": body} {
		for _, bad := range []string{"<script", "<img", "\x1b", "@someone", "@org", "https://evil", "\u202e", "#1", "\n::"} {
			if strings.Contains(md, bad) {
				t.Errorf("the %s contains %q", name, bad)
			}
		}
		if strings.Count(md, "<!--") != strings.Count(md, prcomment.Marker("action test")) {
			t.Errorf("the %s has an HTML comment besides the marker", name)
		}
		cols := 0
		for _, line := range strings.Split(md, "\n") {
			if !strings.HasPrefix(line, "|") {
				cols = 0
				continue
			}
			n := len(regexp.MustCompile(`(^|[^\\])(\\\\)*\|`).FindAllString(line, -1))
			if cols == 0 {
				cols = n
			} else if n != cols {
				t.Errorf("%s: a table row has %d separators, its header %d: %.120q", name, n, cols, line)
			}
		}
	}
	// Outputs carry no outcome named by a hostile string, and nothing smuggled in.
	for k, v := range outputs {
		if !regexp.MustCompile(`^[a-z0-9-]+$`).MatchString(k) || strings.ContainsAny(v, "\r\n") {
			t.Errorf("output %q = %q", k, v)
		}
	}
	if outputs["unmet"] != strconv.Itoa(len(hostile)) || outputs["changed"] != strconv.Itoa(len(hostile)) {
		t.Errorf("unmet %q changed %q, want %d each", outputs["unmet"], outputs["changed"], len(hostile))
	}
}

// TestActionUsage: inputs that cannot work stop before anything runs, with exit 2 and an
// error annotation that says why; a manifest's errors are annotated on their lines.
func TestActionUsage(t *testing.T) {
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, "bad.yaml"), strings.Replace(actionManifest, "  - type-swap\n", "  - type-swop\n", 1))
	writeFile(t, filepath.Join(ws, "broken.json"), "{\"scenario\": ")
	writeFile(t, filepath.Join(ws, "good.yaml"), actionManifest)
	writeFile(t, filepath.Join(ws, "noserver.yaml"), strings.Replace(actionManifest, "  builtin: ledger\n", "  command: [toolscore-no-such-server]\n", 1))
	writeFile(t, filepath.Join(ws, "other.json"), `{"format": "toolscore-baseline/1", "scenario": "weather", "cells": []}`)
	for _, tc := range []struct {
		name   string
		inputs map[string]string
		want   string
	}{
		{"fail-on", map[string]string{"fail-on": "sometimes"}, `::error::toolscore: input fail-on "sometimes": want expect, change, unchecked or never (change,unchecked for both)`},
		{"runs", map[string]string{"runs": "three"}, `::error::toolscore: input runs "three": want a whole number of 1 or more`},
		{"comment", map[string]string{"comment": "maybe"}, `::error::toolscore: input comment "maybe": want true or false`},
		{"backend", map[string]string{"backend": "k8s"}, `::error::toolscore: input backend "k8s": want auto, docker or local`},
		{"change without baseline", map[string]string{"fail-on": "change"}, "::error::toolscore: fail-on change needs a baseline to compare with (input baseline)"},
		{"baseline of a shard", map[string]string{"baseline": "b.json", "shard": "1/2"}, "::error::toolscore: input baseline compares a whole sweep"},
		{"bad baseline", map[string]string{"baseline": "broken.json"}, "::error::toolscore: baseline: broken.json:1:13: not valid JSON"},
		{"baseline of another scenario", map[string]string{"scenario": "good.yaml", "baseline": "other.json", "backend": "local"}, `::error::toolscore: the baseline other.json holds the scenario "weather", the manifest is "action test"`},
		{"merge nothing", map[string]string{"merge": "shards/*"}, `::error::toolscore: input merge: nothing matches "shards/*"`},
		{"bad manifest", map[string]string{"scenario": "bad.yaml", "backend": "local"}, `::error col=5,file=bad.yaml,line=10,title=toolscore%3A manifest error::faults[2]: unknown fault "type-swop"; did you mean "type-swap"? (known: clean,`},
		{"bad shard", map[string]string{"shard": "4/3", "backend": "local"}, "::error::toolscore: nothing ran: a usage or manifest error, printed in the group above"},
		{"server that cannot start", map[string]string{"scenario": "noserver.yaml", "backend": "local"}, `::error col=13,file=noserver.yaml,line=3,title=toolscore%3A manifest error::server.command[0]: the server command "toolscore-no-such-server" cannot be started: exec: "toolscore-no-such-server": executable file not found in $PATH`},
		{"max-runs", map[string]string{"max-runs": "-1"}, `::error::toolscore: input max-runs "-1": want a whole number of 1 or more`},
		{"over max-runs", map[string]string{"scenario": "good.yaml", "backend": "local", "max-runs": "1"}, "::error::toolscore: nothing ran: a usage or manifest error"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := newActionRun(t, ws, nil, "schedule.json")
			a.inputs = tc.inputs
			stdout, summary, outputs, code := a.run()
			if code != 2 {
				t.Errorf("exit %d, want 2", code)
			}
			if e := commands(stdout, "error"); len(e) == 0 || !strings.HasPrefix(e[0], tc.want) {
				t.Errorf("errors %q, want the first to start %q", e, tc.want)
			}
			if summary != "" || len(outputs) != 0 {
				t.Errorf("a usage error wrote a summary or outputs")
			}
		})
	}
}

// TestActionSummaryCut: a summary over GitHub's 1 MiB is cut under it at a line, with a note
// where the whole report is: job-summary.md in the output directory.
func TestActionSummaryCut(t *testing.T) {
	r := &tally.Results{Scenario: "action test", Backend: "local"}
	for f := range 300 {
		for c := range 20 {
			outcome := fmt.Sprintf("outcome-%03d-%s", f, strings.Repeat("x", 200))
			r.Cells = append(r.Cells, &tally.Cell{Cell: record.Cell{Client: fmt.Sprintf("client-%02d", c), Fault: fmt.Sprintf("fault-%03d", f), Schema: "hidden", Transport: "stdio"}, Runs: 1, Planned: 1, Outcome: map[string]int{outcome: 1}})
		}
	}
	ws := t.TempDir()
	writeSweep(t, ws, "out", r, "{}\n")
	a := newActionRun(t, ws, nil, "schedule.json")
	a.inputs = map[string]string{"merge": "out", "out": "merged"}
	_, summary, outputs, code := a.run()
	if code != 0 {
		t.Errorf("exit %d", code)
	}
	full, err := os.ReadFile(filepath.Join(ws, outputs["summary"]))
	if err != nil {
		t.Fatal(err)
	}
	if len(full) <= action.SummaryLimit {
		t.Fatalf("the whole summary is %d bytes, not over the limit", len(full))
	}
	note := "\n> **The summary is cut here**: GitHub keeps 1 MiB of it. The whole report is in merged/job-summary.md (upload the output directory, merged, as an artifact to keep it).\n"
	if len(summary) > action.SummaryLimit || !strings.HasSuffix(summary, note) || !strings.HasPrefix(string(full), strings.TrimSuffix(summary, note)) {
		t.Errorf("the step summary: %d bytes, ending %q", len(summary), summary[max(len(summary)-300, 0):])
	}
	if !strings.HasSuffix(strings.TrimSuffix(summary, note), "|\n") {
		t.Errorf("the summary is not cut at the end of a table row")
	}
}

// TestActionSharded is examples/workflows/sharded.yml: a plan job prints the matrix, its jobs
// each run their shard, and the merge job merges their outputs into the counts of the whole
// sweep, with one set of annotations and one comment. Planned without shard-by, the shards
// deal out the runs; with shard-by (an earlier sweep's output), each runs whole cells.
func TestActionSharded(t *testing.T) {
	for _, by := range []bool{false, true} {
		t.Run(fmt.Sprintf("shard-by %v", by), func(t *testing.T) {
			ws := t.TempDir()
			writeFile(t, filepath.Join(ws, "scenarios", "mine.yaml"), actionManifest)
			api := fakegithub.New("octo-org", "octo-repo")
			defer api.Close()
			shardBy := ""
			if by {
				a := newActionRun(t, ws, api, "pull_request.json")
				a.inputs = map[string]string{"scenario": "scenarios/mine.yaml", "backend": "local", "runs": "1", "out": "earlier", "fail-on": "never", "comment": "false"}
				if _, _, _, code := a.run(); code != 0 {
					t.Fatalf("the earlier sweep: exit %d", code)
				}
				shardBy = "earlier"
			}
			plan := newActionRun(t, ws, api, "pull_request.json")
			plan.inputs = map[string]string{"scenario": "scenarios/mine.yaml", "plan": "2", "shard-by": shardBy}
			_, _, outputs, code := plan.run()
			var m struct{ Include []sweep.Shard }
			if err := json.Unmarshal([]byte(outputs["matrix"]), &m); code != 0 || err != nil || len(m.Include) != 2 {
				t.Fatalf("plan: exit %d, matrix %q (%v)", code, outputs["matrix"], err)
			}
			total := 0
			for i, job := range m.Include {
				total += job.Runs
				a := newActionRun(t, ws, api, "pull_request.json")
				a.inputs = map[string]string{"scenario": "scenarios/mine.yaml", "backend": "local", "runs": "1", "shard": job.Shard, "shard-by": shardBy,
					"out": fmt.Sprintf("shards/toolscore-shard-%d", i), "fail-on": "never", "comment": "false", "github-token": actionToken}
				_, _, outputs, code := a.run()
				if code != 0 || outputs["runs"] != fmt.Sprint(job.Runs) {
					t.Fatalf("shard %s: exit %d, %s runs; want 0 and the %d its plan says", job.Shard, code, outputs["runs"], job.Runs)
				}
			}
			if total != 12 {
				t.Errorf("the plan has %d runs in all, want the sweep's 12", total)
			}
			a := newActionRun(t, ws, api, "pull_request.json")
			a.inputs = map[string]string{"scenario": "scenarios/mine.yaml", "merge": "shards/*", "out": "toolscore-out/merged", "github-token": actionToken}
			stdout, summary, outputs, code := a.run()
			if code != 1 || outputs["runs"] != "12" || outputs["unmet"] != "1" || outputs["outcome-passed"] != "8" || outputs["outcome-rpc-error"] != "4" {
				t.Errorf("merged: exit %d, outputs %v; want exit 1 and the unsharded counts", code, outputs)
			}
			if e := commands(stdout, "error"); len(e) != 1 || !strings.HasPrefix(e[0], "::error file=scenarios/mine.yaml,line=19,") {
				t.Errorf("errors %q, want the one unmet expectation on line 19", e)
			}
			if !strings.Contains(summary, "| type-swap | passed 1/1 | passed 1/1 |") || strings.Contains(summary, "not run") {
				t.Errorf("the merged summary:\n%s", summary)
			}
			if c := api.Comments(42); len(c) != 1 || !strings.HasPrefix(c[0].Body, prcomment.Marker("action test")+"\n") {
				t.Errorf("comments %+v, want one from the merge job", c)
			}
		})
	}
}

// TestActionMasksModelKeys: the key of a real model, from the step's environment (a secret), is
// masked in the workflow's log before anything runs, and is in no file of the results.
func TestActionMasksModelKeys(t *testing.T) {
	ws := t.TempDir()
	const key = "sk-ant-action-test-secret-0123456789"
	manifest := `name: real model in the action
server: {builtin: ledger}
tool: get_account_balance
arguments: {account_id: ACC-4471}
faults: [clean]
schema_modes: [hidden]
clients:
  - raw
  - name: claude-code
    model: {name: some-model, url: "http://127.0.0.1:9"}
runs: 1
`
	if err := os.WriteFile(filepath.Join(ws, "real.yaml"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	a := newActionRun(t, ws, nil, "schedule.json")
	a.env["ANTHROPIC_API_KEY"] = key
	a.inputs = map[string]string{"scenario": "real.yaml", "backend": "local", "out": "out", "comment": "false"}
	stdout, summary, _, _ := a.run()
	first := strings.Index(stdout, "::add-mask::"+key)
	if first < 0 || first > strings.Index(stdout, "::group::") {
		t.Errorf("the key is not masked before the sweep's log starts:\n%s", stdout)
	}
	if strings.Count(stdout, key) != 1 || strings.Contains(summary, key) {
		t.Errorf("the key appears beyond its mask command")
	}
	if leaks := keyIn(t, filepath.Join(ws, "out"), key); len(leaks) > 0 {
		t.Errorf("the key is in %v", leaks)
	}
}
