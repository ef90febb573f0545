package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/toolscore/toolscore/exitcode"
	"github.com/toolscore/toolscore/internal/backend"
	"github.com/toolscore/toolscore/internal/backend/local"
	"github.com/toolscore/toolscore/internal/client"
	"github.com/toolscore/toolscore/internal/execute"
	"github.com/toolscore/toolscore/internal/proxy"
	"github.com/toolscore/toolscore/record"
	"github.com/toolscore/toolscore/report"
	"github.com/toolscore/toolscore/scenario"
	"github.com/toolscore/toolscore/sweep"
)

// contractRuns are the runs check-client makes: the ledger clean with its schema hidden, and with
// type-swap published, the cell where libraries that validate raise.
var contractRuns = []struct{ fault, schema string }{
	{"clean", string(proxy.Hidden)},
	{"type-swap", string(proxy.Published)},
}

// checkClientCmd runs a client adapter as a local run would, against the built-in ledger
// through the proxy, and says where its output breaks the client contract.
func checkClientCmd(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("check-client", flag.ContinueOnError)
	// Each command prints its own messages (main only turns the error into the exit code).
	fail := func(err error) error {
		fmt.Fprintln(os.Stderr, "toolscore", err)
		return err
	}
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), `usage: toolscore check-client [--agent] [--timeout D] -- CMD [ARGS...]

Runs the client adapter CMD as a local run does (its own directory, HOME and TMPDIR, the
allowlisted environment, the contract's variables) against the built-in ledger through the
proxy, twice: clean with the schema hidden, and type-swap with the schema published. It says
where the adapter's output breaks the client contract, one line each, or what each run
observed and that the contract holds (exit 0). What it quotes of the adapter is made safe for a
terminal and a CI log as the reports' text is (control characters, escapes and bidi overrides
as U+FFFD, workflow commands broken) and each piece is cut at 300 characters. A path among CMD
ARGS that names a file here is made absolute: the adapter starts in the run's own directory.

flags:`)
		fs.PrintDefaults()
	}
	agent := fs.Bool("agent", false, "the adapter is an agent: it gets the scenario's prompt and is graded as one")
	timeout := fs.Duration("timeout", 60*time.Second, "how long each run may take before it counts as hung, more than 0 (0 or less is a usage error, exit 2)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	command := fs.Args()
	if len(command) == 0 {
		fs.Usage()
		return fail(exitcode.UsageError(errors.New("check-client: no adapter command given after --")))
	}
	if *timeout <= 0 {
		return fail(exitcode.UsageError(fmt.Errorf("check-client: --timeout must be positive (how long each run may take before it counts as hung), got %s", *timeout)))
	}
	self, err := os.Executable()
	if err != nil {
		return fail(exitcode.Failed(fmt.Errorf("check-client: finding the toolscore binary: %w", err)))
	}
	sc, err := sweep.Load("")
	if err != nil {
		return fail(exitcode.Failed(fmt.Errorf("check-client: loading the ledger scenario: %w", err)))
	}
	tmp, err := os.MkdirTemp("", "toolscore-check-client-")
	if err != nil {
		return fail(exitcode.Failed(fmt.Errorf("check-client: making the runs' folder: %w", err)))
	}
	defer os.RemoveAll(tmp)

	broken := false
	for _, r := range contractRuns {
		name := r.fault + ", " + r.schema
		lines, ok, err := checkRun(ctx, self, filepath.Join(tmp, r.fault), sc.Calls()[0], r.fault, r.schema, absArgs(command), *agent, *timeout)
		if ctx.Err() != nil {
			return exitcode.Failed(ctx.Err())
		}
		if err != nil {
			return fail(exitcode.Failed(fmt.Errorf("check-client: the %s run: %w", name, err)))
		}
		for _, l := range lines {
			// Each line quotes the adapter: it reaches the terminal as the reports' text does.
			fmt.Printf("%s: %s\n", name, report.Plain(l))
		}
		broken = broken || !ok
	}
	if broken {
		fmt.Println("the client contract does not hold")
		return exitcode.Failed(errors.New("the client contract does not hold"))
	}
	fmt.Println("the client contract holds")
	return nil
}

// checkRun runs the adapter once in dir with the proxy set for fault and schema, and returns
// what it observed (ok) or where its output breaks the contract; its error is the machine's
// (no room for the run's transcript), not the adapter's.
func checkRun(ctx context.Context, self, dir string, tool scenario.Tool, fault, schema string, command []string, agent bool, timeout time.Duration) (lines []string, ok bool, err error) {
	pf := proxy.DefaultFlags()
	pf.Fault, pf.Tool, pf.Schema, pf.Tee = fault, tool.Name, schema, filepath.Join(dir, record.TeeFile)
	pf.Command = []string{self, "ledger"}
	req := client.Request{Server: append([]string{self, "proxy"}, pf.Args()...), Tool: tool.Name, Arguments: tool.Arguments}
	if agent {
		req.Prompt = tool.Prompt
	}
	spec := backend.Spec{Dir: dir, Client: "check-client", Cell: fault + "/" + schema, Run: 1,
		Command: command, Env: req.Env(), Timeout: timeout}
	// The run goes the way each run of a sweep goes, from its spec to its grade.
	ran, err := execute.Run(ctx, local.Backend{Binary: self}, execute.Job{Spec: spec, Agent: agent, Truth: tool.Truth})
	res, g := ran.Result, ran.Record.Grade
	if res.Cancelled {
		return nil, false, nil
	}
	if res.Err != nil {
		return []string{"the adapter could not be started: " + res.Err.Error()}, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	// The same reading of stdout as the grader's, for what it finds wrong with the line.
	obs, perr := client.ReadObservation(res.Stdout, nil)
	switch {
	case res.TimedOut && (obs == nil || perr != nil):
		lines = append(lines, fmt.Sprintf("hung after %s: no JSON line on stdout by then", timeout))
	case res.TimedOut:
		lines = append(lines, fmt.Sprintf("printed its JSON line but had not exited after %s", timeout))
	case res.ExitCode != 0:
		lines = append(lines, fmt.Sprintf("exited with status %d (the contract: exit 0)%s", res.ExitCode, stderrTail(res.Stderr)))
	}
	if !res.TimedOut || obs != nil {
		switch {
		case errors.Is(perr, client.ErrNoObservation):
			lines = append(lines, fmt.Sprintf("no JSON line on stdout (stdout was: %q)%s", head(res.Stdout), stderrTail(res.Stderr)))
		case errors.Is(perr, client.ErrNotJSON):
			why := strings.TrimPrefix(perr.Error(), client.ErrNotJSON.Error()+": ")
			lines = append(lines, fmt.Sprintf("no JSON line on stdout: its last line is not one JSON object (%s; stdout was: %q)", why, head(res.Stdout)))
		case errors.Is(perr, client.ErrNoOutcome) && agent:
			lines = append(lines, `the JSON line has no "agent" (what the model saw): it is not an agent adapter`)
		case errors.Is(perr, client.ErrNoOutcome):
			lines = append(lines, `the JSON line has neither "returned" nor "raised": it says what the library returned, or what it raised`)
		case perr != nil:
			lines = append(lines, perr.Error())
		default:
			lines = append(lines, client.Lacks(obs, agent)...)
		}
	}
	if g.Outcome == record.ServerExited {
		lines = append(lines, "the ledger exited before it answered: "+said(g.Evidence))
	}
	if len(lines) == 0 && (g.Outcome == record.Crashed || g.Outcome == record.Hung) {
		// What the grader holds against the run, should the reading above have missed it.
		lines = append(lines, "graded "+string(g.Outcome)+": "+said(g.Evidence))
	}
	if len(lines) > 0 {
		return lines, false, nil
	}
	return []string{observed(obs, g)}, true, nil
}

// observed is one line of what a run that kept the contract saw.
func observed(o *record.Observation, g record.Grade) string {
	var what string
	switch {
	case o.Agent != nil:
		what = "the model got " + said(o.Agent.ModelView.Kind) + ", its answer " + said(g.Answer)
	case o.Raised != nil:
		what = "raised: " + said(o.Raised.Class) + ": " + said(o.Raised.Text())
	case o.Handed != nil:
		what = "handed the model " + said(o.Handed.Kind) + ": " + said(o.Handed.Excerpt)
	default:
		what = "returned"
	}
	return fmt.Sprintf("%s, graded %s (client %s, library %s)", what, said(string(g.Outcome)), said(o.Client), said(o.Library))
}

// said is a piece of what the adapter printed, bounded and made safe for the terminal.
func said(s string) string { return report.PlainLine(s) }

// head is the start of the adapter's stdout, for a complaint to quote.
func head(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	b, _ := io.ReadAll(io.LimitReader(f, 200))
	return string(b)
}

// stderrTail is the last line the adapter wrote on stderr, as a clause, or nothing.
func stderrTail(stderr []byte) string {
	lines := bytes.Split(bytes.TrimSpace(stderr), []byte("\n"))
	last := strings.TrimSpace(string(lines[len(lines)-1]))
	if last == "" {
		return ""
	}
	return "; its stderr ended: " + said(last)
}

// absArgs makes absolute each word of command naming a file in the current directory, since the
// adapter starts in its run's directory, not here.
func absArgs(command []string) []string {
	out := append([]string(nil), command...)
	for i, a := range out {
		if i == 0 && !strings.Contains(a, string(filepath.Separator)) || strings.HasPrefix(a, "-") || filepath.IsAbs(a) {
			continue
		}
		if _, err := os.Stat(a); err == nil {
			if abs, err := filepath.Abs(a); err == nil {
				out[i] = abs
			}
		}
	}
	return out
}
