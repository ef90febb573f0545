package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/sethvargo/go-githubactions"

	"github.com/toolscore/toolscore/runner"
	"github.com/toolscore/toolscore/runner/backend"
	"github.com/toolscore/toolscore/runner/client"
	"github.com/toolscore/toolscore/runner/fault"
	"github.com/toolscore/toolscore/runner/report"
	"github.com/toolscore/toolscore/runner/report/prcomment"
	"github.com/toolscore/toolscore/runner/scenario"
	"github.com/toolscore/toolscore/runner/tally"
	"github.com/toolscore/toolscore/scenarios"
)

// jobSummaryFile is the name, in the output directory, of the whole job summary, kept there
// because GitHub keeps only 1 MiB of it.
const jobSummaryFile = "job-summary.md"

// actionCmd is the GitHub Action's entrypoint (action.yml runs the image with args [action]).
// It reads the inputs from INPUT_* and the event from GITHUB_EVENT_PATH, so it runs the same
// outside GitHub, e.g. in a test: it runs the sweep (or merges shards' outputs), writes the
// job summary, the step outputs and the annotations, compares with the baseline, and keeps
// one comment on the pull request.
func actionCmd(ctx context.Context, args []string) int {
	if len(args) > 0 {
		fmt.Fprintf(os.Stderr, "toolscore action takes no arguments (its inputs are INPUT_* variables), got %q\n", args)
		return exitUsage
	}
	return runAction(ctx, os.Getenv, os.Stdout, os.Stderr)
}

// actionInputs are the action's inputs, parsed.
type actionInputs struct {
	sweep    sweepArgs
	merge    []string // output directories to merge instead of running a sweep
	baseline string
	failOn   report.FailOn
	comment  bool
	token    string
}

func runAction(ctx context.Context, getenv func(string) string, stdout, stderr io.Writer) int {
	gha := githubactions.New(githubactions.WithWriter(stdout), githubactions.WithGetenv(getenv))
	in, err := readInputs(gha)
	if err != nil {
		gha.Errorf("%s", "toolscore: "+err.Error())
		return exitUsage
	}
	ghctx, err := gha.Context()
	if err != nil {
		gha.Warningf("%s", "toolscore: reading the workflow context: "+err.Error())
		if ghctx == nil { // the event did not parse: no pull request, but the rest still holds
			ghctx = &githubactions.GitHubContext{Workspace: getenv("GITHUB_WORKSPACE"), Repository: getenv("GITHUB_REPOSITORY")}
		}
	}
	workspace := ghctx.Workspace
	if workspace == "" {
		workspace, _ = os.Getwd()
	}

	// The baseline is read before anything runs: a bad one is a usage error, like a bad manifest.
	var base *tally.Results
	var cmp *report.Comparison
	if in.baseline != "" {
		cmp = &report.Comparison{Baseline: in.baseline}
		base, err = readBaseline(in.baseline)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			cmp.Missing = true
			gha.Warningf("%s", fmt.Sprintf("toolscore: no baseline at %s yet: nothing to compare with this time", in.baseline))
		case err != nil:
			gha.Errorf("%s", "toolscore: baseline: "+err.Error())
			return exitUsage
		}
	}

	// A baseline of another scenario compares nothing (toolscore diff refuses it too); the
	// manifest's name is known before the sweep, a merge's only after it.
	if base != nil && len(in.merge) == 0 {
		if sc, err := loadScenario(in.sweep.Scenario); err == nil && sc.Name != base.Scenario {
			gha.Errorf("%s", fmt.Sprintf("toolscore: the baseline %s holds the scenario %q, the manifest is %q: take a baseline of this scenario (toolscore baseline)",
				in.baseline, base.Scenario, sc.Name))
			return exitUsage
		}
	}

	// The keys of real models and the values server.env takes from_env are masked in the
	// workflow's log, whatever prints them.
	if len(in.merge) == 0 {
		if sc, err := loadScenario(in.sweep.Scenario); err == nil {
			for _, c := range sc.Clients {
				if c.Model != nil {
					if key := getenv(runner.ModelKeyEnv(c)); key != "" {
						gha.AddMask(key)
					}
				}
			}
			_, secrets, _ := sc.ServerEnv(func(k string) (string, bool) { v := getenv(k); return v, v != "" })
			for _, v := range secrets {
				gha.AddMask(v)
			}
			// backend auto is docker or nothing: the local backend would run the server under
			// test in this container, beside the runner's token and workspace.
			if in.sweep.Backend == "auto" {
				if _, err := backend.NewDocker(ctx); err != nil {
					gha.Errorf("%s", "toolscore: no Docker engine, so nothing ran: with backend auto every server under test runs in a container of its own, "+
						"never beside the runner's token. Give the action a Docker engine: a container action gets the runner's /var/run/docker.sock "+
						"when Docker runs on the runner (on a self-hosted runner, install Docker and let the runner's user use it, or set DOCKER_HOST "+
						"in the step's env). Or set `backend: local` to accept running the server in the action's own container, beside the runner's "+
						"token and workspace. ("+err.Error()+")")
					return exitUsage
				}
			}
		}
	}

	// The sweep's log is one group, and no line of it is read as a workflow command: what a
	// server under test says may end up in it.
	title := "toolscore run"
	if len(in.merge) > 0 {
		title = "toolscore merge"
	}
	gha.Group(title)
	resume := stopCommands(gha)
	stderrLines := &tailWriter{w: stderr, limit: 64 << 10}
	res, sc, out, code := actionSweep(ctx, in, stdout, stderrLines)
	resume()
	gha.EndGroup()

	if res == nil {
		if code == exitUsage {
			annotateUsage(gha, stderrLines.String(), workspace)
			return exitUsage
		}
		gha.Errorf("%s", "toolscore: the sweep did not run to the end; its log is in the group above")
		return max(code, 1)
	}
	broken := code != exitOK && code != exitInterrupted && unmet(res) == 0 // e.g. results.json unwritable

	if base != nil {
		if base.Scenario != res.Scenario {
			gha.Errorf("%s", fmt.Sprintf("toolscore: the baseline %s holds the scenario %q, the results %q: take a baseline of this scenario (toolscore baseline)",
				in.baseline, base.Scenario, res.Scenario))
			return exitUsage
		}
		cmp.Changes = tally.Diff(base, res)
	}

	// The job summary, whole in the output directory, cut to GitHub's 1 MiB in the step's.
	var full bytes.Buffer
	if err := report.Summary(&full, res, cmp); err != nil {
		gha.Warningf("%s", "toolscore: rendering the job summary: "+err.Error())
	}
	fullPath := filepath.Join(out, jobSummaryFile)
	if err := os.WriteFile(fullPath, full.Bytes(), 0o644); err != nil {
		gha.Warningf("%s", "toolscore: "+err.Error())
	}
	if path := getenv("GITHUB_STEP_SUMMARY"); path != "" {
		note := fmt.Sprintf("\n> **The summary is cut here**: GitHub keeps 1 MiB of it. The whole report is in %s (upload the output directory, %s, as an artifact to keep it).\n",
			report.EscapeMarkdown(filepath.ToSlash(fullPath)), report.EscapeMarkdown(filepath.ToSlash(out)))
		summary, _ := report.Cut(full.String(), report.SummaryLimit-4096, note)
		if err := appendFile(path, summary); err != nil {
			gha.Warningf("%s", "toolscore: writing the job summary: "+err.Error())
		}
	}

	setOutputs(gha, getenv, res, cmp, out, fullPath)

	// Annotations on the manifest's lines, when the manifest is a file of this workspace.
	file := ""
	if sc != nil && sc.Name == res.Scenario {
		file = manifestFile(in.sweep.Scenario, workspace)
	}
	report.Annotate(gha, report.Annotations(report.AnnotationInput{
		Results: res, Scenario: sc, File: file, Compare: cmp, FailOn: in.failOn,
	}, report.DefaultBudget))

	if in.comment && !res.Interrupted {
		prComment(ctx, gha, ghctx, in, res, cmp, full.String())
	}

	changed := 0
	if cmp != nil {
		changed = len(cmp.Changes)
	}
	_, missed, open := tally.Count(res.Expectations)
	switch {
	case res.Interrupted:
		gha.Infof("%s", "toolscore: interrupted; the runs that finished are counted in the summary")
		return exitInterrupted
	case broken:
		return 1
	}
	var why []string
	if missed > 0 && in.failOn.Unmet() {
		why = append(why, fmt.Sprintf("%d %s not hold", missed, plural(missed, "expectation did", "expectations did")))
	}
	if open > 0 && in.failOn.Unchecked() {
		why = append(why, fmt.Sprintf("%d %s not checked", open, plural(open, "expectation was", "expectations were")))
	}
	if changed > 0 && in.failOn.Change() {
		why = append(why, fmt.Sprintf("%d %s against the baseline", changed, plural(changed, "cell changed", "cells changed")))
	}
	if len(why) > 0 {
		gha.Infof("%s", fmt.Sprintf("toolscore: the check fails (fail-on: %s): %s", in.failOn, strings.Join(why, "; ")))
		return 1
	}
	gha.Infof("%s", fmt.Sprintf("toolscore: the check passes (fail-on: %s): %s", in.failOn, report.Verdict(res, cmp)))
	return exitOK
}

// readInputs reads and checks the action's inputs. GitHub passes input NAME as the variable
// INPUT_NAME, upper-cased with hyphens kept (INPUT_FAIL-ON), which is what GetInput reads.
func readInputs(gha *githubactions.Action) (actionInputs, error) {
	in := actionInputs{
		sweep: sweepArgs{
			Scenario: gha.GetInput("scenario"),
			Clients:  splitList(gha.GetInput("clients")),
			Faults:   splitList(gha.GetInput("faults")),
			Schemas:  splitList(gha.GetInput("schema")),
			Shard:    gha.GetInput("shard"),
			Out:      gha.GetInput("out"),
		},
		baseline: gha.GetInput("baseline"),
		token:    gha.GetInput("github-token"),
	}
	// First of all, so the token shows as *** wherever it might be printed.
	if in.token != "" {
		gha.AddMask(in.token)
	}
	var errs []error
	for _, n := range []struct {
		name string
		to   *int
	}{{"runs", &in.sweep.Runs}, {"max-runs", &in.sweep.MaxRuns}, {"parallel", &in.sweep.Parallel}} {
		if v := gha.GetInput(n.name); v != "" {
			i, err := strconv.Atoi(v)
			if err != nil || i < 1 {
				errs = append(errs, fmt.Errorf("input %s %q: want a whole number of 1 or more", n.name, v))
			}
			*n.to = i
		}
	}
	switch b := strings.ToLower(gha.GetInput("backend")); b {
	case "", "auto":
		in.sweep.Backend = "auto"
	case "docker", "local":
		in.sweep.Backend = b
	default:
		errs = append(errs, fmt.Errorf("input backend %q: want auto, docker or local", b))
	}
	var err error
	if in.failOn, err = report.ParseFailOn(gha.GetInput("fail-on")); err != nil {
		errs = append(errs, fmt.Errorf("input %w", err))
	}
	switch c := strings.ToLower(gha.GetInput("comment")); c {
	case "", "true", "yes", "on", "1":
		in.comment = true
	case "false", "no", "off", "0":
	default:
		errs = append(errs, fmt.Errorf("input comment %q: want true or false", c))
	}
	if m := gha.GetInput("merge"); m != "" {
		for _, pattern := range strings.FieldsFunc(m, func(r rune) bool { return r == '\n' || r == ',' || r == ' ' }) {
			matches, err := filepath.Glob(pattern)
			if err != nil {
				errs = append(errs, fmt.Errorf("input merge %q: %w", pattern, err))
				continue
			}
			if len(matches) == 0 {
				errs = append(errs, fmt.Errorf("input merge: nothing matches %q", pattern))
			}
			for _, dir := range matches {
				if st, err := os.Stat(dir); err == nil && st.IsDir() && !slices.Contains(in.merge, dir) {
					in.merge = append(in.merge, dir)
				}
			}
		}
		if len(in.merge) > 0 && (in.sweep.Shard != "" || len(in.sweep.Clients)+len(in.sweep.Faults)+len(in.sweep.Schemas) > 0 || in.sweep.Runs > 0) {
			errs = append(errs, errors.New("input merge joins outputs that ran already: it takes no shard, clients, faults, schema or runs"))
		}
	}
	if in.failOn.Change() && in.baseline == "" {
		errs = append(errs, errors.New("fail-on change needs a baseline to compare with (input baseline)"))
	}
	if in.baseline != "" && in.sweep.Shard != "" {
		errs = append(errs, errors.New("input baseline compares a whole sweep, and a shard is a slice of one: give the baseline to the job that merges the shards"))
	}
	return in, errors.Join(errs...)
}

// actionSweep runs the sweep the inputs ask for, or merges the outputs they name. sc is the
// manifest, filtered as the sweep ran it, for the annotations' lines; nil when it did not load.
func actionSweep(ctx context.Context, in actionInputs, stdout, stderr io.Writer) (*tally.Results, *scenario.Scenario, string, int) {
	if len(in.merge) == 0 {
		return runSweep(ctx, in.sweep, stdout, stderr)
	}
	out := in.sweep.Out
	if out == "" {
		out = filepath.Join("toolscore-out", "merged-"+time.Now().Format("20060102-150405"))
	}
	code := mergeCmd(ctx, append([]string{"--out", out}, in.merge...))
	if code == exitUsage {
		return nil, nil, out, code
	}
	res, err := readResults(filepath.Join(out, "results.json"))
	if err != nil {
		fmt.Fprintln(stderr, "toolscore action:", err)
		return nil, nil, out, 1
	}
	sc, _ := loadScenario(in.sweep.Scenario)
	return res, sc, out, code
}

// loadScenario loads a manifest as toolscore run does; "" is the embedded ledger.
func loadScenario(path string) (*scenario.Scenario, error) {
	data := scenarios.Ledger
	if path == "" {
		path = scenarios.LedgerPath
	} else {
		var err error
		if data, err = scenario.ReadFile(path); err != nil {
			return nil, err
		}
	}
	return scenario.Load(path, data, scenario.Known{Faults: fault.Names(), Clients: client.Names(), Builtins: builtinServers, Agents: client.AgentNames()})
}

// readBaseline reads the results a sweep is compared with: a results.json, the output
// directory holding one, or a file toolscore baseline wrote (readBase tells them apart). A
// missing file is fs.ErrNotExist.
func readBaseline(path string) (*tally.Results, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, err
	}
	return readBase(path)
}

// manifestFile is the manifest's path relative to the workspace, as annotations name files,
// or "" when it is not a file there: the embedded ledger counts as scenarios/ledger.yaml only
// where that file is the same (in toolscore's own repository).
func manifestFile(path, workspace string) string {
	if path == "" {
		data, err := os.ReadFile(filepath.Join(workspace, scenarios.LedgerPath))
		if err != nil || !bytes.Equal(data, scenarios.Ledger) {
			return ""
		}
		return scenarios.LedgerPath
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return ""
	}
	ws, err := filepath.Abs(workspace)
	if err != nil {
		return ""
	}
	rel, err := filepath.Rel(ws, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return ""
	}
	return filepath.ToSlash(rel)
}

// outputName is what an outcome may be called in an output name: GitHub's outputs file has no
// escaping, so a name from a results file must not carry anything else.
var outputName = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`)

// setOutputs writes the step's outputs: the results and output directory, the number of
// unmet and unchecked expectations and changed cells, and the total of every outcome (outcome-NAME), each
// known outcome even at 0, so a workflow can test them.
func setOutputs(gha *githubactions.Action, getenv func(string) string, res *tally.Results, cmp *report.Comparison, out, summary string) {
	if getenv("GITHUB_OUTPUT") == "" {
		return
	}
	totals := map[string]int{}
	for _, o := range scenario.Outcomes() {
		totals[string(o)] = 0
	}
	totals["rejected"], totals["no-call"] = 0, 0 // an agent's (runner/grade/agent.go)
	runs := 0
	for _, c := range res.Cells {
		if c == nil {
			continue
		}
		runs += c.Runs
		for o, n := range c.Outcome {
			totals[o] += n
		}
	}
	changed := 0
	if cmp != nil {
		changed = len(cmp.Changes)
	}
	set := func(k, v string) {
		defer func() {
			if r := recover(); r != nil { // go-githubactions panics when it cannot write
				gha.Warningf("%s", fmt.Sprintf("toolscore: setting output %s: %v", k, r))
			}
		}()
		gha.SetOutput(k, v)
	}
	set("results", filepath.ToSlash(filepath.Join(out, "results.json")))
	set("dir", filepath.ToSlash(out))
	set("summary", filepath.ToSlash(summary))
	set("runs", strconv.Itoa(runs))
	_, missed, open := tally.Count(res.Expectations)
	set("unmet", strconv.Itoa(missed))
	set("unchecked", strconv.Itoa(open))
	set("changed", strconv.Itoa(changed))
	names := make([]string, 0, len(totals))
	for o := range totals {
		names = append(names, o)
	}
	slices.Sort(names)
	for _, o := range names {
		if outputName.MatchString(o) {
			set("outcome-"+o, strconv.Itoa(totals[o]))
		}
	}
}

// prComment keeps the one comment of this scenario on the pull request up to date. It never
// fails the step: a token that may not write (a pull request from a fork) is a notice.
func prComment(ctx context.Context, gha *githubactions.Action, ghctx *githubactions.GitHubContext, in actionInputs, res *tally.Results, cmp *report.Comparison, summary string) {
	number := pullNumber(ghctx.Event)
	if number == 0 {
		return // not a pull request: the job summary is the report
	}
	if in.token == "" {
		gha.Noticef("%s", "toolscore: no github-token, so no pull-request comment; the job summary has the report")
		return
	}
	if ghctx.Repository == "" {
		gha.Noticef("%s", "toolscore: GITHUB_REPOSITORY is not set, so no pull-request comment")
		return
	}
	key := res.Scenario
	if res.Shard != "" {
		key += " shard " + res.Shard
	}
	marker := prcomment.Marker(key)
	// The run's page, where the job summary is; built from the runner's own variables.
	link := ""
	if ghctx.RunID > 0 && (strings.HasPrefix(ghctx.ServerURL, "https://") || strings.HasPrefix(ghctx.ServerURL, "http://")) &&
		!strings.ContainsAny(ghctx.ServerURL+ghctx.Repository, "()<>[] \t\r\n") {
		link = fmt.Sprintf("%s/%s/actions/runs/%d", strings.TrimSuffix(ghctx.ServerURL, "/"), ghctx.Repository, ghctx.RunID)
	}
	body := report.CommentBody(marker, report.Verdict(res, cmp), summary, link)
	c, err := prcomment.New(ghctx.APIURL, ghctx.Repository, in.token, nil)
	if err != nil {
		gha.Warningf("%s", "toolscore: no pull-request comment: "+err.Error())
		return
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	r, err := c.Upsert(ctx, number, marker, body)
	switch {
	case prcomment.Denied(err):
		gha.Noticef("%s", fmt.Sprintf("toolscore: the token may not comment on #%d (HTTP %d; a pull request from a fork gets a read-only token), so there is no pull-request comment; the job summary has the report",
			number, prcomment.Status(err)))
	case err != nil:
		gha.Warningf("%s", "toolscore: no pull-request comment: "+err.Error())
	case r.Created:
		gha.Infof("%s", "toolscore: commented on #"+strconv.Itoa(number)+": "+r.URL)
	default:
		gha.Infof("%s", "toolscore: updated the comment on #"+strconv.Itoa(number)+": "+r.URL)
	}
}

// pullNumber is the pull request's number in a pull_request or pull_request_target event,
// or 0 for any other event.
func pullNumber(event map[string]any) int {
	pr, ok := event["pull_request"].(map[string]any)
	if !ok {
		return 0
	}
	if n, ok := pr["number"].(float64); ok && n > 0 && n == float64(int(n)) {
		return int(n)
	}
	if n, ok := event["number"].(float64); ok && n > 0 && n == float64(int(n)) {
		return int(n)
	}
	return 0
}

// stopCommands makes the runner read no workflow commands until the returned func is called,
// with a token nobody can guess, so log lines from outside cannot issue commands.
func stopCommands(gha *githubactions.Action) (resume func()) {
	b := make([]byte, 16)
	rand.Read(b)
	token := "toolscore-" + hex.EncodeToString(b)
	gha.IssueCommand(&githubactions.Command{Name: "stop-commands", Message: token})
	return func() { gha.IssueCommand(&githubactions.Command{Name: token}) }
}

// usageLine is a manifest error as scenario.Load prints it: file:line:col: message.
var usageLine = regexp.MustCompile(`^(.+?):([0-9]+):([0-9]+): (.+)$`)

// annotateUsage turns the manifest errors of a sweep that could not start into error
// annotations on their lines (at most 10, GitHub's budget), or one error saying why.
func annotateUsage(gha *githubactions.Action, log, workspace string) {
	n := 0
	last := "" // the run's own last word, when no line names a manifest line
	sc := bufio.NewScanner(strings.NewReader(log))
	for sc.Scan() && n < report.DefaultBudget.Errors-1 {
		m := usageLine.FindStringSubmatch(sc.Text())
		if m == nil {
			if l, ok := strings.CutPrefix(sc.Text(), "toolscore run: "); ok {
				last = l
			}
			continue
		}
		fields := map[string]string{"title": "toolscore: manifest error", "line": m[2], "col": m[3]}
		if f := manifestFile(m[1], workspace); f != "" {
			fields["file"] = f
		}
		gha.WithFieldsMap(fields).Errorf("%s", m[4])
		n++
	}
	if n == 0 {
		msg := "toolscore: nothing ran: a usage or manifest error, printed in the group above"
		if last != "" {
			msg += ": " + last
		}
		gha.Errorf("%s", msg)
	}
}

// appendFile appends s to the file at path, as the runner's file commands expect.
func appendFile(path, s string) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.WriteString(f, s); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// tailWriter passes writes on to w and keeps the last limit bytes of them.
type tailWriter struct {
	w     io.Writer
	limit int
	mu    sync.Mutex
	buf   []byte
}

func (t *tailWriter) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.limit; over > 0 {
		t.buf = t.buf[over:]
	}
	return t.w.Write(p)
}

func (t *tailWriter) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
