package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// writeManifest writes files (name to content; a name ending .sh is executable) into a new
// folder and returns it.
func writeManifest(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, data := range files {
		mode := os.FileMode(0o644)
		if strings.HasSuffix(name, ".sh") {
			mode = 0o755
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), mode); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const ownHead = "name: own\nserver: {builtin: ledger}\ntool: get_account_balance\narguments: {account_id: ACC-4471}\nfaults: [clean]\nschema_modes: [hidden]\n"

// processAlive says whether pid runs (a zombie does not).
func processAlive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(f) > 0 && f[0] != "Z" && f[0] != "X"
}

// TestDefinedClientDaemonEnded: an adapter that double-forks a daemon in a session of its own
// (setsid, so it leaves the run's process group) leaves nothing running once the sweep is over:
// the runner, a subreaper, is given the daemon and ends it with the run.
func TestDefinedClientDaemonEnded(t *testing.T) {
	t.Setenv("TOOLSCORE_CACHE", t.TempDir())
	pids := t.TempDir()
	dir := writeManifest(t, map[string]string{
		"m.yaml": ownHead + "clients:\n  - name: acme\n    runtime: binary\n    command: [./adapter.sh, " + pids + "]\nruns: 2\n",
		"adapter.sh": "#!/bin/sh\n" +
			"( setsid sh -c 'echo $$ > \"$1/daemon-$$\"; exec sleep 1000' sh \"$1\" </dev/null >/dev/null 2>&1 & )\n" +
			"while [ -z \"$(ls \"$1\")\" ]; do sleep 0.05; done\n" +
			`echo '{"client": "acme", "library": "acme 1", "listed": false, "raised": {"class": "E", "message": "m"}}'` + "\n",
	})
	_, stderr, code := toolscore(t, dir, "run", "m.yaml", "--backend", "local", "--out", filepath.Join(dir, "out"))
	if code != 0 {
		t.Fatalf("the sweep exited %d:\n%s", code, stderr)
	}
	files, _ := filepath.Glob(filepath.Join(pids, "daemon-*"))
	if len(files) == 0 {
		t.Fatal("the adapter started no daemon")
	}
	for _, f := range files {
		pid, err := strconv.Atoi(strings.TrimPrefix(filepath.Base(f), "daemon-"))
		if err != nil {
			t.Fatal(err)
		}
		if processAlive(pid) {
			t.Errorf("the adapter's daemon (pid %d) outlived the sweep", pid)
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// TestDefinedClientPipInstalled: a runtime: python client runs from its install's virtual
// environment: a console script pip installed (from a local package, no network) is found by
// its bare name, and python3 is the venv's, which imports what pip installed (the machine's
// python3, here a pyenv shim, would not).
func TestDefinedClientPipInstalled(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not on PATH")
	}
	t.Setenv("TOOLSCORE_CACHE", t.TempDir())
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("testdata", "pipclient"))); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	_, stderr, code := toolscore(t, dir, "run", "pip.yaml", "--backend", "local", "--out", out)
	if code != 0 {
		t.Fatalf("the sweep exited %d:\n%s", code, stderr)
	}
	res := readResultsDir(t, out)
	if len(res.Cells) != 2 || len(res.Unavailable) > 0 {
		t.Fatalf("%d cells, unavailable %v; want 2 and none", len(res.Cells), res.Unavailable)
	}
	for _, c := range res.Cells {
		// The probe raises without starting the server: crashed, its claim (where it ran) kept.
		if c.Outcome["crashed"] != 1 || c.Library != "acme venv" || !strings.Contains(c.Examples["crashed"].Evidence, "it reported Probe: ran on "+filepath.Join(os.Getenv("TOOLSCORE_CACHE"), "clients")) {
			t.Errorf("%s: %s, library %q; want crashed 1/1 from acme on the venv (evidence: %v)", c.Client, c.Counts(), c.Library, c.Examples)
		}
	}
}

// TestLocalRunnerEnvironUnreadable: an adapter on the local backend, run by the same
// unprivileged user as the runner, cannot read the runner's environment (a secret in it) from
// /proc/PID/environ of any process up its chain, while it reads its own. As root, the runner
// runs as nobody (65534), so the check is the one an unprivileged user gets.
func TestLocalRunnerEnvironUnreadable(t *testing.T) {
	bin, err := buildStatic()
	if err != nil {
		t.Skipf("no static build: %v", err)
	}
	// A folder every user reaches, for the binary, the manifest and what the sweep writes.
	work, err := os.MkdirTemp("", "toolscore-environ-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(work) })
	if err := os.Chmod(work, 0o777); err != nil {
		t.Fatal(err)
	}
	self, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	runner := filepath.Join(work, "toolscore")
	if err := os.WriteFile(runner, self, 0o755); err != nil {
		t.Fatal(err)
	}
	found := filepath.Join(work, "found.txt")
	manifest := ownHead + "clients:\n  - name: spy\n    runtime: binary\n    command: [./spy.sh, " + found + "]\nruns: 1\n"
	spy := `#!/bin/sh
p=$PPID
while [ "$p" -gt 1 ]; do
  if env=$(tr '\0' '\n' < /proc/$p/environ 2>/dev/null); then
    case "$env" in *TOOLSCORE_TEST_SECRET=*) echo "leaked by $p" >> "$1";; *) echo "read $p" >> "$1";; esac
  else
    echo "denied $p" >> "$1"
  fi
  p=$(sed 's/.*) //' /proc/$p/stat | cut -d' ' -f2)
done
tr '\0' '\n' < /proc/self/environ > "$1.self"; grep -q '^TOOLSCORE_TOOL=' "$1.self" && echo "own environ read" >> "$1"
echo '{"client": "spy", "library": "spy 1", "listed": false, "raised": {"class": "E", "message": "m"}}'
`
	for name, data := range map[string]string{"m.yaml": manifest, "spy.sh": spy} {
		if err := os.WriteFile(filepath.Join(work, name), []byte(data), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(runner, "run", "m.yaml", "--backend", "local", "--out", filepath.Join(work, "out"))
	cmd.Dir = work
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + work, "TOOLSCORE_CACHE=" + filepath.Join(work, "cache"),
		"TOOLSCORE_TEST_SECRET=hunter2", "DOCKER_HOST=unix://" + filepath.Join(work, "no-docker.sock")}
	if os.Getuid() == 0 {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	}
	done := make(chan struct{})
	timer := time.AfterFunc(2*time.Minute, func() { _ = cmd.Process.Kill() })
	out, err := cmd.CombinedOutput()
	timer.Stop()
	close(done)
	if err != nil {
		t.Fatalf("the sweep failed: %v\n%s", err, out)
	}
	b, err := os.ReadFile(found)
	if err != nil {
		t.Fatalf("the adapter wrote nothing: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if strings.Contains(string(b), "leaked") || !strings.HasPrefix(lines[0], "denied ") || lines[len(lines)-1] != "own environ read" {
		t.Errorf("what the adapter read up its chain (the first line is the runner):\n%s\nwant the runner denied, no leak, and its own environ read", b)
	}
}

// TestDefinedClientNotReinstalledForTheManifest: a second sweep after the manifest was edited
// finds the client installed; one after its adapter was edited installs it afresh.
func TestDefinedClientNotReinstalledForTheManifest(t *testing.T) {
	t.Setenv("TOOLSCORE_CACHE", t.TempDir())
	adapter := "#!/bin/sh\n" + `echo '{"client": "acme", "library": "acme 1", "listed": false, "raised": {"class": "E", "message": "m"}}'` + "\n"
	dir := writeManifest(t, map[string]string{
		"m.yaml":     ownHead + "clients:\n  - name: acme\n    runtime: binary\n    command: [./adapter.sh]\n    install: [echo installing]\nruns: 1\n",
		"adapter.sh": adapter,
	})
	sweep := func(want string) {
		t.Helper()
		_, stderr, code := toolscore(t, dir, "run", "m.yaml", "--backend", "local", "--out", t.TempDir())
		if code != 0 || !strings.Contains(stderr, want) {
			t.Errorf("exit %d, log:\n%s\nwant 0 and %q", code, stderr, want)
		}
	}
	sweep("installing acme into ")
	b, _ := os.ReadFile(filepath.Join(dir, "m.yaml"))
	if err := os.WriteFile(filepath.Join(dir, "m.yaml"), []byte(strings.Replace(string(b), "runs: 1", "runs: 2", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	sweep("installed already, nothing to install: acme")
	if err := os.WriteFile(filepath.Join(dir, "adapter.sh"), []byte(adapter+"# edited\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	sweep("installing acme into ")
}
