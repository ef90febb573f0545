package runner

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolscore/toolscore/fault"
	"github.com/toolscore/toolscore/internal/backend"
	"github.com/toolscore/toolscore/internal/backend/docker"
	"github.com/toolscore/toolscore/internal/client"
	"github.com/toolscore/toolscore/scenario"
)

// TestPlanImageServer: a run of an image server has its proxy start the bridge client in the
// server's place, gives the server container the command and the variables (which never pass
// through the cell's proxy), and every client is unavailable on the local backend.
func TestPlanImageServer(t *testing.T) {
	known := scenario.Known{Faults: fault.Names(), Clients: client.Names(), Builtins: []string{"ledger"}}
	sc, err := scenario.Load("image.yaml", []byte(`name: t
server:
  image: team/time-server:1
  command: [mcp-server-time, --local-timezone, UTC]
  env: {TZ_DEFAULT: UTC}
tool: get_current_time
faults: [clean]
schema_modes: [hidden]
clients: [raw, {name: claude-code, model: {name: m1, url: "https://vendor.example/v1", key_env: SOME_KEY}}]
`), known)
	if err != nil {
		t.Fatal(err)
	}
	env, _, _ := sc.ServerEnv(func(string) (string, bool) { return "", false })
	o := Options{Plan: Plan{Scenario: sc}, Backend: &docker.Backend{}, ServerEnv: env}
	var j Job
	for j = range o.Jobs() {
		break
	}
	spec, req := o.Spec(j, filepath.Join(t.TempDir(), "run"))
	dash := slices.Index(req.Server, "--")
	if got := strings.Join(req.Server[dash+1:], " "); got != backend.CellBinary+" connect "+backend.ServerAddr {
		t.Errorf("the proxy starts %q in the server's place", got)
	}
	if slices.Contains(req.Server, "--env") || slices.Contains(spec.Env, "TZ_DEFAULT=UTC") {
		t.Errorf("the server's variables pass through the cell: proxy %q, env %q", req.Server, spec.Env)
	}
	if spec.Server == nil || !slices.Equal(spec.Server.Command, sc.Server.Command) || !slices.Equal(spec.Server.Env, []string{"TZ_DEFAULT=UTC"}) {
		t.Errorf("server spec %+v", spec.Server)
	}
	// Both containers name their own program as the entrypoint: an image's ENTRYPOINT (a
	// published server image's usual shape) would take the whole command as its arguments.
	if cfg, _ := docker.ServerConfig("img", docker.Sandbox{}, spec); !slices.Equal(cfg.Entrypoint, []string{backend.CellBinary}) || cfg.Cmd[0] != "serve-stdio" || !slices.Equal(cfg.Cmd[len(cfg.Cmd)-3:], sc.Server.Command) {
		t.Errorf("the server container runs entrypoint %q, command %q", cfg.Entrypoint, cfg.Cmd)
	}
	if cfg, _ := docker.CellConfig("img", docker.Sandbox{}, spec); !slices.Equal(cfg.Entrypoint, []string{backend.CellBinary}) || !slices.Equal(append(cfg.Entrypoint, cfg.Cmd...), spec.Command) {
		t.Errorf("the cell runs entrypoint %q, command %q; want %q", cfg.Entrypoint, cfg.Cmd, spec.Command)
	}

	local, docker := map[string]string{}, map[string]string{}
	imageServerUnavailable(sc, false, local)
	imageServerUnavailable(sc, true, docker)
	if len(local) != 2 || !strings.Contains(local["raw"], "docker backend") {
		t.Errorf("local: unavailable %v; want both clients, for want of docker", local)
	}
	if len(docker) != 1 || !strings.Contains(docker["claude-code:m1"], "network") {
		t.Errorf("docker: unavailable %v; want the real-model client only", docker)
	}
}

// TestPlanImageServerHTTP: an image server over HTTP runs its own command in the container, its
// {port} the fixed loopback port (no bridge), gets the variables there; the cell waits for that
// port, then its proxy relays to it with --upstream.
func TestPlanImageServerHTTP(t *testing.T) {
	known := scenario.Known{Faults: fault.Names(), Clients: client.Names(), Builtins: []string{"ledger"}}
	sc, err := scenario.Load("image.yaml", []byte(`name: t
server:
  image: team/time-server:1
  command: [mcp-server-time, --port, "{port}"]
  http: {path: /rpc}
  env: {TZ_DEFAULT: UTC}
tool: get_current_time
faults: [clean]
schema_modes: [hidden]
clients: [raw]
`), known)
	if err != nil {
		t.Fatal(err)
	}
	env, _, _ := sc.ServerEnv(func(string) (string, bool) { return "", false })
	o := Options{Plan: Plan{Scenario: sc}, Backend: &docker.Backend{}, ServerEnv: env}
	var j Job
	for j = range o.Jobs() {
		break
	}
	if j.Cell.Transport != scenario.TransportHTTP {
		t.Fatalf("the cell runs on %q; want http", j.Cell.Transport)
	}
	spec, _ := o.Spec(j, filepath.Join(t.TempDir(), "run"))
	if spec.Server == nil || !spec.Server.HTTP || strings.Join(spec.Server.Command, " ") != "mcp-server-time --port 7464" || !slices.Equal(spec.Server.Env, []string{"TZ_DEFAULT=UTC"}) {
		t.Errorf("server spec %+v", spec.Server)
	}
	if cfg, _ := docker.ServerConfig("img", docker.Sandbox{}, spec); !slices.Equal(append(cfg.Entrypoint, cfg.Cmd...), spec.Server.Command) || len(cfg.Entrypoint) != 1 {
		t.Errorf("the server container runs %q %q; want its own command as entrypoint and arguments, no bridge", cfg.Entrypoint, cfg.Cmd)
	}
	serve := strings.Join(spec.Command, " ")
	for _, want := range []string{`"await":"` + backend.ServerAddr + `"`, `"--upstream","http://` + backend.ServerAddr + `/rpc"`} {
		if !strings.Contains(serve, want) {
			t.Errorf("the cell's command lacks %s: %s", want, serve)
		}
	}
	if strings.Contains(serve, "TZ_DEFAULT") || slices.Contains(spec.Env, "TZ_DEFAULT=UTC") {
		t.Errorf("the server's variables pass through the cell: %s %q", serve, spec.Env)
	}
}
