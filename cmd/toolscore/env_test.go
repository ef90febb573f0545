package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolscore/toolscore/internal/runner"
)

// fromEnvSecret is what the manifest passes to the server with from_env: it must arrive, and be
// masked in every output.
const fromEnvSecret = "from-env-secret-5c1f0e7a9b"

// runnerCanaries are what a GitHub Actions runner puts in a step's environment, and one secret
// of the step: no process of a run may see them. The GitHub files are set apart (githubFiles).
var runnerCanaries = map[string]string{
	"GITHUB_TOKEN":                   "ghs_canaryGithubToken0123456789abcdef",
	"INPUT_GITHUB-TOKEN":             "ghs_canaryInputToken0123456789abcdef",
	"ACTIONS_RUNTIME_TOKEN":          "canary-actions-runtime-token-4f2d",
	"ACTIONS_ID_TOKEN_REQUEST_TOKEN": "canary-id-token-request-token-8a1b",
	"DEPLOY_API_SECRET":              "canary-deploy-api-secret-77e3",
	"TOOLSCORE_MODEL_KEY":            "canary-runner-model-key-19c4", // the runner's own, not a run's
}

// envManifest is one hostile env call per client, the server given a plain variable and one
// from_env.
func envManifest(t *testing.T, server []string, clients string) string {
	t.Helper()
	cmd, _ := json.Marshal(server)
	p := filepath.Join(t.TempDir(), "env.yaml")
	writeFile(t, p, `name: what the server sees
server:
  command: `+string(cmd)+`
  env:
    PLAIN: plain-value
    API_KEY: {from_env: SERVER_API_KEY}
tool: env
faults: [clean]
schema_modes: [hidden]
clients: [`+clients+`]
runs: 1
timeout: 30s
`)
	return p
}

// githubFiles makes the GitHub Actions file-command files, empty, and returns them by variable.
func githubFiles(t *testing.T) map[string]string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{}
	for _, k := range []string{"GITHUB_ENV", "GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY", "GITHUB_PATH"} {
		files[k] = filepath.Join(dir, strings.ToLower(k))
		writeFile(t, files[k], "")
	}
	return files
}

// serverEnv is what the hostile env tool answered in each run of runs.jsonl: its environment
// and the GitHub files it wrote to, by client.
type serverEnv struct {
	Env   map[string]string `json:"env"`
	Wrote []string          `json:"wrote"`
}

func serverEnvs(t *testing.T, out string) map[string]serverEnv {
	t.Helper()
	f, err := os.Open(filepath.Join(out, "runs.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got := map[string]serverEnv{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var r struct {
			Client, Outcome, Evidence, Wire string
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		var wire struct {
			Result struct {
				StructuredContent serverEnv `json:"structuredContent"`
			} `json:"result"`
		}
		if r.Outcome != "passed" || json.Unmarshal([]byte(r.Wire), &wire) != nil {
			t.Errorf("%s: %s (%s), wire %.300q", r.Client, r.Outcome, r.Evidence, r.Wire)
			continue
		}
		got[r.Client] = wire.Result.StructuredContent
	}
	return got
}

// checkServerEnv asserts that the server saw the allowlist, the manifest's PLAIN and API_KEY
// (masked in the output, so it came with the secret's value) and nothing else; that it wrote
// to no GitHub file; and that neither the secret nor a canary is in any file of out or on
// toolscore's stdout and stderr.
func checkServerEnv(t *testing.T, got map[string]serverEnv, clients []string, allowed []string, home func(client string) string, files map[string]string, out, stdout, stderr string) {
	t.Helper()
	for _, c := range clients {
		e, ok := got[c]
		if !ok {
			t.Errorf("%s: no run recorded the server's environment", c)
			continue
		}
		for k, v := range e.Env {
			if !slices.Contains(allowed, k) && !strings.HasPrefix(k, "LC_") {
				t.Errorf("%s: the server got %s=%.80q, which is not in the allowlist", c, k, v)
			}
		}
		if e.Env["PLAIN"] != "plain-value" || e.Env["API_KEY"] != "[masked]" {
			t.Errorf("%s: PLAIN=%q API_KEY=%q, want plain-value and the from_env value, masked", c, e.Env["PLAIN"], e.Env["API_KEY"])
		}
		if h := home(c); e.Env["HOME"] != h || e.Env["TMPDIR"] != h {
			t.Errorf("%s: HOME=%q TMPDIR=%q, want the run's directory %s", c, e.Env["HOME"], e.Env["TMPDIR"], h)
		}
		if len(e.Wrote) > 0 {
			t.Errorf("%s: the server wrote to %v", c, e.Wrote)
		}
	}
	for k, p := range files {
		if b, err := os.ReadFile(p); err != nil || len(b) > 0 {
			t.Errorf("%s was written to: %q %v", k, b, err)
		}
	}
	for name, v := range runnerCanaries {
		checkNowhere(t, name, v, out, stdout, stderr)
	}
	checkNowhere(t, "the from_env value", fromEnvSecret, out, stdout, stderr)
}

func checkNowhere(t *testing.T, what, value, out, stdout, stderr string) {
	t.Helper()
	if leaks := keyIn(t, out, value); len(leaks) > 0 {
		t.Errorf("%s is in %v", what, leaks)
	}
	if strings.Contains(stdout, value) || strings.Contains(stderr, value) {
		t.Errorf("%s is on toolscore's stdout or stderr", what)
	}
}

// sweepWithCanaries runs `bin run manifest` with the runner's canaries, the GitHub files and
// the from_env variable in its environment.
func sweepWithCanaries(t *testing.T, bin, manifest string, files map[string]string, args ...string) (out, stdout, stderr string) {
	t.Helper()
	out = t.TempDir()
	cmd := exec.Command(bin, append([]string{"run", manifest, "--out", out}, args...)...)
	cmd.Env = append(os.Environ(), "SERVER_API_KEY="+fromEnvSecret)
	for k, v := range runnerCanaries {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	for k, p := range files {
		cmd.Env = append(cmd.Env, k+"="+p)
	}
	var o, e strings.Builder
	cmd.Stdout, cmd.Stderr = &o, &e
	if err := start(t, cmd); err != nil {
		t.Fatal(err)
	}
	if code := exitCode(cmd.Wait()); code != 0 {
		t.Fatalf("toolscore run exited %d:\n%s", code, e.String())
	}
	return out, o.String(), e.String()
}

// TestServerEnvLocal: on the local backend, through each Go client and the TypeScript and Python
// SDKs run from the install cache, the hostile server sees only PATH, HOME and TMPDIR (the
// run's directory), the locale, the variables the toolscore binary needs to start (the test
// binary is the server here) and the manifest's server.env; not the runner's tokens, secrets or
// GitHub files, which it cannot write to either.
func TestServerEnvLocal(t *testing.T) {
	clients := []string{"raw", "go-sdk/call", "mcp-go/call", "ts-sdk/call", "python-sdk/call"}
	files := githubFiles(t)
	manifest := envManifest(t, []string{os.Args[0], "hostile"}, strings.Join(clients, ", "))
	out, stdout, stderr := sweepWithCanaries(t, os.Args[0], manifest, files, "--backend", "local")
	allowed := append([]string{"PATH", "HOME", "TMPDIR", "LANG", "TZ", "TOOLSCORE_AS_MAIN", "GORACE", "GOCOVERDIR", "PLAIN", "API_KEY"}, serverCacheNames()...)
	home := func(c string) string {
		return filepath.Join(out, "runs", strings.ReplaceAll(c, "/", "_")+"__clean__hidden__stdio", "run-1")
	}
	checkServerEnv(t, serverEnvs(t, out), clients, allowed, home, files, out, stdout, stderr)
}

// TestServerEnvDocker: in a docker cell the server sees the same allowlist (the cell's own
// directory as HOME and TMPDIR) and server.env, and nothing of the runner's environment.
func TestServerEnvDocker(t *testing.T) {
	api := engine(t)
	files := githubFiles(t)
	manifest := envManifest(t, []string{"/opt/toolscore/toolscore", "hostile"}, "raw")
	out, stdout, stderr := sweepWithCanaries(t, staticToolscore(t), manifest, files, "--backend", "docker")
	noLeftovers(t, api, "the env sweep")
	allowed := []string{"PATH", "HOME", "TMPDIR", "LANG", "TZ", "PLAIN", "API_KEY"}
	home := func(string) string { return "/run/toolscore" }
	checkServerEnv(t, serverEnvs(t, out), []string{"raw"}, allowed, home, files, out, stdout, stderr)
}

// TestActionAutoNeedsDocker: with backend auto (the default) and no Docker daemon, the action
// runs nothing and says how to get one, or to set backend: local, instead of running the
// server beside the runner's token; a bad manifest is still reported first, on its line.
func TestActionAutoNeedsDocker(t *testing.T) {
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, "mine.yaml"), actionManifest)
	writeFile(t, filepath.Join(ws, "bad.yaml"), strings.Replace(actionManifest, "  - type-swap\n", "  - type-swop\n", 1))
	noDaemon := "unix://" + filepath.Join(t.TempDir(), "no-docker.sock")
	for _, tc := range []struct {
		name, backend, scenario, want string
	}{
		{"default", "", "mine.yaml", "::error::toolscore: no Docker engine, so nothing ran"},
		{"auto", "auto", "mine.yaml", "::error::toolscore: no Docker engine, so nothing ran"},
		{"bad manifest first", "", "bad.yaml", "::error col=5,file=bad.yaml,line=10,title=toolscore%3A manifest error::faults[2]: unknown fault"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := newActionRun(t, ws, nil, "schedule.json")
			a.env["DOCKER_HOST"] = noDaemon
			a.inputs = map[string]string{"scenario": tc.scenario, "out": "out-" + tc.name, "comment": "false"}
			if tc.backend != "" {
				a.inputs["backend"] = tc.backend
			}
			stdout, summary, outputs, code := a.run()
			if code != 2 {
				t.Errorf("exit %d, want 2", code)
			}
			e := commands(stdout, "error")
			if len(e) == 0 || !strings.HasPrefix(e[0], tc.want) {
				t.Fatalf("errors %q, want the first to start %q", e, tc.want)
			}
			if tc.scenario == "mine.yaml" {
				for _, say := range []string{noDaemon, "/var/run/docker.sock", "DOCKER_HOST", "`backend: local`", "beside the runner's token"} {
					if !strings.Contains(e[0], say) {
						t.Errorf("the error does not say %q: %s", say, e[0])
					}
				}
			}
			if _, err := os.Stat(filepath.Join(ws, "out-"+tc.name)); err == nil || summary != "" || len(outputs) != 0 {
				t.Errorf("something ran: output directory %v, summary %q, outputs %v", err, summary, outputs)
			}
		})
	}
}

// TestActionFromEnv: in the action (backend local, accepted), a server.env value taken
// from_env reaches the server and is masked in the workflow's log before the sweep's log
// starts, and is in no summary, output or file; the runner's own tokens never reach the server,
// which writes to no GitHub file. A from_env variable the step does not set is an error on its
// line.
func TestActionFromEnv(t *testing.T) {
	ws := t.TempDir()
	cmd, _ := json.Marshal([]string{os.Args[0], "hostile"})
	writeFile(t, filepath.Join(ws, "env.yaml"), `name: from env in the action
server:
  command: `+string(cmd)+`
  env:
    API_KEY: {from_env: SERVER_API_KEY}
    PLAIN: plain-value
tool: env
faults: [clean]
schema_modes: [hidden]
clients: [raw]
runs: 1
`)
	files := githubFiles(t)
	run := func(setKey bool) (*actionRun, string, string, map[string]string, int) {
		a := newActionRun(t, ws, nil, "schedule.json")
		for k, v := range runnerCanaries {
			a.env[k] = v
		}
		for _, k := range []string{"GITHUB_ENV", "GITHUB_PATH"} { // the harness makes the other two
			a.env[k] = files[k]
		}
		if setKey {
			a.env["SERVER_API_KEY"] = fromEnvSecret
		}
		a.inputs = map[string]string{"scenario": "env.yaml", "backend": "local", "out": "out", "comment": "false"}
		stdout, summary, outputs, code := a.run()
		return a, stdout, summary, outputs, code
	}

	_, stdout, summary, outputs, code := run(true)
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, stdout)
	}
	first := strings.Index(stdout, "::add-mask::"+fromEnvSecret)
	if first < 0 || first > strings.Index(stdout, "::group::") {
		t.Errorf("the from_env value is not masked before the sweep's log starts:\n%.2000s", stdout)
	}
	if strings.Count(stdout, fromEnvSecret) != 1 || strings.Contains(summary, fromEnvSecret) || strings.Contains(summary, "NODE_OPTIONS") {
		t.Errorf("the from_env value or the server's write appears beyond the mask command")
	}
	for k, v := range outputs {
		if strings.Contains(v, fromEnvSecret) || strings.Contains(v, "NODE_OPTIONS") {
			t.Errorf("output %s = %q", k, v)
		}
	}
	out := filepath.Join(ws, "out")
	got := serverEnvs(t, out)
	allowed := append([]string{"PATH", "HOME", "TMPDIR", "LANG", "TZ", "TOOLSCORE_AS_MAIN", "GORACE", "GOCOVERDIR", "PLAIN", "API_KEY"}, serverCacheNames()...)
	home := func(string) string { return filepath.Join(out, "runs", "raw__clean__hidden__stdio", "run-1") }
	checkServerEnv(t, got, []string{"raw"}, allowed, home, map[string]string{"GITHUB_ENV": files["GITHUB_ENV"], "GITHUB_PATH": files["GITHUB_PATH"]}, out, "", "")

	_, stdout, _, _, code = run(false)
	want := "::error col=25,file=env.yaml,line=5,title=toolscore%3A manifest error::server.env.API_KEY.from_env: SERVER_API_KEY is not set"
	if e := commands(stdout, "error"); code != 2 || len(e) == 0 || !strings.HasPrefix(e[0], want) {
		t.Errorf("without SERVER_API_KEY: exit %d, errors %q, want 2 and %q", code, e, want)
	}
}

// serverCacheNames are the variables that point a command server's package managers at the
// cache its runs share on the local backend (runner.ServerCacheEnv): the run's own, not the
// runner's.
func serverCacheNames() []string {
	var names []string
	for _, kv := range runner.ServerCacheEnv("") {
		name, _, _ := strings.Cut(kv, "=")
		names = append(names, name)
	}
	return names
}
