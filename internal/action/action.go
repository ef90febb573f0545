package action

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/sethvargo/go-githubactions"

	"github.com/toolscore/toolscore/exitcode"
	"github.com/toolscore/toolscore/internal/backend/docker"
	"github.com/toolscore/toolscore/internal/cli"
	"github.com/toolscore/toolscore/internal/outdir"
	"github.com/toolscore/toolscore/internal/runner"
	"github.com/toolscore/toolscore/report"
	"github.com/toolscore/toolscore/scenario"
	"github.com/toolscore/toolscore/sweep"
	"github.com/toolscore/toolscore/tally"
)

// Run is the action's entrypoint. It reads the inputs (INPUT_*) and the event
// (GITHUB_EVENT_PATH) through getenv, so it runs the same outside GitHub, e.g. in a test: it
// runs the sweep (or merges shards' outputs), writes the job summary, the step outputs and the
// annotations, compares with the baseline, keeps one comment on the pull request, and returns
// the step's exit code. version is toolscore's, recorded in the results.
func Run(ctx context.Context, version string, getenv func(string) string, stdout, stderr io.Writer) int {
	gha := githubactions.New(githubactions.WithWriter(stdout), githubactions.WithGetenv(getenv))
	in, err := ReadInputs(gha)
	if err != nil {
		gha.Errorf("%s", "toolscore: "+err.Error())
		return exitcode.Usage
	}
	ghctx, err := gha.Context()
	if err != nil {
		gha.Warningf("%s", "toolscore: reading the workflow context: "+err.Error())
		if ghctx == nil { // the event did not parse: no pull request, but the rest still holds
			ghctx = &githubactions.GitHubContext{Workspace: getenv("GITHUB_WORKSPACE"), Repository: getenv("GITHUB_REPOSITORY")}
		}
	}
	st := &step{gha: gha, ghctx: ghctx, getenv: getenv, in: in, workspace: ghctx.Workspace}
	if st.workspace == "" {
		st.workspace, _ = os.Getwd()
	}

	// The baseline is read before anything runs: a bad one is a usage error, like a bad manifest.
	var base *tally.Results
	var cmp *report.Comparison
	if in.Baseline != "" {
		cmp = &report.Comparison{Baseline: in.Baseline}
		base, err = outdir.ReadCounts(in.Baseline)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			cmp.Missing = true
			gha.Warningf("%s", fmt.Sprintf("toolscore: no baseline at %s yet: nothing to compare with this time", in.Baseline))
		case err != nil:
			gha.Errorf("%s", "toolscore: baseline: "+err.Error())
			return exitcode.Usage
		}
	}

	// The one load of the manifest: the sweep runs it, the annotations name its lines.
	sc, loadErr := sweep.Load(in.Sweep.Scenario)
	if in.Plan > 0 {
		return st.plan(ctx, sc, loadErr, stderr)
	}
	if len(in.Merge) == 0 && loadErr == nil {
		if code := st.prepare(ctx, sc, base); code != exitcode.OK {
			return code
		}
	}

	// The sweep's log is one group, and no line of it is read as a workflow command: what a
	// server under test says may end up in it.
	title := "toolscore run"
	if len(in.Merge) > 0 {
		title = "toolscore merge"
	}
	gha.Group(title)
	resume := stopCommands(gha)
	// The sweep's own fail-on is expect, for its log: the step's exit code is the action's
	// decision.
	c := in.Sweep
	c.FailOn, c.Version, c.Stdout, c.Stderr = report.FailOnExpect, version, stdout, stderr
	var res *tally.Results
	var out string
	switch {
	case len(in.Merge) > 0:
		res, out, err = sweep.Merge(ctx, in.Merge, c)
	case loadErr != nil:
		// As toolscore run prints it; kept unwrapped, so that each manifest error is annotated.
		cli.PrintLoadError(stderr, loadErr)
		err = loadErr
	default:
		if c.Shard, c.Shards, err = sweep.ParseShard(in.Shard); err != nil {
			err = exitcode.UsageError(fmt.Errorf("--shard %w", err))
			break
		}
		res, out, err = sweep.Sweep(ctx, sc, c)
	}
	if loadErr == nil || len(in.Merge) > 0 {
		// As toolscore run prints it, in the sweep's log.
		cli.PrintSweepError(stderr, title, err, res, out)
	}
	resume()
	gha.EndGroup()

	code := exitcode.Of(err)
	if res == nil {
		if code == exitcode.Usage {
			st.annotateUsage(cli.Flags(err))
			return exitcode.Usage
		}
		gha.Errorf("%s", "toolscore: the sweep did not run to the end; its log is in the group above")
		return max(code, 1)
	}
	// The sweep ran but its output could not all be written (results.json, a full disk): the
	// counts are published, and the step fails as a setup error, whatever they say.
	broken := code == exitcode.Usage

	if base != nil {
		if base.Scenario != res.Scenario {
			gha.Errorf("%s", fmt.Sprintf("toolscore: the baseline %s holds the scenario %q, the results %q: take a baseline of this scenario (toolscore baseline)",
				in.Baseline, base.Scenario, res.Scenario))
			return exitcode.Usage
		}
		cmp.Changes = tally.Diff(base, res)
	}
	st.publish(ctx, res, sc, cmp, out)

	d := report.Decide(res, cmp, in.FailOn)
	if broken {
		if err != nil {
			gha.Errorf("%s", "toolscore: "+cli.Flags(err).Error())
		}
		return exitcode.Usage
	}
	gha.Infof("%s", "toolscore: "+d.Reason)
	return d.Code
}

// step is one run of the action: what it was given and where.
type step struct {
	gha       *githubactions.Action
	ghctx     *githubactions.GitHubContext
	getenv    func(string) string
	in        Inputs
	workspace string
}

// prepare checks what it can of a sweep before it starts, and masks its secrets in the
// workflow's log; a code other than exitcode.OK means nothing may run.
func (st *step) prepare(ctx context.Context, sc *scenario.Scenario, base *tally.Results) int {
	gha, getenv := st.gha, st.getenv
	// A baseline of another scenario compares nothing (toolscore diff refuses it too); the
	// manifest's name is known before the sweep, a merge's only after it.
	if base != nil && sc.Name != base.Scenario {
		gha.Errorf("%s", fmt.Sprintf("toolscore: the baseline %s holds the scenario %q, the manifest is %q: take a baseline of this scenario (toolscore baseline)",
			st.in.Baseline, base.Scenario, sc.Name))
		return exitcode.Usage
	}
	// The keys of real models and the values server.env takes from_env are masked in the
	// workflow's log, whatever prints them.
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
	// backend auto is docker or nothing: the local backend would run the server under test in
	// this container, beside the runner's token and workspace.
	if st.in.Sweep.Backend == "auto" {
		if _, err := docker.New(ctx); err != nil {
			gha.Errorf("%s", "toolscore: no Docker engine, so nothing ran: with backend auto every server under test runs in a container of its own, "+
				"never beside the runner's token. Give the action a Docker engine: a container action gets the runner's /var/run/docker.sock "+
				"when Docker runs on the runner (on a self-hosted runner, install Docker and let the runner's user use it, or set DOCKER_HOST "+
				"in the step's env). Or set `backend: local` to accept running the server in the action's own container, beside the runner's "+
				"token and workspace. ("+err.Error()+")")
			return exitcode.Usage
		}
	}
	return exitcode.OK
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

// plan sets the step's output matrix to the plan of in.Plan shards of the cells that apply (balanced by the results of
// input shard-by, when given), for a later job's strategy.matrix: nothing runs.
func (st *step) plan(ctx context.Context, sc *scenario.Scenario, loadErr error, stderr io.Writer) int {
	if loadErr != nil {
		cli.PrintLoadError(stderr, loadErr)
		st.annotateUsage(loadErr)
		return exitcode.Usage
	}
	// The plan counts the cells its shards will run: the matrix narrowed as the sweep narrows it.
	c := st.in.Sweep
	c.Stderr = stderr
	if err := sweep.Narrow(ctx, sc, c); err != nil {
		cli.PrintSweepError(stderr, "toolscore plan", err, nil, "")
		st.annotateUsage(err)
		return exitcode.Usage
	}
	var measured *tally.Results
	if by := st.in.Sweep.ShardBy; by != "" {
		var err error
		if measured, err = sweep.ReadMeasured(by); err != nil {
			st.gha.Errorf("%s", "toolscore: shard-by: "+err.Error())
			return exitcode.Usage
		}
	}
	plan, err := sweep.Plan(sc, st.in.Plan, measured)
	if err != nil {
		st.gha.Errorf("%s", "toolscore: plan: "+err.Error())
		return exitcode.Usage
	}
	b, err := json.Marshal(map[string][]sweep.Shard{"include": plan})
	if err != nil {
		st.gha.Errorf("%s", "toolscore: plan: "+err.Error())
		return exitcode.Usage
	}
	st.gha.SetOutput("matrix", string(b))
	sweep.SummarizePlan(stderr, sc, plan, st.in.Sweep.ShardBy)
	return exitcode.OK
}
