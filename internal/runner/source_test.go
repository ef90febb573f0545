package runner

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolscore/toolscore/fault"
	"github.com/toolscore/toolscore/internal/backend"
	"github.com/toolscore/toolscore/internal/backend/docker"
	"github.com/toolscore/toolscore/internal/backend/incell"
	"github.com/toolscore/toolscore/internal/client"
	"github.com/toolscore/toolscore/internal/proxy"
	"github.com/toolscore/toolscore/scenario"
	"github.com/toolscore/toolscore/scenarios"
)

// TestSources: each server source, on each transport it serves, is what the sweep reports as
// its Source, and yields a proxy command line that toolscore proxy's own parser reads back as
// that source's server: the built-in or the command started, the image's bridge or endpoint,
// the url relayed to, and for a replay the clean proxy in front of toolscore replay of the
// run's recording, whatever the manifest's server was (no container, variables or network).
func TestSources(t *testing.T) {
	t.Setenv("PLAN_TEST_TOKEN", "tok-123")
	t.Setenv("PLAN_TEST_AUTH", "Bearer auth-789")
	self := "/opt/toolscore/toolscore"
	known := scenario.Known{Faults: fault.Names(), Clients: client.Names(), Builtins: []string{"ledger"}}
	load := func(path string, text []byte) *scenario.Scenario {
		if text == nil {
			var err error
			if text, err = os.ReadFile(path); err != nil {
				t.Fatal(err)
			}
		}
		sc, err := scenario.Load(path, text, known)
		if err != nil {
			t.Fatal(err)
		}
		return sc
	}
	imageOn := func(http string) *scenario.Scenario {
		return load("image.yaml", []byte(`name: t
server:
  image: team/time-server:1
  command: [mcp-server-time, --port, "{port}"]
`+http+`
tool: get_current_time
faults: [clean]
schema_modes: [hidden]
clients: [raw]
`))
	}
	image := func(t *testing.T, http bool, pf proxy.Flags, s backend.Spec) {
		if s.Server == nil || s.Server.HTTP != http {
			t.Errorf("server container %+v", s.Server)
		}
		if http && (pf.Upstream != ImageServerHTTPUpstream("/mcp") || pf.Command != nil) || !http && !slices.Equal(pf.Command, []string{self, "connect", backend.ServerAddr}) {
			t.Errorf("the proxy relays to %q, starts %q", pf.Upstream, pf.Command)
		}
	}
	for _, c := range []struct {
		name   string
		sc     *scenario.Scenario
		replay bool
		want   Source
		// check looks at the proxy's flags as toolscore proxy reads them, and the spec.
		check func(t *testing.T, http bool, pf proxy.Flags, s backend.Spec)
	}{
		{"builtin", load(scenarios.LedgerPath, scenarios.Ledger), false, SourceBuiltin, func(t *testing.T, http bool, pf proxy.Flags, s backend.Spec) {
			if !slices.Equal(pf.Command[:2], []string{self, "ledger"}) || http != slices.Contains(pf.Command, "--http") {
				t.Errorf("the proxy starts %q", pf.Command)
			}
		}},
		{"command serving http", load("testdata/plan-http.yaml", nil), false, SourceHTTP, func(t *testing.T, http bool, pf proxy.Flags, s backend.Spec) {
			if pf.Command[1] != "my-server" || pf.Path != "/v1/mcp" || !slices.Equal(pf.Env, []string{"TOKEN"}) || !slices.Contains(s.Env, "TOKEN=tok-123") {
				t.Errorf("the proxy starts %q at %s with %q; env %q", pf.Command, pf.Path, pf.Env, s.Env)
			}
		}},
		{"image on stdio", imageOn(""), false, SourceImage, image},
		{"image on http", imageOn("  http: {}"), false, SourceImage, image},
		{"url", load("testdata/plan-url.yaml", nil), false, SourceURL, func(t *testing.T, http bool, pf proxy.Flags, s backend.Spec) {
			if pf.Upstream != "https://mcp.example.test/mcp" || !slices.Equal(pf.Header, []string{"Authorization=" + AuthEnv}) || s.Network != "host" {
				t.Errorf("the proxy relays to %q with %q; network %q", pf.Upstream, pf.Header, s.Network)
			}
		}},
		{"recording of a url server", load("testdata/plan-url.yaml", nil), true, SourceRecording, func(t *testing.T, http bool, pf proxy.Flags, s backend.Spec) {
			replayed := pf.Command[len(pf.Command)-1]
			if pf.Fault != "clean" || pf.Schema != "as-is" || pf.Protocol != "as-is" || pf.Upstream != "" || pf.Header != nil ||
				!slices.Equal(pf.Command[:2], []string{self, "replay"}) || filepath.Base(replayed) != recordingFile || s.Server != nil || s.Network != "" {
				t.Errorf("the replay's proxy %+v; server %+v, network %q", pf, s.Server, s.Network)
			}
		}},
	} {
		o := Options{Plan: Plan{Scenario: c.sc}, Backend: &docker.Backend{}, Auth: "Bearer auth-789"}
		if env, _, err := c.sc.ServerEnv(os.LookupEnv); err == nil {
			o.ServerEnv = env
		}
		if c.replay {
			o.Replay = &Recordings{}
		}
		if got := o.Source(); got != c.want {
			t.Errorf("%s: Source() = %s, want %s", c.name, got, c.want)
		}
		seen := map[scenario.Transport]bool{}
		for j := range o.Jobs() {
			tr := j.Cell.Transport
			if seen[tr] {
				continue
			}
			seen[tr] = true
			s, req := o.Spec(j, t.TempDir())
			command := req.Server
			if tr == scenario.TransportHTTP {
				i := slices.Index(s.Command, "--serve")
				var serve incell.Serve
				if i < 0 || json.Unmarshal([]byte(s.Command[i+1]), &serve) != nil {
					t.Fatalf("%s: the http cell's command %q serves no proxy", c.name, s.Command)
				}
				command = serve.Command
			}
			if !slices.Equal(command[:2], []string{self, "proxy"}) {
				t.Fatalf("%s on %s: the server is %q, not the proxy", c.name, tr, command)
			}
			for _, kv := range s.Env { // the proxy's environment is the cell's
				k, v, _ := strings.Cut(kv, "=")
				t.Setenv(k, v)
			}
			pf, err := proxy.ParseArgs(command[2:])
			if err != nil {
				t.Fatalf("%s on %s: toolscore proxy would not take %q: %v", c.name, tr, command, err)
			}
			if http := tr == scenario.TransportHTTP; http != (pf.Listen != "") {
				t.Errorf("%s on %s: the proxy listens on %q", c.name, tr, pf.Listen)
			}
			c.check(t, tr == scenario.TransportHTTP, pf, s)
		}
		if len(seen) == 0 {
			t.Errorf("%s: no job", c.name)
		}
	}
}

// TestEveryServerKindHasASource: each kind of server a manifest may give is served by a source
// registered under its name, so a new kind without its source file fails here, not in a sweep.
func TestEveryServerKindHasASource(t *testing.T) {
	kinds := []scenario.ServerKind{scenario.ServerBuiltin, scenario.ServerCommand, scenario.ServerHTTP, scenario.ServerImage, scenario.ServerURL}
	for _, k := range kinds {
		if sources[Source(k)] == nil {
			t.Errorf("no server source is registered for the kind %s", k)
		}
	}
	if sources[SourceRecording] == nil {
		t.Error("no server source is registered for recordings")
	}
	if len(sources) != len(kinds)+1 {
		t.Errorf("%d server sources registered, want %d: one per kind and the recording", len(sources), len(kinds)+1)
	}
}
