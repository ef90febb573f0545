package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/events"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/client"

	"github.com/toolscore/toolscore/internal/backend"
	"github.com/toolscore/toolscore/internal/backend/docker"
	"github.com/toolscore/toolscore/tally"
)

// engine returns a client of the real Docker engine, or skips the test when none answers;
// scripts/test starts one and sets TOOLSCORE_REQUIRE_DOCKER=1, so in CI a missing engine fails.
// The test then runs beside the other docker tests (t.Parallel): most of one's time is spent
// waiting on containers and image builds, and each tells its own containers from the others'
// (ours).
func engine(t *testing.T) *client.Client {
	t.Helper()
	api := serialEngine(t)
	t.Parallel()
	return api
}

// serialEngine is engine for a test that runs alone: one that sets the environment, which a
// parallel test cannot, or one whose sweep runs in another PID namespace, whose containers a
// test running beside it could not tell from its own leftovers (their owner cannot be judged
// from here).
func serialEngine(t *testing.T) *client.Client {
	t.Helper()
	if _, err := docker.New(context.Background()); err != nil {
		if os.Getenv("TOOLSCORE_REQUIRE_DOCKER") == "1" {
			t.Fatalf("the Docker engine is required here: %v", err)
		}
		t.Skipf("no Docker engine: %v", err)
	}
	api, err := client.NewClientWithOpts(client.FromEnv, client.WithAPIVersionNegotiation())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { api.Close() })
	return api
}

var (
	staticOnce sync.Once
	staticPath string
	staticErr  error
)

// staticToolscore builds the real, static toolscore binary once: the docker backend copies it
// into every cell, so the test binary (dynamically linked, race-instrumented) cannot stand in.
func staticToolscore(t *testing.T) string {
	t.Helper()
	path, err := buildStatic()
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// buildStatic builds the static toolscore once per test binary (TestMain asks first).
func buildStatic() (string, error) {
	staticOnce.Do(func() {
		dir, err := os.MkdirTemp("", "toolscore-static-")
		if err != nil {
			staticErr = err
			return
		}
		cleanups = append(cleanups, func() { os.RemoveAll(dir) })
		staticPath = filepath.Join(dir, "toolscore")
		cmd := exec.Command("go", "build", "-o", staticPath, ".")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			staticErr = &buildError{string(out), err}
		}
	})
	return staticPath, staticErr
}

type buildError struct {
	out string
	err error
}

func (e *buildError) Error() string { return e.err.Error() + ": " + e.out }

// ours lists the containers with our label, less those of sweeps running on this machine that
// this test did not start (a developer's own sweep, another test's running beside it): they are
// not this test's leftovers.
func ours(t *testing.T, api *client.Client) []container.Summary {
	t.Helper()
	cs, err := api.ContainerList(context.Background(), container.ListOptions{All: true, Filters: filters.NewArgs(filters.Arg("label", docker.LabelMarker+"=1"))})
	if err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	var mine []container.Summary
	for _, c := range cs {
		label := c.Labels[docker.LabelOwner]
		if label == "" {
			// An image build's step, which carries its base image's marker but no owner: every
			// container a sweep creates names its owner.
			continue
		}
		if o, err := backend.ParseOwner(label); err == nil {
			by, started := startedPids.Load(o.PID)
			if started && by != topTest(t) {
				continue
			}
			if gone, known := o.Gone(); known && !gone && !started {
				continue
			}
		} else if h, pidText, _ := strings.Cut(label, ":"); h == host {
			// An older toolscore's label, host:pid.
			pid, _ := strconv.Atoi(pidText)
			by, started := startedPids.Load(pid)
			if started && by != topTest(t) || pid > 0 && !started && syscall.Kill(pid, 0) == nil {
				continue
			}
		}
		mine = append(mine, c)
	}
	return mine
}

// startedPids are the toolscore processes these tests started, each with the name of the
// top-level test that started it.
var startedPids sync.Map

// start starts cmd and notes its pid as one of t's sweeps.
func start(t *testing.T, cmd *exec.Cmd) error {
	if err := cmd.Start(); err != nil {
		return err
	}
	startedPids.Store(cmd.Process.Pid, topTest(t))
	return nil
}

// topTest is the name of the top-level test t is or runs under: tests that run in parallel
// tell their containers apart by it.
func topTest(t *testing.T) string {
	name, _, _ := strings.Cut(t.Name(), "/")
	return name
}

func noLeftovers(t *testing.T, api *client.Client, after string) {
	t.Helper()
	if cs := ours(t, api); len(cs) > 0 {
		var names []string
		for _, c := range cs {
			names = append(names, c.ID[:12]+" "+c.Labels[docker.LabelCell]+" "+c.State)
		}
		t.Errorf("after %s, containers with our label remain: %v", after, names)
	}
}

func runStatic(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return runStaticEnv(t, nil, args...)
}

// runStaticEnv is runStatic with env added to this process's environment.
func runStaticEnv(t *testing.T, env []string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(staticToolscore(t), append([]string{"run"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	var o, e strings.Builder
	cmd.Stdout, cmd.Stderr = &o, &e
	if err := start(t, cmd); err != nil {
		return exitCode(err), "", err.Error()
	}
	return exitCode(cmd.Wait()), o.String(), e.String()
}

func readResultsDir(t *testing.T, dir string) *tally.Results {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r tally.Results
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return &r
}

// TestDockerMatchesLocal: the built-in clients give the same counts in containers as in local
// process groups, over every fault of the embedded scenario, and a normal sweep leaves nothing
// behind. CI compares one schema mode (hidden; the proxy's rewrite of tools/list is the same
// code on both backends, and the published mode runs on docker in the other tests of the
// faults); scripts/nightly compares both.
func TestDockerMatchesLocal(t *testing.T) {
	api := engine(t)
	dockerOut, localOut := t.TempDir(), t.TempDir()
	builtins := "raw,go-sdk/call,go-sdk/list-then-call,mcp-go/call,mcp-go/list-then-call"
	// One protocol of the two is enough to compare backends; the cap's, which the proxy rewrites for.
	args := []string{"--clients", builtins, "--protocols", "2025-11-25", "--runs", "1", "--parallel", "2"}
	cells := 5 * 11 * 2
	if !fullProduct() {
		args, cells = append(args, "--schema", "hidden"), 5*11
	}
	if code, _, stderr := runStatic(t, append([]string{"--backend", "docker", "--out", dockerOut}, args...)...); code != 0 {
		t.Fatalf("docker sweep exited %d:\n%s", code, stderr)
	}
	noLeftovers(t, api, "a normal sweep")
	if code, _, stderr := runStatic(t, append([]string{"--backend", "local", "--out", localOut}, args...)...); code != 0 {
		t.Fatalf("local sweep exited %d:\n%s", code, stderr)
	}
	d, l := readResultsDir(t, dockerOut), readResultsDir(t, localOut)
	if d.Backend != "docker" || l.Backend != "local" || len(d.Cells) != cells || len(l.Cells) != cells {
		t.Fatalf("backends %s/%s, %d/%d cells, want %d", d.Backend, l.Backend, len(d.Cells), len(l.Cells), cells)
	}
	for i := range d.Cells {
		dc, lc := d.Cells[i], l.Cells[i]
		if dc.Key() != lc.Key() || dc.Counts() != lc.Counts() {
			t.Errorf("%s: docker %s, local %s %s", dc.Key(), dc.Counts(), lc.Key(), lc.Counts())
		}
	}
	if _, err := os.Stat(filepath.Join(dockerOut, "runs", "raw__corrupt__hidden__stdio__2025-11-25", "run-1", "tee.jsonl")); err != nil {
		t.Errorf("the transcript did not come out of the cell: %v", err)
	}
}

// TestDockerMatchesLocalInstalled: the clients the local backend runs from its install cache
// (the TypeScript and Python SDKs, Claude Code) give the same counts on a machine where no Docker
// daemon answers as in their cell images, on the faults that tell them apart, in both schema
// modes; and the study's finding, strict once the schema is published, shows on the local
// backend. The local sweeps install into the user's cache folder, once per machine.
//
// Claude Code runs under both protocols, since its outcomes depend on the protocol; the SDK
// clients under 2026-07-28 only: they negotiate 2025-11-25 under either (the same counts both
// ways), and the second protocol doubled the test's time (6.5 min on a busy 2-CPU machine).
func TestDockerMatchesLocalInstalled(t *testing.T) {
	engine(t)
	faults := []string{"--faults", "type-swap,empty,wrong-container", "--runs", "1", "--parallel", "2"}
	sdks := compareBackends(t, append([]string{"--clients", "ts-sdk/call,ts-sdk/list-then-call,ts-client-v2/call,ts-client-v2/list-then-call,python-sdk/call,python-sdk/list-then-call",
		"--protocols", "2026-07-28"}, faults...), 6*3*2)
	agent := compareBackends(t, append([]string{"--clients", "claude-code"}, faults...), 3*2*2)
	byProtocol := map[string]map[string]string{} // fault|schema → protocol → counts, local
	for _, c := range agent {
		k := c.Fault + "|" + c.Schema
		if byProtocol[k] == nil {
			byProtocol[k] = map[string]string{}
		}
		byProtocol[k][c.Protocol] = c.Counts()
	}
	if !slices.ContainsFunc(slices.Collect(maps.Values(byProtocol)), func(m map[string]string) bool { return m["2025-11-25"] != m["2026-07-28"] }) {
		t.Errorf("claude-code: changing the protocol changed no cell on the local backend: %v", byProtocol)
	}

	bySchema := map[string]map[string]string{} // client|fault|protocol → schema → counts, local
	for _, c := range sdks {
		k := c.Client + "|" + c.Fault + "|" + c.Protocol
		if bySchema[k] == nil {
			bySchema[k] = map[string]string{}
		}
		bySchema[k][c.Schema] = c.Counts()
	}
	for _, client := range []string{"ts-sdk/list-then-call", "python-sdk/call", "python-sdk/list-then-call"} {
		differs := false
		for k, counts := range bySchema {
			if strings.HasPrefix(k, client+"|") && counts["hidden"] != counts["published"] {
				differs = true
			}
		}
		if !differs {
			t.Errorf("%s: publishing the schema changed no cell on the local backend", client)
		}
	}
}

// compareBackends sweeps args on the docker backend, then on the local backend with no Docker
// daemon reachable (DOCKER_HOST is a socket that does not exist), and checks that both ran
// every run of the same cells, cells of them, with the same counts; it returns the local cells.
func compareBackends(t *testing.T, args []string, cells int) []*tally.Cell {
	t.Helper()
	dockerOut, localOut := t.TempDir(), t.TempDir()
	if code, _, stderr := runStatic(t, append([]string{"--backend", "docker", "--out", dockerOut}, args...)...); code != 0 {
		t.Fatalf("docker sweep exited %d:\n%s", code, stderr)
	}
	noDaemon := []string{"DOCKER_HOST=unix://" + filepath.Join(t.TempDir(), "no-docker.sock")}
	if code, _, stderr := runStaticEnv(t, noDaemon, append([]string{"--backend", "local", "--out", localOut}, args...)...); code != 0 {
		t.Fatalf("local sweep exited %d:\n%s", code, stderr)
	}
	d, l := readResultsDir(t, dockerOut), readResultsDir(t, localOut)
	if d.Backend != "docker" || l.Backend != "local" || len(d.Cells) != cells || len(l.Cells) != cells {
		t.Fatalf("%v: backends %s/%s, %d/%d cells, want %d", args, d.Backend, l.Backend, len(d.Cells), len(l.Cells), cells)
	}
	for i := range d.Cells {
		dc, lc := d.Cells[i], l.Cells[i]
		if dc.Key() != lc.Key() || dc.Counts() != lc.Counts() {
			t.Errorf("%s: docker %s, local %s %s", dc.Key(), dc.Counts(), lc.Key(), lc.Counts())
		}
		if dc.Runs != 1 || lc.Runs != 1 {
			t.Errorf("%s: %d run(s) on docker, %d local, want 1 (unavailable: docker %v, local %v)", lc.Key(), dc.Runs, lc.Runs, d.Unavailable, l.Unavailable)
		}
	}
	return l.Cells
}

// slowManifest is one cell whose run lasts a while (the answer comes late), so a test can look
// at a live cell or interrupt a sweep in the middle.
func slowManifest(t *testing.T, runs int) string {
	p := filepath.Join(t.TempDir(), "slow.yaml")
	os.WriteFile(p, []byte(`name: slow
server: {builtin: ledger}
tool: get_account_balance
arguments: {account_id: ACC-4471}
faults: [{name: latency, latency: 4s}]
schema_modes: [hidden]
clients: [raw]
runs: `+string(rune('0'+runs))+`
timeout: 20s
`), 0o644)
	return p
}

// TestDockerHardening inspects a live cell: loopback-only network, every capability dropped,
// no-new-privileges, a non-root user, memory with swap equal, CPU, pids and open-file limits,
// no mount at all (so never the Docker socket), and no log file on the engine's disk.
func TestDockerHardening(t *testing.T) {
	api := engine(t)
	cmd := exec.Command(staticToolscore(t), "run", slowManifest(t, 1), "--backend", "docker", "--out", t.TempDir())
	if err := start(t, cmd); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	var live []container.Summary
	for deadline := time.Now().Add(60 * time.Second); len(live) == 0; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("no cell container appeared")
		}
		for _, c := range ours(t, api) {
			// A cell's, not the preflight's, which starts the server once before the sweep.
			if c.State == "running" && c.Labels[docker.LabelCell] != "preflight" {
				live = append(live, c)
			}
		}
	}
	info, err := api.ContainerInspect(context.Background(), live[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	h := info.HostConfig
	checks := []struct {
		what string
		ok   bool
	}{
		{"network none", string(h.NetworkMode) == "none"},
		{"all capabilities dropped", len(h.CapDrop) == 1 && strings.EqualFold(h.CapDrop[0], "ALL") && len(h.CapAdd) == 0},
		{"no-new-privileges", len(h.SecurityOpt) == 1 && strings.HasPrefix(h.SecurityOpt[0], "no-new-privileges")},
		{"non-root user", info.Config.User == "1000:1000"},
		{"memory limited, swap equal", h.Memory == 1<<30 && h.MemorySwap == h.Memory},
		{"one CPU", h.NanoCPUs == 1e9},
		{"pids limited", h.PidsLimit != nil && *h.PidsLimit == 256},
		{"open files limited", len(h.Ulimits) == 1 && h.Ulimits[0].Name == "nofile" && h.Ulimits[0].Hard == 1024},
		{"not privileged", !h.Privileged},
		{"no mounts (no Docker socket)", len(info.Mounts) == 0 && len(h.Binds) == 0},
		{"not auto-removed (toolscore removes it after copying out)", !h.AutoRemove},
		{"no log file (its output reaches only the attach connection)", h.LogConfig.Type == "none"},
		{"labelled with session and cell", info.Config.Labels[docker.LabelSession] != "" && info.Config.Labels[docker.LabelCell] == "raw|latency|hidden|stdio"},
	}
	for _, c := range checks {
		if !c.ok {
			t.Errorf("cell hardening: want %s; HostConfig %+v User %q", c.what, *h, info.Config.User)
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the sweep failed: %v", err)
	}
	noLeftovers(t, api, "the hardening sweep")
}

// TestDockerLeaks: after a failing sweep, after SIGINT, and after SIGKILL plus the next start,
// no container with our label is left.
func TestDockerLeaks(t *testing.T) {
	api := engine(t)
	unmet := filepath.Join(t.TempDir(), "unmet.yaml")
	os.WriteFile(unmet, []byte(`name: unmet
server: {builtin: ledger}
tool: get_account_balance
arguments: {account_id: ACC-4471}
faults: [corrupt]
schema_modes: [hidden]
clients: [raw]
runs: 2
expect: [{client: raw, outcome: threw}]
`), 0o644)
	if code, _, stderr := runStatic(t, unmet, "--backend", "docker", "--out", t.TempDir()); code != 1 {
		t.Fatalf("the failing sweep exited %d, want 1:\n%s", code, stderr)
	}
	noLeftovers(t, api, "a failing sweep")

	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGKILL} {
		cmd := exec.Command(staticToolscore(t), "run", slowManifest(t, 4), "--backend", "docker", "--parallel", "2", "--out", t.TempDir())
		if err := start(t, cmd); err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			if n := len(ours(t, api)); n >= 1 { // the cell's container: its runs share it
				break
			}
			if time.Now().After(deadline) {
				cmd.Process.Kill()
				t.Fatal("the cells did not start")
			}
		}
		cmd.Process.Signal(sig)
		err := cmd.Wait()
		if sig == syscall.SIGINT {
			if code := exitCode(err); code != 130 {
				t.Errorf("exit %d after SIGINT, want 130", code)
			}
			noLeftovers(t, api, "SIGINT")
			continue
		}
		if len(ours(t, api)) == 0 {
			t.Fatal("SIGKILL left nothing behind: this test would prove nothing")
		}
		if code, _, stderr := runStatic(t, "--backend", "docker", "--runs", "1", "--clients", "raw", "--faults", "clean", "--schema", "hidden", "--out", t.TempDir()); code != 0 {
			t.Fatalf("the next sweep exited %d:\n%s", code, stderr)
		}
		noLeftovers(t, api, "SIGKILL and the next start")
	}
}

// TestDockerSweepsInOtherPIDNamespaces: a sweep in another PID namespace (as in a container
// that shares the host's name) keeps its cells while a sweep starts here on the same engine:
// its pid means nothing here, so this one cannot judge it gone and leaves its containers to
// their deadline. The other sweep's toolscore gets a pid that no process has here, which is what
// a sweep judging by host and pid took for a dead owner.
func TestDockerSweepsInOtherPIDNamespaces(t *testing.T) {
	api := serialEngine(t)
	if err := exec.Command("unshare", "--pid", "--fork", "--mount-proc", "true").Run(); err != nil {
		t.Skipf("no PID namespace can be made here (unshare, from util-linux, as root): %v", err)
	}
	// The lowest pid free here: below 300 the kernel hands out no pid again once it wraps.
	free := 2
	for ; free < 300; free++ {
		if _, err := os.Stat("/proc/" + strconv.Itoa(free)); err != nil {
			break
		}
	}
	dir := t.TempDir()
	pidFile, out := filepath.Join(dir, "pid"), filepath.Join(dir, "out")
	// In the new namespace sh is pid 1 and each process it starts takes the next pid: it
	// starts throwaway ones until toolscore's turn comes at the free pid.
	script := `i=2; while [ $i -lt ` + strconv.Itoa(free) + ` ]; do /bin/true; i=$((i+1)); done
"$0" "$@" & echo $! > ` + pidFile + `; wait $!`
	other := exec.Command("unshare", "--pid", "--fork", "--mount-proc", "sh", "-c", script,
		staticToolscore(t), "run", slowManifest(t, 4), "--backend", "docker", "--parallel", "2", "--out", out)
	var stderr strings.Builder
	other.Stderr = &stderr
	if err := start(t, other); err != nil {
		t.Fatal(err)
	}
	defer other.Process.Kill()
	for deadline := time.Now().Add(60 * time.Second); len(ownedBy(t, api, free)) < 1; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			other.Process.Kill()
			other.Wait()
			t.Fatalf("the other namespace's cells did not start:\n%s", stderr.String())
		}
	}
	b, _ := os.ReadFile(pidFile)
	if _, err := os.Stat("/proc/" + strconv.Itoa(free)); err == nil || strings.TrimSpace(string(b)) != strconv.Itoa(free) {
		t.Fatalf("the other sweep's toolscore is pid %s there, and pid %d is in use here: this test would prove nothing", b, free)
	}
	if code, _, e := runStatic(t, "--backend", "docker", "--runs", "1", "--clients", "raw", "--faults", "clean", "--schema", "hidden", "--out", t.TempDir()); code != 0 {
		t.Fatalf("the sweep here exited %d:\n%s", code, e)
	}
	if err := other.Wait(); err != nil {
		t.Fatalf("the other namespace's sweep: %v\n%s", err, stderr.String())
	}
	res := readResultsDir(t, out)
	if len(res.Cells) != 1 || res.Cells[0].Runs != 4 || res.Cells[0].Outcome["passed"] != 4 {
		t.Fatalf("the other namespace's sweep: want its 4 runs passed (none killed)\n%s", stderr.String())
	}
	noLeftovers(t, api, "two sweeps in two PID namespaces")
}

// ownedBy lists the running cells of sweeps in other PID namespaces whose toolscore has pid.
func ownedBy(t *testing.T, api *client.Client, pid int) []container.Summary {
	here := backend.Self().PIDNS
	var of []container.Summary
	for _, c := range ours(t, api) {
		if o, err := backend.ParseOwner(c.Labels[docker.LabelOwner]); err == nil && o.PID == pid && o.PIDNS != here && c.State == "running" {
			of = append(of, c)
		}
	}
	return of
}

// TestDockerTranscriptRunTimesOut: in a cell, a run's timeout stops the adapter only (the
// container's first process); the adapter asks the proxy to stop, so each client's transcript
// still ends with the exit of the server that never answered.
func TestDockerTranscriptRunTimesOut(t *testing.T) {
	api := engine(t)
	out := t.TempDir()
	if code, _, stderr := runStatic(t, hangManifest(t, "raw, go-sdk/call, mcp-go/call", "3s"), "--backend", "docker", "--out", out); code != 0 {
		t.Fatalf("the sweep exited %d:\n%s", code, stderr)
	}
	noLeftovers(t, api, "a sweep that timed out")
	tees := runTees(out)
	if len(tees) != 3 {
		t.Fatalf("%d transcripts, want 3", len(tees))
	}
	for _, tee := range tees {
		recs := readTee(t, tee)
		last := recs[len(recs)-1]
		if d, _ := last["detail"].(map[string]any); last["event"] != "server-exit" || d["signal"] != "killed" {
			t.Errorf("%s ends with %v, want the server's exit by SIGKILL", tee, last)
		}
	}
}

// TestDockerResumeOfAFinishedSweep: resuming a sweep on docker runs only the cells with runs
// left, and a cell whose runs are all done gets no container (the engine's own events say how
// many were created); the first sweep made one per cell. Each also starts the server once
// before any run (the preflight), in a container of its own, counted apart.
func TestDockerResumeOfAFinishedSweep(t *testing.T) {
	api := engine(t)
	out := t.TempDir()
	preflights := 0
	creates := func(run func()) int {
		n := containerCreates(t, api, run)
		preflights += n["preflight"]
		return n["cells"]
	}
	first := creates(func() {
		if code, _, stderr := runStatic(t, "--backend", "docker", "--clients", "raw,go-sdk/call", "--faults", "clean,corrupt", "--schema", "hidden",
			"--protocols", "2026-07-28", "--runs", "2", "--out", out); code != 0 {
			t.Fatalf("the sweep exited %d:\n%s", code, stderr)
		}
	})
	again := creates(func() {
		if code, _, stderr := runStatic(t, "--resume", out); code != 0 {
			t.Fatalf("the resumed sweep exited %d:\n%s", code, stderr)
		}
	})
	if first != 4 || again != 0 || preflights != 2 {
		t.Errorf("containers created: %d by the sweep (want 4, one per cell), %d by resuming it when it was done (want 0), %d preflights (want one each)", first, again, preflights)
	}
	noLeftovers(t, api, "the resumed sweep")
}

// containerCreates runs run and counts the containers this test's sweeps created meanwhile,
// from the engine's own events: those of runs under "cells", and apart those the sweep starts
// around them under their io.toolscore.cell label ("preflight": the server started once before
// any run; "cache check": the cell cache's replay to the live server). Not an image build's
// step, nor a container of any other sweep on the engine.
func containerCreates(t *testing.T, api *client.Client, run func()) map[string]int {
	t.Helper()
	// The engine takes a time to the nanosecond.
	stamp := func(t time.Time) string { return fmt.Sprintf("%d.%09d", t.Unix(), t.Nanosecond()) }
	since := time.Now()
	run()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	msgs, errs := api.Events(ctx, events.ListOptions{
		Since: stamp(since), Until: stamp(time.Now()),
		Filters: filters.NewArgs(filters.Arg("type", "container"), filters.Arg("event", "create"), filters.Arg("label", docker.LabelMarker)),
	})
	n := map[string]int{}
	for {
		select {
		case m := <-msgs:
			if o, err := backend.ParseOwner(m.Actor.Attributes[docker.LabelOwner]); err == nil {
				if by, _ := startedPids.Load(o.PID); by == topTest(t) {
					switch cell := m.Actor.Attributes[docker.LabelCell]; cell {
					case "preflight", "cache check":
						n[cell]++
					default:
						n["cells"]++
					}
				}
			}
		case err := <-errs:
			if err != nil && err != io.EOF {
				t.Fatal(err)
			}
			return n
		}
	}
}
