package sweep

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/toolscore/toolscore/internal/backend"
	"github.com/toolscore/toolscore/internal/proc"
	"github.com/toolscore/toolscore/internal/runner"
	"github.com/toolscore/toolscore/internal/transcript"
	"github.com/toolscore/toolscore/record"
	"github.com/toolscore/toolscore/report"
	"github.com/toolscore/toolscore/scenario"
	"github.com/toolscore/toolscore/tally"
)

// preflightTimeout bounds the preflight's one start of the server: an npx server may download
// itself first.
const preflightTimeout = 2 * time.Minute

// maxListing caps what the preflight reads of a server's listing: text from a server under test.
const maxListing = 16 << 20

// listing is what toolscore init --json prints of a server: its name and its tools.
type listing struct {
	Server string                 `json:"server"`
	Tools  []scenario.StarterTool `json:"tools"`
}

// preflight starts the server once before any run, as the first cell that will run starts it
// (behind its proxy, through toolscore init --json), and checks that it lists every tool the
// scenario calls and that each call's arguments fit that tool's inputSchema: a misspelt tool or
// a bad argument would otherwise make every cell a count of the same mistake. A server that exits
// before it answers initialize is refused here, once, quoting the line of its stderr that says
// why. What the preflight cannot decide (a source no stdio proxy starts, a server that does not
// answer in time, a listing the go-sdk refuses) it leaves to the runs, with a warning. noSchema
// are the tools called whose listing has no outputSchema.
func preflight(ctx context.Context, o runner.Options, stderr io.Writer) (noSchema []string, err error) {
	first := slices.IndexFunc(o.Scenario.Clients, func(c scenario.Client) bool { _, out := o.Unavailable[c.ID()]; return !out })
	if first < 0 {
		return nil, nil // no cell runs: the sweep says so
	}
	// In the output directory, which a run's files already need: the runner image has no /tmp.
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return nil, fmt.Errorf("making the output directory: %w", err)
	}
	dir, err := os.MkdirTemp(o.Out, ".preflight-")
	if err == nil {
		dir, err = filepath.Abs(dir) // the processes it starts start in it
	}
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	server, env, ok := o.PreflightServer(dir)
	if !ok {
		return nil, nil
	}
	command := []string{o.Backend.Self(), "init", "--json"}
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		command = append(command, "--env", name)
	}
	command = append(append(command, "--"), server...)
	res := o.Backend.Run(ctx, backend.Spec{Dir: dir, Client: o.Scenario.Clients[first].ID(), Cell: "preflight", Command: command, Env: env, Timeout: preflightTimeout})
	mask := func(s string) string {
		for _, v := range o.Secrets {
			if v != "" {
				s = strings.ReplaceAll(s, v, "[masked]")
			}
		}
		return report.Plain(s) // the server's words are hostile text
	}
	var out []byte
	if f, err := record.Open(res.Stdout); err == nil {
		out, _ = io.ReadAll(io.LimitReader(f, maxListing))
		f.Close()
	}
	var l listing
	switch {
	case res.Err != nil:
		return nil, fmt.Errorf("starting the server once before the sweep: %w", res.Err)
	case res.Cancelled:
		return nil, ctx.Err()
	case res.ExitCode == 0 && json.Unmarshal(out, &l) == nil:
		if err := checkCalls(o.Scenario, l, stderr); err != nil {
			return nil, err
		}
		for _, t := range l.Tools {
			if len(t.OutputSchema) == 0 {
				noSchema = append(noSchema, t.Name)
			}
		}
		return noSchema, nil
	}
	entries, _ := transcript.Read(filepath.Join(dir, record.TeeFile))
	if gone := transcript.HandshakeExit(entries); gone != "" {
		how, _, _ := strings.Cut(gone, ";")
		msg := how + " when toolscore started it once before the sweep, so every run would fail the same way"
		if line := explaining(serverStderr(entries)); line != "" {
			msg += "; it said: " + mask(line)
		}
		msg += "\nif it needs a variable of toolscore's environment, pass it on in the manifest: server: {env: {NAME: {from_env: NAME}}} (toolscore init --env NAME writes it)"
		return nil, errors.New(msg)
	}
	why := "it did not list its tools within " + preflightTimeout.String()
	if !res.TimedOut {
		why = "listing its tools failed: " + mask(lastLine(res.Stderr))
	}
	fmt.Fprintf(stderr, "warning: the preflight could not check the scenario's tools and arguments against the server (%s); the runs will show what it does\n", why)
	return nil, nil
}

// notApplicable leaves out of sc's matrix the cells of the faults that need an outputSchema on
// the tools named in noSchema that have none in the manifest either, says so on stderr, and
// returns them for the results.
func notApplicable(sc *scenario.Scenario, noSchema []string, stderr io.Writer) []tally.NotApplicable {
	skipped := sc.SetNoSchema(noSchema)
	var out []tally.NotApplicable
	for _, t := range sc.Calls() {
		faults, ok := skipped[t.Name]
		if !ok {
			continue
		}
		n := tally.NotApplicable{Tool: t.Name, Faults: faults,
			Reason: "the server publishes no outputSchema for it and the manifest gives no output_schema, so these faults have nothing to break its result against"}
		fmt.Fprintf(stderr, "not applicable, not run: %s on %s (%s)\n", strings.Join(faults, ", "), report.Plain(t.Name), n.Reason)
		out = append(out, n)
	}
	return out
}

// checkCalls checks each tool the scenario calls against the server's listing l: listed, with
// arguments its inputSchema takes. Each problem is a *scenario.Error at the tool or arguments
// key of the manifest.
func checkCalls(sc *scenario.Scenario, l listing, stderr io.Writer) error {
	var errs []error
	names := make([]string, len(l.Tools))
	for i, t := range l.Tools {
		names[i] = t.Name
	}
	for _, t := range sc.Calls() {
		i := slices.Index(names, t.Name)
		if i < 0 {
			errs = append(errs, sc.CallError(t, false, notListed(t.Name, names)))
			continue
		}
		problem, err := misfitWithin(validateTimeout, l.Tools[i].InputSchema, t.Arguments)
		if err != nil {
			fmt.Fprintf(stderr, "warning: the arguments of %s are not checked against its inputSchema: %s\n", report.Plain(t.Name), report.Plain(err.Error()))
			continue
		}
		if problem != "" {
			errs = append(errs, sc.CallError(t, true, fmt.Sprintf("the arguments do not fit the inputSchema the server lists for %q: %s", t.Name, report.Plain(problem))))
		}
	}
	return errors.Join(errs...)
}

// notListed says that the server lists no tool name: the names it lists, the closest first.
func notListed(name string, listed []string) string {
	if len(listed) == 0 {
		return fmt.Sprintf("the server lists no tool %q; it lists none", name)
	}
	msg := fmt.Sprintf("the server lists no tool %q", name)
	if near := scenario.Closest(name, listed); near != "" {
		msg += fmt.Sprintf("; did you mean %q?", near)
	}
	shown := listed
	if len(shown) > 40 {
		shown = shown[:40]
	}
	quoted := make([]string, len(shown))
	for i, n := range shown {
		quoted[i] = fmt.Sprintf("%q", n)
	}
	msg += fmt.Sprintf(" It lists %d: %s", len(listed), strings.Join(quoted, ", "))
	if len(shown) < len(listed) {
		msg += ", ..."
	}
	return report.Plain(msg)
}

// validateTimeout bounds checking one call's arguments: the schema is the server's, and a
// composition of it can take exponential time.
const validateTimeout = 5 * time.Second

// misfitWithin is misfit, given up after d (the check goes on in the background until the
// sweep ends; a server's schema must not hold the sweep).
func misfitWithin(d time.Duration, schema, args map[string]any) (string, error) {
	type result struct {
		problem string
		err     error
	}
	done := make(chan result, 1)
	go func() {
		p, err := misfit(schema, args)
		done <- result{p, err}
	}()
	select {
	case r := <-done:
		return r.problem, r.err
	case <-time.After(d):
		return "", fmt.Errorf("checking them took more than %s", d)
	}
}

// misfit says why args do not fit the input schema ("" when they do, or there is no schema);
// err is a schema that does not compile. The schema is the server's: it loads no $ref from
// outside itself, neither a file nor the network.
func misfit(schema map[string]any, args map[string]any) (problem string, err error) {
	if len(schema) == 0 {
		return "", nil
	}
	doc, err := asJSON(schema)
	if err != nil {
		return "", err
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(jsonschema.SchemeURLLoader{})
	const url = "urn:toolscore:input-schema"
	if err := c.AddResource(url, doc); err != nil {
		return "", err
	}
	sch, err := c.Compile(url)
	if err != nil {
		return "", err
	}
	if args == nil {
		args = map[string]any{}
	}
	inst, err := asJSON(args)
	if err != nil {
		return "", err
	}
	verr := sch.Validate(inst)
	if verr == nil {
		return "", nil
	}
	// The library's message is a header line, then one "- at 'PATH': why" line a failure.
	var why []string
	for _, line := range strings.Split(verr.Error(), "\n")[1:] {
		if line = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "-")); line != "" {
			why = append(why, line)
		}
	}
	if len(why) == 0 {
		why = []string{verr.Error()}
	}
	return strings.Join(why, "; "), nil
}

// asJSON is v as the schema library reads JSON: numbers kept exact.
func asJSON(v any) (any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return jsonschema.UnmarshalJSON(bytes.NewReader(b))
}

// serverStderr is every line the server wrote on stderr, in order.
func serverStderr(entries []transcript.Entry) []string {
	var lines []string
	for _, e := range entries {
		if e.Dir == transcript.ServerStderr {
			lines = append(lines, strings.Split(string(e.Wire), "\n")...)
		}
	}
	return lines
}

// explaining is the line of a server's stderr that says why it exited (proc.Explaining).
func explaining(lines []string) string {
	return proc.Explaining(strings.Join(lines, "\n"), 300)
}

// cut keeps a line of a server's short enough for an error message.
func cut(s string) string {
	if r := []rune(s); len(r) > 300 {
		return string(r[:300]) + "..."
	}
	return s
}

// lastLine is the last line of b that is not empty.
func lastLine(b []byte) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return cut(strings.TrimSpace(lines[len(lines)-1]))
}
