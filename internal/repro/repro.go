// Package repro writes what to attach to an issue about one run of a sweep: its transcript,
// the manifest's excerpt for its cell, its record, and a README with the command that replays
// it with no server. toolscore repro is its command.
package repro

import (
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/toolscore/toolscore/internal/client"
	"github.com/toolscore/toolscore/record"
	"github.com/toolscore/toolscore/report"
	"github.com/toolscore/toolscore/scenario"
)

// FindRun finds the record of run (0: the first) of the cell named by cellArg in dir's runs.jsonl.
func FindRun(dir, cellArg string, run int) (record.Run, error) {
	sep := "|"
	if strings.Contains(cellArg, "×") {
		sep = "×"
	}
	parts := strings.Split(cellArg, sep)
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	if len(parts) < 3 {
		return record.Run{}, fmt.Errorf("cell %q: want client|fault|schema|transport[|protocol][|tool:NAME] or client × fault × schema [× protocol]", cellArg)
	}
	// What follows the schema is the transport and the protocol, in either order: a protocol is
	// as-is or a revision's date.
	transport, protocol, tool := "", "", ""
	for _, p := range parts[3:] {
		if t, ok := strings.CutPrefix(p, "tool:"); ok {
			tool = t
		} else if p == string(scenario.ProtocolAsIs) || regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`).MatchString(p) {
			protocol = p
		} else {
			transport = p
		}
	}
	path := filepath.Join(dir, record.RunsFile)
	f, err := os.Open(path)
	if err != nil {
		return record.Run{}, err
	}
	defer f.Close()
	var found []record.Run
	cells := map[string]bool{}
	_, err = record.ReadRunsAny(f, path, func(_ int, r *record.Run) error {
		if r.Client != parts[0] || r.Fault != parts[1] || r.Schema != parts[2] ||
			transport != "" && r.Transport != transport || protocol != "" && cmp.Or(r.Protocol, record.ProtocolAsIs) != protocol || tool != "" && r.Tool != tool {
			return nil
		}
		cells[r.Key()] = true
		if run == 0 || r.Run == run {
			found = append(found, *r)
		}
		return nil
	})
	if err != nil {
		return record.Run{}, err
	}
	switch {
	case len(cells) > 1:
		keys := make([]string, 0, len(cells))
		for k := range cells {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		return record.Run{}, fmt.Errorf("cell %q names %d cells of %s; give one: %s", cellArg, len(cells), dir, strings.Join(keys, ", "))
	case len(found) == 0 && len(cells) == 1:
		return record.Run{}, fmt.Errorf("cell %q has no run %d in %s", cellArg, run, dir)
	case len(found) == 0:
		return record.Run{}, fmt.Errorf("cell %q is not in %s", cellArg, dir)
	}
	slices.SortFunc(found, func(a, b record.Run) int { return a.Run - b.Run })
	return found[0], nil
}

// cellExcerpt is the manifest narrowed to one run: what a maintainer needs to know of the
// sweep, and no value of the server's environment (only the names).
type cellExcerpt struct {
	Scenario  string         `json:"scenario"`
	Server    serverExcerpt  `json:"server"`
	Tool      string         `json:"tool"`
	Arguments map[string]any `json:"arguments,omitempty"`
	Prompt    string         `json:"prompt,omitempty"`
	Client    string         `json:"client"`
	Fault     map[string]any `json:"fault"`
	Schema    string         `json:"schema"`
	Protocol  string         `json:"protocol"`
	Transport string         `json:"transport"`
	Run       int            `json:"run"`
	Seed      uint64         `json:"seed"`
	Timeout   string         `json:"timeout"`
}

type serverExcerpt struct {
	Builtin string   `json:"builtin,omitempty"`
	Command []string `json:"command,omitempty"`
	Env     []string `json:"env,omitempty"`
	Install string   `json:"install,omitempty"`
}

// Write writes the repro directory to for run rec of the sweep in dir.
func Write(to, dir string, sc *scenario.Scenario, rec record.Run) error {
	tee, err := record.ReadFile(filepath.Join(dir, rec.Tee))
	if err != nil {
		return fmt.Errorf("the run's transcript: %w", err)
	}
	call := sc.Calls()[0]
	for _, t := range sc.Calls() {
		if t.Coordinate() == rec.Tool {
			call = t
		}
	}
	ex := cellExcerpt{
		Scenario: sc.Name, Tool: call.Name, Arguments: call.Arguments, Client: rec.Client, Schema: rec.Schema,
		Protocol: cmp.Or(rec.Protocol, record.ProtocolAsIs), Transport: rec.Transport, Run: rec.Run, Seed: rec.Seed, Timeout: sc.Timeout.Std().String(),
		Server: serverExcerpt{Builtin: sc.Server.Builtin, Command: sc.Server.Command, Install: sc.Server.Install},
	}
	for name := range sc.Server.Env {
		ex.Server.Env = append(ex.Server.Env, name)
	}
	slices.Sort(ex.Server.Env)
	// An agent is given the prompt: a built-in one, or one the manifest defines.
	name, _, _ := strings.Cut(rec.Client, "@")
	if client.IsAgent(name) || slices.ContainsFunc(sc.Clients, func(c scenario.Client) bool { return c.Defined() && c.Agent && c.Name == name }) {
		ex.Prompt = call.Prompt
	}
	for _, f := range sc.Faults {
		if f.Name == rec.Fault {
			ex.Fault = map[string]any{"name": f.Name}
			for k, v := range f.Options {
				ex.Fault[k] = v
			}
			if f.Probability != nil {
				ex.Fault["probability"] = *f.Probability
			}
			if f.Nth > 0 {
				ex.Fault["nth"] = f.Nth
			}
		}
	}
	if ex.Fault == nil {
		return fmt.Errorf("the manifest has no fault %q: give the manifest of the sweep with --scenario", rec.Fault)
	}
	cell, err := json.MarshalIndent(ex, "", "  ")
	if err != nil {
		return err
	}
	runJSON, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(to, 0o755); err != nil {
		return err
	}
	files := []struct {
		name string
		data []byte
		mode os.FileMode
	}{
		{record.TeeFile, tee, 0o644},
		{"cell.json", append(cell, '\n'), 0o644},
		{"run.json", append(runJSON, '\n'), 0o644},
		{"README.md", []byte(reproReadme(sc, ex, rec)), 0o644},
	}
	if script := reproScript(ex); script != "" {
		files = append(files, struct {
			name string
			data []byte
			mode os.FileMode
		}{"reproduce.sh", []byte(script), 0o755})
	}
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(to, f.name), f.data, f.mode); err != nil {
			return fmt.Errorf("writing the repro: %w", err)
		}
	}
	return nil
}

// reproReadme is the repro's README.md. Every text that came from the sweep (the manifest, the
// client, the server through the evidence) is escaped: the file is Markdown a forge renders.
func reproReadme(sc *scenario.Scenario, ex cellExcerpt, rec record.Run) string {
	esc := report.EscapeMarkdown
	var b strings.Builder
	fmt.Fprintf(&b, "# Reproduce: %s × %s × %s × %s, run %d\n\n", esc(rec.Client), esc(rec.Fault), esc(rec.Schema), esc(ex.Protocol), rec.Run)
	fmt.Fprintf(&b, "A toolscore run of the scenario %s: the client %s called the tool %s through toolscore's proxy, "+
		"which applied the fault %s to its result, with the output schema %s and the newest protocol revision shown to the client %s.\n\n",
		esc(sc.Name), esc(rec.Client), esc(ex.Tool), esc(rec.Fault), esc(rec.Schema), esc(ex.Protocol))
	b.WriteString("## What the client did\n\n")
	fmt.Fprintf(&b, "- outcome: **%s**\n", esc(string(rec.Outcome)))
	if rec.Evidence != "" {
		fmt.Fprintf(&b, "- evidence: %s\n", esc(rec.Evidence))
	}
	if o := rec.Observation; o != nil && o.Library != "" {
		fmt.Fprintf(&b, "- library: %s\n", esc(o.Library))
	}
	if rec.Negotiated != "" {
		fmt.Fprintf(&b, "- negotiated protocol: %s\n", esc(rec.Negotiated))
	}
	if rec.ModelView != "" {
		fmt.Fprintf(&b, "- the model was shown: %s; the answer graded: %s\n", esc(rec.ModelView), esc(rec.Answer))
	}
	b.WriteString("\nThe whole record is in `run.json`, the manifest's cell in `cell.json`, and every byte both ways in `tee.jsonl`.\n\n")
	b.WriteString("## Replay it, with no server\n\n")
	b.WriteString("Install toolscore (`go install github.com/toolscore/toolscore/cmd/toolscore@latest`), then, in this directory, give the client `toolscore replay tee.jsonl` as its MCP server command (for example `node my-client.js -- toolscore replay tee.jsonl`): an MCP server on stdio that answers from the recording.\n\n")
	if reproScript(ex) != "" {
		b.WriteString("`sh reproduce.sh` plays it to toolscore's own adapter of this client, which prints what the library returned or raised.\n\n")
	}
	b.WriteString("A request the recording does not hold (other arguments, another method) is answered with a JSON-RPC error, and `toolscore replay` says on stderr what it expected and what came.\n")
	return b.String()
}

// reproScript runs toolscore's own adapter of the run's client against the replay, where the
// adapter is built into toolscore; "" where it lives in a cell image.
func reproScript(ex cellExcerpt) string {
	name, _, _ := strings.Cut(ex.Client, "@")
	if d, _, ok := client.Lookup(name); !ok || d.Contained() || client.IsAgent(name) {
		return ""
	}
	req := client.Request{Server: []string{"toolscore", "replay", record.TeeFile}, Tool: ex.Tool, Arguments: ex.Arguments}
	var b strings.Builder
	b.WriteString("#!/bin/sh\n# Plays the recorded run to toolscore's adapter of this client, with no server.\ncd \"$(dirname \"$0\")\" || exit 1\n")
	for _, kv := range req.Env() {
		k, v, _ := strings.Cut(kv, "=")
		fmt.Fprintf(&b, "export %s=%s\n", k, shellQuote(v))
	}
	fmt.Fprintf(&b, "exec toolscore client %s\n", shellQuote(name))
	return b.String()
}

// shellQuote quotes s for sh, every byte kept.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
