// Command agentbench measures what a run of each agent cell costs against the same CLI's bare
// start in the same image: how much of an agent run is the CLI starting at all, and how much
// is the run around it.
//
//	go run ./bench/agentbench [-runs 6] [-agents claude-code,codex] [-keep] [-keep-images] [-timeout 30m]
//
// It compiles the static toolscore binary into a temporary directory (CGO_ENABLED=0 go build
// -o $TMP/toolscore ./cmd/toolscore) and makes the cell image of every agent measured (every
// agent registered in internal/client, sorted, or the -agents named) in this process with
// cellimage.Client and EnsureImage: the spec, and so the tag, `$TMP/toolscore images build` makes, and the one
// the sweep below finds (it must not build one of its own). Then, for each agent in turn: one
// untimed bare CLI start and one untimed bare /bin/true (the warm-up; the CLI's version line is
// read from it), half of the bare runs, the sweep
//
//	$TMP/toolscore run $TMP/NAME.yaml --backend docker --clients NAME --faults clean --schema hidden
//	     --runs 6 --parallel 1 --out $TMP/sweep-NAME
//
// with the scripted model, and the other half of the bare runs, so that machine noise hits both
// alike. $TMP/NAME.yaml is the embedded ledger scenario with its clients, runs and timeout
// replaced (clients: [NAME], runs: 1, timeout: 60s; its expect entries go), as
// cmd/toolscore/agent_test.go makes it: the embedded one lists no agents. Measured:
//
//	cell         runs.jsonl's ms: the backend's Took, container create to the end of the cell's
//	             output (copy-in when needed, attach, start, toolscore agent NAME with its scripted
//	             model and the proxy, the CLI, the exit)
//	CLI in cell  the CLI's own time inside the cell, from the line the adapter prints to stderr
//	             (`toolscore agent NAME: 1.234s, exit 0, 2 model requests`, kept in the run
//	             record's stderr field): the agent CLI's process, start to exit
//	bare CLI     through the Engine API, a container of the same cell image with a cell's
//	             hardening (network none, user 1000:1000, every capability dropped,
//	             no-new-privileges, 1 GiB memory and no swap, 1 CPU, 256 pids, 1024 open files,
//	             HOME and TMPDIR the cell's work directory), running the CLI's version command
//	             (claude --version, codex --version, gemini --version): create, wait
//	             (next-exit), start, the exit, remove; timed create to the exit, the cell's span
//	bare true    the same container running /bin/true: the container floor of that image
//
// (A version command is a CLI's cheapest start, not its agent's start-up: bare CLI minus bare
// true is what the CLI's binary, or its launcher, costs to come up and answer.) The table per
// agent gives medians and the ratios cell/bare CLI and cell/true; cell minus CLI in cell is
// what the cell adds around the CLI (the container, the adapter, the proxy, the scripted model,
// and whatever the adapter runs besides the CLI's agent process).
//
// Containers this program creates carry the label io.toolscore.bench=<session> (not
// io.toolscore) and are removed by id; the sweeps' cells are removed by the sweeps. Images: the
// agents' cell images this program built (none it found already there) are removed by tag at
// the end, unless -keep-images; never any other image, never a prune.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/client"
	"github.com/docker/docker/pkg/stdcopy"

	"github.com/toolscore/toolscore/bench/internal/enginebench"
	"github.com/toolscore/toolscore/internal/backend"
	"github.com/toolscore/toolscore/internal/backend/docker"
	"github.com/toolscore/toolscore/internal/cellimage"
	// The agents register themselves as clients.
	_ "github.com/toolscore/toolscore/internal/agent"
	tsclient "github.com/toolscore/toolscore/internal/client"
	"github.com/toolscore/toolscore/scenarios"
)

const cellPrefix = "toolscore/cell-"

// The CLI each agent's image installs (internal/client/clients/NAME/Dockerfile): the variable its
// adapter reads the command from, which the image's ENV sets, and the command's name there.
var cliOf = map[string]struct{ env, name string }{
	"claude-code": {"TOOLSCORE_CLAUDE", "claude"},
	"codex":       {"TOOLSCORE_CODEX", "codex"},
	"gemini-cli":  {"TOOLSCORE_GEMINI", "gemini"},
}

// cellHardening is how docker.Backend.Run confines a cell with the default sandbox (its
// docker.CellConfig): the user it runs as and the host config, which a bare container gets too.
func cellHardening() (user string, host *container.HostConfig) {
	cfg, host := docker.CellConfig("", docker.Sandbox{}, backend.Spec{})
	return cfg.User, host
}

type config struct {
	runs       int
	agents     []string
	keep       bool
	keepImages bool
}

func main() {
	var c config
	flag.IntVar(&c.runs, "runs", 6, "runs per agent sweep, and bare runs of each kind per agent")
	agents := flag.String("agents", "", "comma-separated agents to measure (default: every agent registered in internal/client, sorted)")
	flag.BoolVar(&c.keep, "keep", false, "keep the temporary directory (its path is printed)")
	flag.BoolVar(&c.keepImages, "keep-images", false, "keep the agents' cell images this program built")
	timeout := flag.Duration("timeout", 30*time.Minute, "give up (and stop everything started) after this long")
	flag.Parse()
	if c.runs < 2 {
		fmt.Fprintln(os.Stderr, "agentbench: -runs must be at least 2")
		os.Exit(2)
	}
	c.agents = tsclient.AgentNames()
	if *agents != "" {
		c.agents = nil
		for _, a := range strings.Split(*agents, ",") {
			if a = strings.TrimSpace(a); a == "" {
				continue
			}
			if !tsclient.IsAgent(a) {
				fmt.Fprintf(os.Stderr, "agentbench: %q is not an agent (agents: %s)\n", a, strings.Join(tsclient.AgentNames(), ", "))
				os.Exit(2)
			}
			if !slices.Contains(c.agents, a) {
				c.agents = append(c.agents, a)
			}
		}
		slices.Sort(c.agents)
	}
	if len(c.agents) == 0 {
		fmt.Fprintln(os.Stderr, "agentbench: no agents to measure")
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	if err := run(ctx, c); err != nil {
		fmt.Fprintln(os.Stderr, "agentbench:", err)
		cancel()
		os.Exit(1)
	}
}

type bench struct {
	cfg  config
	api  *client.Client
	sess *enginebench.Session // the containers this program created
	tmp  string
	root string // the module's directory
	// builtTags are the cell images this program built, removed at the end unless -keep-images.
	builtTags []string
}

// agentImage is an agent's cell image and how its bare containers run.
type agentImage struct {
	tag   string
	state string   // "built in 1m2s" or "up to date"
	cli   []string // the CLI's version command
	home  string   // HOME, TMPDIR and the working directory of a bare container
}

func run(ctx context.Context, c config) error {
	t0 := time.Now()
	fmt.Printf("$ %s\n", enginebench.CommandLine("./bench/agentbench"))
	enginebench.DefaultBaseImages()
	api, sv, err := enginebench.Connect(ctx)
	if err != nil {
		return err
	}
	defer api.Close()
	fmt.Printf("%s; go %s %s/%s, %d CPUs; Docker Engine %s (API %s, negotiated %s) at %s; load average %s\n",
		time.Now().Format("2006-01-02 15:04 MST"), strings.TrimPrefix(runtime.Version(), "go"), runtime.GOOS, runtime.GOARCH,
		runtime.NumCPU(), sv.Version, sv.APIVersion, api.ClientVersion(), api.DaemonHost(), enginebench.LoadAvg())
	// The agents' images are all on the node base.
	base, err := enginebench.DescribeBases(ctx, api, enginebench.BaseImages[:1])
	if err != nil {
		return err
	}
	fmt.Printf("agents: %s; base image: %s\n", strings.Join(c.agents, ", "), base)

	tmp, cleanup, err := enginebench.TempDir("agentbench-", c.keep)
	if err != nil {
		return err
	}
	defer cleanup()
	b := &bench{cfg: c, api: api, sess: enginebench.NewSession(api), tmp: tmp}
	defer b.sess.RemoveLeft()
	defer b.removeBuiltImages()
	if b.root, err = enginebench.ModuleRoot(ctx); err != nil {
		return err
	}
	bin, err := enginebench.BuildToolscore(ctx, b.root, b.tmp, "toolscore", "")
	if err != nil {
		return err
	}
	images, err := b.ensureImages(ctx, bin)
	if err != nil {
		return err
	}
	if err := b.measure(ctx, bin, images); err != nil {
		return err
	}
	fmt.Printf("\ntook %.0f s; load average %s\n", time.Since(t0).Seconds(), enginebench.LoadAvg())
	return nil
}

// ensureImages makes each agent's cell image as `$TMP/toolscore images build` would (the same
// spec: cellimage.Client of the binary's bytes), and reads from it how a bare container runs.
func (b *bench) ensureImages(ctx context.Context, bin string) (map[string]agentImage, error) {
	raw, err := cellimage.StaticBinary(bin)
	if err != nil {
		return nil, err
	}
	d, err := docker.New(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string]agentImage{}
	for _, a := range b.cfg.agents {
		desc, _, _ := tsclient.Lookup(a)
		if !desc.Contained() {
			return nil, fmt.Errorf("agent %s has no cell image (its internal/client.Descriptor names none)", a)
		}
		spec, err := cellimage.Client(desc.Image, raw, "")
		if err != nil {
			return nil, fmt.Errorf("%s: %w", a, err)
		}
		start := time.Now()
		var log strings.Builder
		tag, built, err := d.EnsureImage(ctx, spec, &log)
		if err != nil {
			return nil, fmt.Errorf("building the cell image of %s: %w\n%s", a, err, enginebench.Tail([]byte(log.String()), 3000))
		}
		im := agentImage{tag: tag, state: "up to date"}
		if built {
			im.state = "built in " + time.Since(start).Round(100*time.Millisecond).String()
			b.builtTags = append(b.builtTags, tag)
		}
		ins, err := b.api.ImageInspect(ctx, tag)
		if err != nil {
			return nil, fmt.Errorf("inspecting %s: %w", tag, err)
		}
		var env []string
		var labels map[string]string
		if ins.Config != nil {
			env, labels = ins.Config.Env, ins.Config.Labels
		}
		cli, err := cliCommand(a, env)
		if err != nil {
			return nil, err
		}
		im.cli = []string{cli, "--version"}
		// The cell's work directory is HOME when the image has it made for the cell user (as
		// the cell's own runs have it); /tmp otherwise.
		im.home = "/tmp"
		if user, _ := cellHardening(); docker.Prepared(labels[docker.LabelWorkdir], user) {
			im.home = backend.CellWorkDir
		}
		fmt.Printf("image: %s %s (%s; bare: %s, HOME=%s)\n", tag, im.state, a, strings.Join(im.cli, " "), im.home)
		out[a] = im
	}
	return out, nil
}

// cliCommand is the agent CLI's command in its image: the value the image's ENV gives the
// variable its adapter reads, else the name its Dockerfile installs. An agent not in cliOf
// takes the one TOOLSCORE_* variable its image sets.
func cliCommand(agent string, env []string) (string, error) {
	vars := map[string]string{}
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok && strings.HasPrefix(k, "TOOLSCORE_") {
			vars[k] = v
		}
	}
	if c, ok := cliOf[agent]; ok {
		if v := vars[c.env]; v != "" {
			return v, nil
		}
		return c.name, nil
	}
	if len(vars) == 1 {
		for _, v := range vars {
			return v, nil
		}
	}
	return "", fmt.Errorf("agent %s: which CLI its image runs is not known here (add it to cliOf)", agent)
}

// ============================== measuring ======================================================

type row struct {
	agent, tag, version string
	im                  agentImage
	cellMs, cliMs       []float64
	cliMissing          int
	exits, requests     map[string]int
	outcomes            map[string]int
	bareCLIMs, trueMs   []float64
	sweepWall           time.Duration
	foreign             int
}

func (b *bench) measure(ctx context.Context, bin string, images map[string]agentImage) error {
	n := b.cfg.runs
	fmt.Println()
	fmt.Printf("== per-run time of each agent cell: %d runs, parallel 1, next to %d bare CLI starts and %d bare /bin/true of its image ==\n", n, n, n)
	fmt.Printf("  sweep  $TMP/toolscore run $TMP/NAME.yaml --backend docker --clients NAME --faults clean --schema hidden --runs %d --parallel 1 --out $TMP/sweep-NAME\n", n)
	fmt.Println("         ($TMP/NAME.yaml: the embedded ledger scenario with clients: [NAME], runs: 1, timeout: 60s)")
	user, host := cellHardening()
	fmt.Printf("  bare   Engine API: create {Image, Cmd, User %s, Env HOME, TMPDIR; HostConfig{NetworkMode: %s, CapDrop: %s,\n", user, host.NetworkMode, strings.Join(host.CapDrop, ","))
	fmt.Printf("         %s, Memory=MemorySwap %d MiB, %g CPU, PidsLimit %d, nofile %d}}, wait (next-exit), start, the exit, remove\n",
		strings.Join(host.SecurityOpt, ","), host.Memory>>20, float64(host.NanoCPUs)/1e9, *host.PidsLimit, host.Ulimits[0].Soft)
	fmt.Printf("  order  per agent: 1 untimed bare CLI and /bin/true, %d of each (alternating), the sweep, %d of each\n", n/2, n-n/2)
	var rows []*row
	for _, a := range b.cfg.agents {
		im := images[a]
		r := &row{agent: a, tag: im.tag, im: im}
		stop := b.sess.SampleForeign(ctx, &r.foreign, enginebench.OwnedByChild)
		err := b.measureOne(ctx, bin, r)
		stop()
		if err != nil {
			return err
		}
		rows = append(rows, r)
	}

	fmt.Println()
	fmt.Printf("%-12s %4s %9s %9s %11s %9s %9s %9s %9s %9s %7s  %s\n", "agent", "runs", "cell med", "cell p90", "CLI in cell",
		"cell-CLI", "bare CLI", "bare true", "cell/CLI", "cell/true", "foreign", "outcomes; CLI in cell: exit codes, model requests")
	for _, r := range rows {
		cell, cli, bare, tru := enginebench.Median(r.cellMs), enginebench.Median(r.cliMs), enginebench.Median(r.bareCLIMs), enginebench.Median(r.trueMs)
		fmt.Printf("%-12s %4d %9.0f %9.0f %11.0f %9.0f %9.0f %9.0f %8.1f× %8.1f× %7d  %s; exit %s; model requests %s%s\n", r.agent, len(r.cellMs),
			cell, enginebench.P90(r.cellMs), cli, cell-cli, bare, tru, cell/bare, cell/tru, r.foreign,
			counts(r.outcomes), counts(r.exits), counts(r.requests), missing(r.cliMissing))
	}
	fmt.Println()
	for _, r := range rows {
		fmt.Printf("%-12s %s (%s): %s → %s; bare CLI p90 %.0f, bare true p90 %.0f; sweep %.1f s\n", r.agent, r.tag, r.im.state,
			strings.Join(r.im.cli, " "), r.version, enginebench.P90(r.bareCLIMs), enginebench.P90(r.trueMs), r.sweepWall.Seconds())
	}
	fmt.Println()
	fmt.Println("ms; cell: runs.jsonl ms (container create to the end of the cell's output: attach, start, toolscore agent with its")
	fmt.Println("scripted model and the proxy, the CLI, the exit; not inspect, copy-out, remove), whole milliseconds; CLI in cell: the")
	fmt.Println("adapter's `toolscore agent NAME: D, exit E, K model requests` line (the CLI's process, start to exit, rounded to the ms);")
	fmt.Println("cell-CLI: the difference of the two medians (the container, the adapter around the CLI, the proxy, the scripted model);")
	fmt.Println("bare CLI / bare true: a hardened container of the same image running the CLI's --version / /bin/true, create to the exit")
	fmt.Println("(wait answering), the same span as the cell's; cell/CLI, cell/true: the cell median over that median; p90: nearest rank;")
	fmt.Println("foreign: the most running containers of somebody else's sampled once a second during the agent's turn")
	return nil
}

func missing(k int) string {
	if k == 0 {
		return ""
	}
	return fmt.Sprintf("; %d run(s) without the adapter's line", k)
}

// measureOne runs one agent's warm-up, bare halves and sweep.
func (b *bench) measureOne(ctx context.Context, bin string, r *row) error {
	im := r.im
	_, out, err := b.bare(ctx, im, im.cli, true)
	if err != nil {
		return fmt.Errorf("%s: warm-up bare CLI start: %w", r.agent, err)
	}
	r.version, _, _ = strings.Cut(out, "\n") // its first line on stdout
	if _, _, err := b.bare(ctx, im, []string{"/bin/true"}, false); err != nil {
		return fmt.Errorf("%s: warm-up bare /bin/true: %w", r.agent, err)
	}
	bareN := func(k, from int) error {
		for j := 0; j < k; j++ {
			// Alternate which goes first, so neither always follows the other.
			order := [][]string{im.cli, {"/bin/true"}}
			if (from+j)%2 == 1 {
				order[0], order[1] = order[1], order[0]
			}
			for _, cmd := range order {
				took, _, err := b.bare(ctx, im, cmd, false)
				if err != nil {
					return fmt.Errorf("%s: bare %s: %w", r.agent, strings.Join(cmd, " "), err)
				}
				if cmd[0] == "/bin/true" {
					r.trueMs = append(r.trueMs, enginebench.Ms(took))
				} else {
					r.bareCLIMs = append(r.bareCLIMs, enginebench.Ms(took))
				}
			}
		}
		return nil
	}
	n := b.cfg.runs
	if err := bareN(n/2, 0); err != nil {
		return err
	}
	if err := b.sweep(ctx, bin, r); err != nil {
		return err
	}
	return bareN(n-n/2, n/2)
}

// sweep runs one agent's sweep and reads its runs.jsonl.
func (b *bench) sweep(ctx context.Context, bin string, r *row) error {
	out := filepath.Join(b.tmp, "sweep-"+r.agent)
	manifest := filepath.Join(b.tmp, r.agent+".yaml")
	if err := writeManifest(manifest, r.agent); err != nil {
		return err
	}
	argv := []string{"run", manifest, "--backend", "docker", "--clients", r.agent, "--faults", "clean", "--schema", "hidden",
		"--runs", strconv.Itoa(b.cfg.runs), "--parallel", "1", "--out", out}
	stderr, wall, err := enginebench.Sweep(ctx, bin, b.tmp, argv)
	r.sweepWall = wall
	if err != nil {
		return err
	}
	if strings.Contains(string(stderr), "built "+cellPrefix) {
		return fmt.Errorf("%s: the sweep built a cell image of its own, not %s:\n%s", r.agent, r.tag, enginebench.Tail(stderr, 2000))
	}
	runs, err := enginebench.ReadRuns(out, r.agent, b.cfg.runs, stderr)
	if err != nil {
		return err
	}
	line := regexp.MustCompile(`(?m)^toolscore agent ` + regexp.QuoteMeta(r.agent) + `: (\S+), exit (-?\d+), (\d+) model requests$`)
	r.outcomes, r.exits, r.requests = map[string]int{}, map[string]int{}, map[string]int{}
	for _, rec := range runs {
		r.outcomes[string(rec.Outcome)]++
		r.cellMs = append(r.cellMs, float64(rec.Ms))
		m := line.FindStringSubmatch(rec.Stderr)
		if m == nil {
			r.cliMissing++
			continue
		}
		d, err := time.ParseDuration(m[1])
		if err != nil {
			return fmt.Errorf("%s: the adapter's line %q: %w", r.agent, m[0], err)
		}
		r.cliMs = append(r.cliMs, enginebench.Ms(d))
		r.exits[m[2]]++
		r.requests[m[3]]++
	}
	return nil
}

// writeManifest writes the embedded ledger scenario with only the agent as its client.
func writeManifest(path, agent string) error {
	text := string(scenarios.Ledger)
	i := strings.Index(text, "\nclients:")
	if i < 0 {
		return errors.New("the embedded scenario has no clients section")
	}
	return os.WriteFile(path, []byte(text[:i+1]+"clients: ["+agent+"]\nruns: 1\ntimeout: 60s\n"), 0o644)
}

// bare runs CMD in a fresh container of the agent's image, hardened as a cell (cellHardening)
// but with none of a cell's labels, attachments or stream: it returns create to the exit and,
// when asked (or when it fails), what it printed, read after the exit.
func (b *bench) bare(ctx context.Context, im agentImage, cmd []string, output bool) (took time.Duration, out string, err error) {
	user, host := cellHardening()
	t0 := time.Now()
	id, err := b.sess.Create(ctx,
		&container.Config{Image: im.tag, Cmd: cmd, User: user, WorkingDir: im.home,
			Env: []string{"TMPDIR=" + im.home, "HOME=" + im.home}},
		host)
	if err != nil {
		return 0, "", err
	}
	defer b.sess.Remove(ctx, id)
	code, err := b.sess.StartToExit(ctx, id, func(step string) {
		if step == "exit" {
			took = time.Since(t0)
		}
	})
	if err == nil && code != 0 {
		err = fmt.Errorf("%s in %s exited %d", strings.Join(cmd, " "), im.tag, code)
	}
	if output || err != nil {
		stdout, stderr := b.logs(ctx, id)
		out = stdout
		if err != nil {
			err = fmt.Errorf("%w: %s", err, enginebench.Tail([]byte(stdout+"\n"+stderr), 1500))
		}
	}
	return took, out, err
}

// logs is what a container printed on its stdout and its stderr.
func (b *bench) logs(ctx context.Context, id string) (string, string) {
	lctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	rc, err := b.api.ContainerLogs(lctx, id, container.LogsOptions{ShowStdout: true, ShowStderr: true})
	if err != nil {
		return "", "(logs: " + err.Error() + ")"
	}
	defer rc.Close()
	var stdout, stderr bytes.Buffer
	_, _ = stdcopy.StdCopy(&stdout, &stderr, rc)
	return strings.TrimSpace(stdout.String()), strings.TrimSpace(stderr.String())
}

// removeBuiltImages removes the cell images this program built, by tag: PruneChildren takes
// only their own layers (the binary's and the work directory's; those below are shared).
func (b *bench) removeBuiltImages() {
	if len(b.builtTags) == 0 {
		return
	}
	if b.cfg.keepImages {
		fmt.Printf("kept the %d cell image(s) this benchmark built: %s\n", len(b.builtTags), strings.Join(b.builtTags, ", "))
		return
	}
	n, errs := enginebench.RemoveImages(b.api, b.builtTags)
	fmt.Printf("removed the %d cell image(s) this benchmark built", n)
	if len(errs) > 0 {
		fmt.Printf("; could not remove: %s", strings.Join(errs, "; "))
	}
	fmt.Println()
}

// ============================== numbers ========================================================

// counts renders a tally as "a ×3, b ×1", sorted by key.
func counts(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s ×%d", k, m[k]))
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, ", ")
}
