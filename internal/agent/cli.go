package agent

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/toolscore/toolscore/internal/client"
	"github.com/toolscore/toolscore/internal/model"
	"github.com/toolscore/toolscore/internal/proc"
)

// cliRun is one run of an agent's CLI: its own record (stdout), its stderr, exit status and time.
type cliRun struct {
	stdout, stderr []byte
	exit           int
	took           time.Duration
}

// runCLI runs the agent's CLI to its end, keeping its record as dir/record and its stderr as
// dir/stderr.txt. A CLI that exits non-zero is a result (judged by its evidence); one that
// cannot start, or a cancelled run, is an error.
func runCLI(ctx context.Context, cmd *exec.Cmd, dir, record string) (cliRun, error) {
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 2 * time.Second
	start := time.Now()
	err := proc.Start(cmd)
	if err == nil {
		err = cmd.Wait()
	}
	run := cliRun{stdout: stdout.Bytes(), stderr: stderr.Bytes(), took: time.Since(start)}
	_ = os.WriteFile(filepath.Join(dir, record), run.stdout, 0o644)
	_ = os.WriteFile(filepath.Join(dir, "stderr.txt"), run.stderr, 0o644)
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		run.exit = ee.ExitCode()
	case err != nil:
		return run, fmt.Errorf("starting %s: %w", cmd.Path, err)
	}
	if ctx.Err() != nil {
		return run, ctx.Err()
	}
	return run, nil
}

// report prints the adapter's line about the run on stderr (the benchmarks read it), and the
// CLI's last lines of stderr when it failed or left no evidence.
func (c cliRun) report(agent string, requests int, evidence bool) {
	fmt.Fprintf(os.Stderr, "toolscore agent %s: %s, exit %d, %d model requests\n", agent, c.took.Round(time.Millisecond), c.exit, requests)
	if c.exit != 0 || !evidence {
		fmt.Fprintf(os.Stderr, "%s\n", lastLines(c.stderr, 10))
	}
}

// cliEnv is the adapter's environment (the run's allowlist, the contract and server.env: the
// CLI starts the proxy, which takes its server's variables from it) less anything that would
// point the CLI elsewhere: every variable with one of the vendor's prefixes (keys, base URLs,
// config dirs), and HOME.
func cliEnv(prefixes ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k == "HOME" || strings.HasPrefix(k, "TOOLSCORE_MODEL") || hasAnyPrefix(k, prefixes) {
			continue
		}
		env = append(env, kv)
	}
	return env
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

func lastLines(b []byte, n int) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// agentRun is what every agent run starts from: the CLI to run, the agent's directory inside
// the run's (where its files land: model-requests.jsonl, its home, its own record), and the
// model it talks to.
type agentRun struct {
	bin, dir, home string
	model          *model.Server
	rec            *os.File
}

// prepare makes the agent's directory under the run's, with the directories named (relative
// to it: the CLI's config dir in home, a work dir), and starts its model, recording every
// request to model-requests.jsonl. The CLI is $binEnv, else bin on PATH.
func prepare(r client.Request, agent, binEnv, bin string, v model.Vendor, dirs ...string) (*agentRun, error) {
	if b := os.Getenv(binEnv); b != "" {
		bin = b
	}
	cwd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	a := &agentRun{bin: bin, dir: filepath.Join(cwd, agent)}
	a.home = filepath.Join(a.dir, "home")
	for _, d := range append([]string{"home"}, dirs...) {
		if err := os.MkdirAll(filepath.Join(a.dir, d), 0o700); err != nil {
			return nil, fmt.Errorf("making the agent's home: %w", err)
		}
	}
	if a.rec, err = os.Create(filepath.Join(a.dir, "model-requests.jsonl")); err != nil {
		return nil, err
	}
	if a.model, err = startModel(r, v, a.rec); err != nil {
		a.rec.Close()
		return nil, err
	}
	return a, nil
}

func (a *agentRun) close() {
	_ = a.model.Close()
	_ = a.rec.Close()
}
