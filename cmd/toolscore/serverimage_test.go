package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/client"

	"github.com/toolscore/toolscore/internal/backend/docker"
)

// serverImageTag is the server image the tests build from testdata/server-image.
const serverImageTag = "toolscore-test/server-everything:2026.8.31"

// everythingManifest is the server-everything scenario with the given server and clients.
func everythingManifest(t *testing.T, server, clients, faults string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "everything.yaml")
	writeFile(t, p, `name: server-everything
server: `+server+`
tool: get-structured-content
arguments: {location: Chicago}
prompt: What is the weather in Chicago? Answer with the temperature.
truth: ["36"]
faults: `+faults+`
schema_modes: [published]
clients: `+clients+`
runs: 1
timeout: 60s
`)
	return p
}

// buildServerImage builds the test's server image on the local node base.
func buildServerImage(t *testing.T, api *client.Client) {
	t.Helper()
	base := os.Getenv("TOOLSCORE_NODE_IMAGE")
	if base == "" {
		t.Skip("TOOLSCORE_NODE_IMAGE names no local node image to build the server image from")
	}
	start := time.Now()
	buildImage(t, api, "testdata/server-image", serverImageTag, map[string]string{"BASE_IMAGE": base})
	t.Logf("built the server image in %s", time.Since(start).Round(time.Millisecond))
}

// sweepCounts runs a sweep and returns every cell's counts by client and fault.
func sweepCounts(t *testing.T, manifest string, args ...string) map[string]string {
	t.Helper()
	out := t.TempDir()
	start := time.Now()
	code, _, stderr := runStatic(t, append([]string{manifest, "--out", out}, args...)...)
	if code != 0 {
		t.Fatalf("the sweep %v exited %d:\n%s", args, code, stderr)
	}
	t.Logf("sweep %v: %s", args, time.Since(start).Round(time.Millisecond))
	res := readResultsDir(t, out)
	if len(res.Unavailable) > 0 {
		t.Fatalf("unavailable: %+v", res.Unavailable)
	}
	got := map[string]string{}
	for _, c := range res.Cells {
		got[c.Client+" "+c.Fault] = c.Counts()
	}
	return got
}

// TestImageServer sweeps a real npm server from an image of its own with the SDK clients of
// both languages, the Go SDK (on the scratch-based built-in image, which could not hold the
// server) and an agent; each count matches the same server run as a command: installed on the
// node-based client images, and on this machine for the built-in client on the local backend.
// The Python SDK's image has no node, so only the image server can reach it: its counts are the
// TypeScript SDK's, which validates the same way.
func TestImageServer(t *testing.T) {
	api := engine(t)
	buildServerImage(t, api)
	const faults = "[clean, type-swap]"
	image := sweepCounts(t, everythingManifest(t, `{image: "`+serverImageTag+`", command: [mcp-server-everything, stdio]}`,
		"[ts-sdk/list-then-call, python-sdk/call, go-sdk/call, claude-code]", faults), "--backend", "docker", "--parallel", "2")

	installed := sweepCounts(t, everythingManifest(t, `{command: [mcp-server-everything, stdio], install: npm install -g --no-audit --no-fund @modelcontextprotocol/server-everything@2026.8.31}`,
		"[ts-sdk/list-then-call, claude-code]", faults), "--backend", "docker", "--parallel", "2")
	prefix := t.TempDir()
	npm := exec.Command("npm", "install", "-g", "--prefix", prefix, "--no-audit", "--no-fund", "@modelcontextprotocol/server-everything@2026.8.31")
	if out, err := npm.CombinedOutput(); err != nil {
		t.Fatalf("installing the server here: %v\n%s", err, out)
	}
	local := sweepCounts(t, everythingManifest(t, `{command: [`+filepath.Join(prefix, "bin", "mcp-server-everything")+`, stdio]}`,
		"[go-sdk/call]", faults), "--backend", "local")

	want := map[string]string{}
	for k, v := range installed {
		want[k] = v
	}
	for k, v := range local {
		want[k] = v
	}
	for _, f := range []string{"clean", "type-swap"} {
		want["python-sdk/call "+f] = installed["ts-sdk/list-then-call "+f]
	}
	t.Logf("from the image server: %v", image)
	for k, w := range want {
		if image[k] != w {
			t.Errorf("%s: %q from the image server, %q as a command", k, image[k], w)
		}
	}
	if len(image) != len(want) || len(want) != 8 {
		t.Errorf("cells from the image server %v; as a command %v", image, want)
	}
	if want["ts-sdk/list-then-call type-swap"] != "threw 1/1" {
		t.Errorf("the TypeScript SDK did not throw on the type-swapped result: the faults did not reach it (%v)", want)
	}
	noLeftovers(t, api, "the image server sweeps")
}

// TestImageServerContainers inspects a live run's two containers: the server's with network
// none, the cell joined to its loopback, both hardened as cells are, labelled with the session,
// cell and run. Then a SIGKILL of the sweep leaves both, and the next start removes them.
func TestImageServerContainers(t *testing.T) {
	api := engine(t)
	buildServerImage(t, api)
	// A fault that fetches a neighbouring record gets it from a fresh server through the bridge.
	out := t.TempDir()
	decoy := everythingManifest(t, `{image: "`+serverImageTag+`", command: [mcp-server-everything, stdio]}`, "[raw]", `[{name: corrupt-plausible, decoy_args: {location: "New York"}}]`)
	if code, _, stderr := runStatic(t, decoy, "--backend", "docker", "--out", out); code != 0 {
		t.Fatalf("the decoy sweep exited %d:\n%s", code, stderr)
	}
	if tee := readTees(t, out); !strings.Contains(tee, `decoy record fetched`) || !strings.Contains(tee, `"dir":"stderr"`) || !strings.Contains(tee, `"event":"server-exit"`) {
		t.Errorf("the transcript lacks the decoy, the server's stderr or its exit:\n%s", tee)
	}

	manifest := everythingManifest(t, `{image: "`+serverImageTag+`", command: [mcp-server-everything, stdio]}`, "[raw]", "[{name: latency, latency: 5s}]")
	cmd := exec.Command(staticToolscore(t), "run", manifest, "--backend", "docker", "--runs", "3", "--out", t.TempDir())
	if err := start(t, cmd); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	var server, cell container.InspectResponse
	for deadline := time.Now().Add(90 * time.Second); cell.ContainerJSONBase == nil; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("no running cell beside a server container appeared")
		}
		for _, c := range ours(t, api) {
			info, err := api.ContainerInspect(context.Background(), c.ID)
			if err != nil || info.State == nil || !info.State.Running {
				continue
			}
			if c.Labels[docker.LabelServer] == "1" {
				server = info
			} else if server.ContainerJSONBase != nil && string(info.HostConfig.NetworkMode) == "container:"+server.ID {
				cell = info
			}
		}
	}
	for _, c := range []struct {
		name    string
		info    container.InspectResponse
		network string
	}{{"server", server, "none"}, {"cell", cell, "container:" + server.ID}} {
		h := c.info.HostConfig
		checks := []struct {
			what string
			ok   bool
		}{
			{"network " + c.network, string(h.NetworkMode) == c.network},
			{"all capabilities dropped", len(h.CapDrop) == 1 && strings.EqualFold(h.CapDrop[0], "ALL") && len(h.CapAdd) == 0},
			{"no-new-privileges", len(h.SecurityOpt) == 1 && strings.HasPrefix(h.SecurityOpt[0], "no-new-privileges")},
			{"non-root user", c.info.Config.User == "1000:1000"},
			{"memory limited, swap equal", h.Memory == 1<<30 && h.MemorySwap == h.Memory},
			{"one CPU", h.NanoCPUs == 1e9},
			{"pids limited", h.PidsLimit != nil && *h.PidsLimit == 256},
			{"open files limited", len(h.Ulimits) == 1 && h.Ulimits[0].Name == "nofile" && h.Ulimits[0].Hard == 1024},
			{"not privileged", !h.Privileged},
			{"no mounts (no Docker socket)", len(c.info.Mounts) == 0 && len(h.Binds) == 0},
			{"labelled with session, owner, deadline, cell and run", c.info.Config.Labels[docker.LabelSession] != "" && c.info.Config.Labels[docker.LabelOwner] != "" &&
				c.info.Config.Labels[docker.LabelDeadline] != "" && c.info.Config.Labels[docker.LabelCell] == "raw|latency|published|stdio" && c.info.Config.Labels[docker.LabelRun] != ""},
		}
		for _, k := range checks {
			if !k.ok {
				t.Errorf("%s container: want %s; HostConfig %+v User %q Labels %v", c.name, k.what, *h, c.info.Config.User, c.info.Config.Labels)
			}
		}
	}
	if server.Config.Labels[docker.LabelRun] != cell.Config.Labels[docker.LabelRun] || server.Config.Labels[docker.LabelSession] != cell.Config.Labels[docker.LabelSession] {
		t.Errorf("the server container is not of the cell's run: %v, %v", server.Config.Labels, cell.Config.Labels)
	}

	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	left := 0
	for _, c := range ours(t, api) {
		if c.ID == server.ID || c.ID == cell.ID {
			left++
		}
	}
	if left != 2 {
		t.Fatalf("SIGKILL left %d of the run's two containers: this test would prove nothing", left)
	}
	if code, _, stderr := runStatic(t, "--backend", "docker", "--runs", "1", "--clients", "raw", "--faults", "clean", "--schema", "hidden", "--out", t.TempDir()); code != 0 {
		t.Fatalf("the next sweep exited %d:\n%s", code, stderr)
	}
	noLeftovers(t, api, "SIGKILL and the next start")
}

// readTees is every transcript of a sweep's output, one after the other.
func readTees(t *testing.T, out string) string {
	t.Helper()
	var all strings.Builder
	for _, p := range runTees(out) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		all.Write(b)
	}
	return all.String()
}

// TestInitImage writes a starter for a server that runs in an image, listed as a run reaches it
// (a cell beside the server container, over the bridge): the image and command in its server
// block, every tool; filled in, it runs on the docker backend, and nothing is left behind.
func TestInitImage(t *testing.T) {
	api := engine(t)
	// Mostly image builds and package installs, which leave the CPU idle: it runs beside
	// other tests, its leftovers told apart by the sweeps it started.
	buildServerImage(t, api)
	dir := t.TempDir()
	manifest := filepath.Join(dir, "scenario.yaml")
	run := func(args ...string) (int, string) {
		cmd := exec.Command(staticToolscore(t), args...)
		cmd.Dir = dir
		var e strings.Builder
		cmd.Stderr = &e
		if err := start(t, cmd); err != nil {
			t.Fatal(err)
		}
		return exitCode(cmd.Wait()), e.String()
	}
	if code, stderr := run("init", "--image", serverImageTag, "--out", manifest, "--", "no-such-server"); code != 2 || !strings.Contains(stderr, `the server ["no-such-server"] in `+serverImageTag) {
		t.Errorf("init of a command the image lacks exited %d (%s); want 2 (setup), naming it", code, stderr)
	}
	if code, stderr := run("init", "--image", serverImageTag, "--out", manifest, "--tools", "get-structured-content,echo", "--", "mcp-server-everything", "stdio"); code != 0 {
		t.Fatalf("init exited %d: %s", code, stderr)
	}
	b, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	for _, want := range []string{"server:\n  image: " + serverImageTag + "\n  command: [\"mcp-server-everything\",\"stdio\"]\n", "  - name: get-structured-content\n    # Publishes an output schema.", "  - name: echo\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("the starter lacks %q:\n%s", want, text)
		}
	}
	// The preflight holds each call's arguments to the tool's inputSchema: location is an enum.
	filled := regexp.MustCompile(`(location: )"FILL IN[^"]*"`).ReplaceAllString(text, `${1}"Chicago"`)
	filled = regexp.MustCompile(`"FILL IN[^"]*"`).ReplaceAllString(filled, `"hello"`)
	writeFile(t, manifest, filled)
	out := filepath.Join(dir, "out")
	if code, stderr := run("run", manifest, "--backend", "docker", "--clients", "raw", "--faults", "clean", "--tools", "get-structured-content", "--runs", "1", "--out", out); code != 0 {
		t.Fatalf("the filled starter exited %d:\n%s", code, stderr)
	}
	res := readResultsDir(t, out)
	if len(res.Cells) != 2 {
		t.Errorf("got %d cells; want 2 (one tool, one client, one fault, two schema modes)", len(res.Cells))
	}
	for _, c := range res.Cells {
		if c.Counts() != "passed 1/1" {
			t.Errorf("raw %s %s: %s; want passed 1/1", c.Fault, c.Schema, c.Counts())
		}
	}
	noLeftovers(t, api, "init --image and its run")
}

// TestImageServerHTTP sweeps the same real npm server from its image over streamable HTTP (its
// own HTTP server, PORT from the environment, on the loopback the cell shares) with a Go and a
// TypeScript client: every cell runs on http, through the proxy (the transcript holds the HTTP
// exchange), with the counts the same image served over stdio gives.
func TestImageServerHTTP(t *testing.T) {
	api := engine(t)
	buildServerImage(t, api)
	const clients, faults = "[go-sdk/call, ts-sdk/list-then-call]", "[clean, type-swap]"
	stdio := sweepCounts(t, everythingManifest(t, `{image: "`+serverImageTag+`", command: [mcp-server-everything, stdio]}`, clients, faults), "--backend", "docker", "--parallel", "2")
	manifest := everythingManifest(t, `{image: "`+serverImageTag+`", command: [env, "PORT={port}", mcp-server-everything, streamableHttp], http: {path: /mcp}}`, clients, faults)
	out := t.TempDir()
	if code, _, stderr := runStatic(t, manifest, "--backend", "docker", "--parallel", "2", "--out", out); code != 0 {
		t.Fatalf("the http sweep exited %d:\n%s", code, stderr)
	}
	res := readResultsDir(t, out)
	if len(res.Unavailable) > 0 || len(res.Cells) != len(stdio) || len(stdio) != 4 {
		t.Fatalf("cells over http %d (unavailable %v); over stdio %v", len(res.Cells), res.Unavailable, stdio)
	}
	for _, c := range res.Cells {
		if k := c.Client + " " + c.Fault; c.Transport != "http" || c.Counts() != stdio[k] {
			t.Errorf("%s on %s: %s; over stdio %s", k, c.Transport, c.Counts(), stdio[k])
		}
	}
	if stdio["ts-sdk/list-then-call type-swap"] != "threw 1/1" {
		t.Errorf("the TypeScript SDK did not throw on the type-swapped result over stdio: %v", stdio)
	}
	if tee := readTees(t, out); !strings.Contains(tee, `"http":{"method":"POST","path":"/mcp"`) || !strings.Contains(tee, `"event":"session-end"`) {
		t.Errorf("the transcript lacks the HTTP exchange with the server:\n%.3000s", tee)
	}
	noLeftovers(t, api, "the image server sweeps over http")
}

// entrypointImageTag is the server image of testdata/server-image with the server as its
// ENTRYPOINT, as published MCP server images ship (testdata/server-image-entrypoint).
const entrypointImageTag = "toolscore-test/server-everything-entrypoint:2026.8.31"

// TestImageServerEntrypoint sweeps the real npm server from an image whose ENTRYPOINT is the
// server, with raw and with the Go SDK in a client image of its own that has that entrypoint too:
// toolscore reads neither entrypoint, so each count is the same server's run as a command (on
// the local backend), the fault reaching the client. Before, the server got toolscore's command
// line as its arguments and exited, and every run was hung (the client's cell crashed). The same
// image with a command the server refuses is a setup error before any run: exit 2, naming the
// image, its exit status and its output, and no run recorded.
func TestImageServerEntrypoint(t *testing.T) {
	api := engine(t)
	buildServerImage(t, api)
	buildImage(t, api, "testdata/server-image-entrypoint", entrypointImageTag, map[string]string{"BASE_IMAGE": serverImageTag})
	const faults = "[clean, rpc-error]"
	image := sweepCounts(t, everythingManifest(t, `{image: "`+entrypointImageTag+`", command: [mcp-server-everything, stdio]}`,
		`[raw, {name: go-sdk/call, image: "`+entrypointImageTag+`"}]`, faults), "--backend", "docker", "--parallel", "2")

	prefix := t.TempDir()
	npm := exec.Command("npm", "install", "-g", "--prefix", prefix, "--no-audit", "--no-fund", "@modelcontextprotocol/server-everything@2026.8.31")
	if out, err := npm.CombinedOutput(); err != nil {
		t.Fatalf("installing the server here: %v\n%s", err, out)
	}
	command := sweepCounts(t, everythingManifest(t, `{command: [`+filepath.Join(prefix, "bin", "mcp-server-everything")+`, stdio]}`,
		"[raw, go-sdk/call]", faults), "--backend", "local")
	t.Logf("from the entrypoint image: %v; as a command: %v", image, command)
	if len(command) != 4 || command["raw clean"] != "passed 1/1" || command["raw rpc-error"] != "rpc-error 1/1" {
		t.Fatalf("as a command: %v; want 4 cells, raw passed on clean and rpc-error on rpc-error", command)
	}
	for k, w := range command {
		if image[k] != w {
			t.Errorf("%s: %q from the entrypoint image, %q as a command", k, image[k], w)
		}
	}
	if len(image) != len(command) {
		t.Errorf("cells from the entrypoint image %v; as a command %v", image, command)
	}

	out := filepath.Join(t.TempDir(), "out")
	code, _, stderr := runStatic(t, everythingManifest(t, `{image: "`+entrypointImageTag+`", command: [mcp-server-everything, bogus]}`, "[raw, go-sdk/call]", faults),
		"--backend", "docker", "--out", out)
	for _, want := range []string{`the server ["mcp-server-everything" "bogus"] in the image ` + entrypointImageTag + ` (server.image) exited with status 1 before it answered initialize`, "Unknown transport: bogus"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("the sweep of a server that exits at once does not say %q:\n%s", want, stderr)
		}
	}
	if code != 2 {
		t.Errorf("the sweep of a server that exits at once exited %d; want 2 (setup)", code)
	}
	if strings.Contains(stderr, "[1/") || len(runTees(out)) > 0 {
		t.Errorf("a run was made before the server was refused:\n%s", stderr)
	}
	noLeftovers(t, api, "the entrypoint image sweeps")
}
