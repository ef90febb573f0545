package main

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"

	"github.com/toolscore/toolscore/internal/backend"
	"github.com/toolscore/toolscore/internal/backend/docker"
	"github.com/toolscore/toolscore/internal/backend/local"
	"github.com/toolscore/toolscore/internal/transcript"
)

// serverModeManifest sweeps the hostile server in one of its server-level modes (HOSTILE_MODE)
// through clients, once each, calling its markup tool clean.
func serverModeManifest(t *testing.T, mode, clients string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), mode+".yaml")
	writeFile(t, path, "name: hostile server "+mode+"\nserver: {builtin: hostile, env: {HOSTILE_MODE: "+mode+"}}\ntool: markup"+
		"\nfaults: [clean]\nschema_modes: [as-is]\nclients: ["+clients+"]\nruns: 1\ntimeout: 20s\n")
	return path
}

// serverModeCase is what one client must be graded with under a server mode.
type serverModeCase struct {
	outcome  string
	evidence string // a substring of the evidence; "" wants none
}

// serverModes are, per server mode, what each client of a local sweep must be graded with, the
// transcript event every run must hold ("" for none), and the sweep's exit code.
var serverModes = []struct {
	mode  string
	want  map[string]serverModeCase
	event string
	code  int
}{
	// A banner before the first message: raw and mcp-go skip a line that is not their answer
	// (raw: internal/client/raw.go, Request's loop; mcp-go v1.2.1 client/transport/stdio.go:553-554
	// `continue`s past a line that does not decode); the go-sdk v1.8.0 fails the connection on
	// it (mcp/transport.go:697 returns readBatch's decode error, internal/jsonrpc2/conn.go:517-519
	// ends the read loop on any read error, mcp/transport.go:299-300 makes it "connection
	// closed"), which is a connect-time error: threw, never crashed.
	{"banner", map[string]serverModeCase{
		"raw":         {"passed", ""},
		"go-sdk/call": {"threw", `go-sdk could not connect: connection closed: calling "initialize": client is closing: invalid character 'h' looking for beginning of value`},
		"mcp-go/call": {"passed", ""},
	}, "", 0},
	// The same line after the answer to initialize: the go-sdk fails whichever request is in
	// flight when its reader meets it, notifications/initialized in Connect or the call after
	// (the two are a race inside the library), so only the message is asserted.
	{"noise-after-initialize", map[string]serverModeCase{
		"raw":         {"passed", ""},
		"go-sdk/call": {"threw", "invalid character 'h' looking for beginning of value"},
		"mcp-go/call": {"passed", ""},
	}, "", 0},
	// A server that exits before the handshake is the server's failure, the same for every
	// client: the preflight refuses the sweep once, before any run (issue 39, item 7d); a
	// server that exits in runs alone is graded server-exited (internal/grade's tests).
	{"exit-at-once", nil, "", 2},
	// A helper holding the server's stdout after the server answered and exited: every client
	// has its answer, and the run ends once the client closes its end (it was hung, waiting for
	// an EOF that never came).
	{"helper", map[string]serverModeCase{
		"raw": {"passed", ""}, "go-sdk/call": {"passed", ""}, "mcp-go/call": {"passed", ""},
	}, "server-stdout-held", 0},
	{"setsid-helper", map[string]serverModeCase{
		"raw": {"passed", ""}, "go-sdk/call": {"passed", ""}, "mcp-go/call": {"passed", ""},
	}, "server-stdout-held", 0},
	// A server that closes stdout and keeps running: each client gets the EOF it would get
	// without the proxy, during the handshake. mcp-go v1.2.1's reader ends on it
	// (client/transport/stdio.go:536-542) and the pending request fails with ErrTransportClosed
	// (stdio.go:666); the go-sdk's read loop ends (internal/jsonrpc2/conn.go:517-519).
	{"close-stdout", map[string]serverModeCase{
		"raw":         {"threw", "connection-closed: the server closed before answering initialize: EOF"},
		"go-sdk/call": {"threw", `go-sdk could not connect: connection closed: calling "initialize": client is closing: EOF`},
		"mcp-go/call": {"threw", "mcp-go could not initialize: transport error: transport closed"},
	}, "server-stdout-closed", 0},
}

// TestServerModes sweeps each server-level misbehaviour of the hostile server on the local
// backend through raw, go-sdk/call and mcp-go/call (issue 24, items 1 to 3): each client's
// outcome and evidence, the transcript's event for what the server did, and every helper the
// server started gone after the run, the one in a session of its own included.
func TestServerModes(t *testing.T) {
	for _, m := range serverModes {
		t.Run(m.mode, func(t *testing.T) {
			out := t.TempDir()
			_, stderr, code := toolscore(t, "", "run", serverModeManifest(t, m.mode, "raw, go-sdk/call, mcp-go/call"), "--backend", "local", "--out", out)
			if code != m.code {
				t.Fatalf("exit %d, want %d:\n%s", code, m.code, stderr)
			}
			if m.code == 2 {
				refusedBeforeRuns(t, stderr, out)
				return
			}
			recs := runRecords(t, out)
			for client, want := range m.want {
				r, ok := recs[client]
				switch {
				case !ok:
					t.Errorf("%s: no run", client)
				case string(r.Outcome) != want.outcome || want.evidence == "" && r.Evidence != "" || !strings.Contains(r.Evidence, want.evidence):
					t.Errorf("%s: %s (%s), want %s with %q", client, r.Outcome, r.Evidence, want.outcome, want.evidence)
				}
				checkServerModeRun(t, client, m.mode, m.event, filepath.Join(out, r.Tee))
			}
		})
	}
}

// refusedBeforeRuns checks that the sweep of the exit-at-once server was refused by the
// preflight, quoting the server, and ran nothing.
func refusedBeforeRuns(t *testing.T, stderr, out string) {
	t.Helper()
	for _, want := range []string{
		"toolscore run: the server exited with status 0 before answering initialize when toolscore started it once before the sweep",
		"it said: hostile: exit-at-once: exiting before the handshake",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("the sweep does not say why it failed (%q):\n%s", want, stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "runs.jsonl")); err == nil {
		t.Errorf("the refused sweep ran cells")
	}
}

// helperPID reads the pid of the helper the hostile server says it started on stderr.
var helperPID = regexp.MustCompile(`hostile: started helper pid (\d+)`)

// checkServerModeRun checks one run's transcript: it holds event (when not ""), the stuck
// request named for close-stdout, and no helper the server started is still running.
func checkServerModeRun(t *testing.T, client, mode, event, tee string) {
	t.Helper()
	entries, err := transcript.Read(tee)
	if err != nil {
		t.Errorf("%s: %v", client, err)
		return
	}
	found := event == ""
	for _, e := range entries {
		if e.Dir == transcript.Event && e.Event == event {
			found = true
			if mode == "close-stdout" && !strings.Contains(e.Note, "the server closed its stdout but is still running; the proxy closed the client's end in turn, with ") {
				t.Errorf("%s: the event does not name the request left waiting: %q", client, e.Note)
			}
		}
		if e.Dir != transcript.ServerStderr {
			continue
		}
		if m := helperPID.FindSubmatch(e.Wire); m != nil {
			pid, _ := strconv.Atoi(string(m[1]))
			if running(pid) {
				t.Errorf("%s: the server's helper (pid %d) is still running after the run", client, pid)
			}
		}
	}
	if !found {
		t.Errorf("%s: the transcript has no %s event", client, event)
	}
}

// running says whether pid is a live process: neither gone nor a zombie waiting to be reaped
// (where the machine's init does not reap, as in some containers).
func running(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(f) > 0 && f[0] != "Z" && f[0] != "X"
}

// TestProxyOutlivesNoHelper: standalone toolscore proxy around a server whose helper holds its
// stdout exits once its client closes its end, and takes the helper (in a session of its own)
// with it; it used to wait for an EOF that never came.
func TestProxyOutlivesNoHelper(t *testing.T) {
	tee := filepath.Join(t.TempDir(), "tee.jsonl")
	cmd := exec.Command(os.Args[0], "proxy", "--tee", tee, "--env", "HOSTILE_MODE", "--", os.Args[0], "hostile")
	cmd.Env = append(os.Environ(), "HOSTILE_MODE=setsid-helper")
	in, _ := cmd.StdinPipe()
	outPipe, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		io.WriteString(in, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`+"\n"+
			`{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"+
			`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"rpc-error"}}`+"\n")
		sc := bufio.NewScanner(outPipe)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), `{"jsonrpc":"2.0","id":2,`) {
				break
			}
		}
		in.Close() // the answer came: the client is done
		done <- cmd.Wait()
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("toolscore proxy: %v", err)
		}
	case <-time.After(20 * time.Second): // a bound on a hang, not a measure of speed
		cmd.Process.Kill()
		t.Fatal("toolscore proxy did not exit after its client closed its end")
	}
	checkServerModeRun(t, "the proxy", "setsid-helper", "server-stdout-held", tee)
}

// TestServerModesOnDocker samples the server modes on the docker backend through the
// TypeScript and Python SDKs and raw, one run each: what each library does with the server's
// misbehaviour, a server that exits at once blamed alike for all three, a helper in a session of
// its own ended by the proxy, and no container of the sweeps left (which takes every process of
// a run with it).
//
// The libraries' code behind it (@modelcontextprotocol/sdk 1.32.2, mcp 2.3.0, in their cell
// images): a line that is not JSON-RPC is reported and skipped by the TypeScript SDK
// (dist/esm/client/stdio.js:129-141, processReadBuffer catches the parse error into onerror and
// reads on) and by the Python SDK (mcp/client/stdio.py:219-226, _parse_line hands the session
// the parse error as a value, logged). On a stdout that ends while the server runs, the Python
// SDK fails the pending request (mcp/shared/jsonrpc_dispatcher.py:80 and :413, "Connection
// closed"); the TypeScript SDK waits for the process's 'close' event (stdio.js:83-86), which
// needs the process gone as well as its pipes, so it waits, as it would without the proxy: hung,
// with the evidence naming the handshake it was stuck on. (The Python SDK under setsid-helper
// lists the tools after the call, to a server that has exited while its helper holds the pipe,
// and waits out the timeout: not sampled, for time.) Claude Code, the agent sampled, bundles
// the TypeScript SDK's stdio transport: it skips the banner as ts-sdk/call does and shows its
// scripted model the tool's answer; under close-stdout it waits as ts-sdk/call does (not
// sampled: the timeout).
func TestServerModesOnDocker(t *testing.T) {
	api := engine(t)
	for _, c := range []struct {
		mode, clients string
		code          int
		want          map[string]serverModeCase
	}{
		{"banner", "raw, ts-sdk/call, python-sdk/call, claude-code", 0, map[string]serverModeCase{
			"raw": {"passed", ""}, "ts-sdk/call": {"passed", ""}, "python-sdk/call": {"passed", ""}, "claude-code": {"passed", ""},
		}},
		// Refused by the preflight, in the first client's cell, before any run.
		{"exit-at-once", "raw, ts-sdk/call, python-sdk/call, claude-code", 2, nil},
		{"setsid-helper", "raw, ts-sdk/call", 0, map[string]serverModeCase{
			"raw": {"passed", ""}, "ts-sdk/call": {"passed", ""},
		}},
		{"close-stdout", "raw, ts-sdk/call, python-sdk/call", 0, map[string]serverModeCase{
			"raw":             {"threw", "connection-closed: the server closed before answering initialize: EOF"},
			"ts-sdk/call":     {"hung", "; the server never answered initialize (id 0)"},
			"python-sdk/call": {"threw", "MCPError: Connection closed"},
		}},
	} {
		t.Run(c.mode, func(t *testing.T) {
			out := t.TempDir()
			code, _, stderr := runStatic(t, serverModeManifest(t, c.mode, c.clients), "--backend", "docker", "--parallel", "3", "--out", out)
			if code != c.code {
				t.Fatalf("exit %d, want %d:\n%s", code, c.code, stderr)
			}
			if c.code == 2 {
				refusedBeforeRuns(t, stderr, out)
				return
			}
			recs := runRecords(t, out)
			for client, want := range c.want {
				r, ok := recs[client]
				switch {
				case !ok:
					t.Errorf("%s: no run", client)
				case string(r.Outcome) != want.outcome || want.evidence == "" && r.Evidence != "" || !strings.Contains(r.Evidence, want.evidence):
					t.Errorf("%s: %s (%s), want %s with %q", client, r.Outcome, r.Evidence, want.outcome, want.evidence)
				}
			}
			// Past the banner, the agent's model was shown the tool's answer.
			if c.mode == "banner" && recs["claude-code"].ModelView != "structured" {
				t.Errorf("claude-code: its model saw %q, want the structured answer", recs["claude-code"].ModelView)
			}
			// The TypeScript adapter passes the proxy's stderr on: it says it ended the helper.
			if c.mode == "setsid-helper" && !strings.Contains(recs["ts-sdk/call"].Stderr, "toolscore proxy: killed 1 process(es) the server left running") {
				t.Errorf("ts-sdk/call: the proxy does not say it ended the helper; stderr:\n%s", recs["ts-sdk/call"].Stderr)
			}
			cs, err := api.ContainerList(context.Background(), container.ListOptions{All: true, Filters: filters.NewArgs(filters.Arg("label", docker.LabelMarker+"=1"))})
			if err != nil {
				t.Fatal(err)
			}
			for _, ctr := range cs {
				if o, err := backend.ParseOwner(ctr.Labels[docker.LabelOwner]); err == nil {
					if by, _ := startedPids.Load(o.PID); by == topTest(t) {
						t.Errorf("a container of the sweep is left: %s %s %s", ctr.ID[:12], ctr.Labels[docker.LabelCell], ctr.State)
					}
				}
			}
		})
	}
}

// TestLocalRunEndsWhatAClientLeft: an adapter that exits without waiting for its server (the
// TypeScript SDK's close does not wait) leaves the proxy still stopping in the run's process
// group; the local backend gives it SIGTERM and a moment before SIGKILL, so the proxy ends the
// helper its server started in a session of its own, out of the group's reach.
func TestLocalRunEndsWhatAClientLeft(t *testing.T) {
	dir := t.TempDir()
	tee := filepath.Join(dir, "tee.jsonl")
	res := local.Backend{}.Run(context.Background(), backend.Spec{Dir: dir, Timeout: time.Minute,
		Command: []string{"sh", "-c", `(sleep 60 | "$0" proxy --tee "$1" --env HOSTILE_MODE -- "$0" hostile >/dev/null) & sleep 1`, os.Args[0], tee},
		Env:     []string{"HOSTILE_MODE=setsid-helper", "TOOLSCORE_AS_MAIN=1"}})
	if res.Err != nil || res.ExitCode != 0 {
		t.Fatalf("the run: exit %d, %v", res.ExitCode, res.Err)
	}
	entries, err := transcript.Read(tee)
	if err != nil {
		t.Fatal(err)
	}
	started := false
	for _, e := range entries {
		started = started || helperPID.Match(e.Wire)
	}
	if !started {
		t.Fatal("the server started no helper")
	}
	checkServerModeRun(t, "the adapter", "setsid-helper", "proxy-stopped", tee)
}
