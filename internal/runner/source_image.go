package runner

import (
	"context"
	"fmt"
	"net"
	"os"
	"slices"
	"strings"

	"github.com/toolscore/toolscore/internal/backend"
	"github.com/toolscore/toolscore/scenario"
)

// SourceImage is a container beside the cell (server.image), reached over the loopback they
// share.
const SourceImage = Source(scenario.ServerImage)

func init() { registerSource(SourceImage, imageSource{}) }

// imageSource is a command server in a container of its own from the manifest's image, beside
// each cell. Its variables go to its container, never through the cell.
type imageSource struct{}

func (imageSource) serve(o Options, j Job, self, work string, s *served) {
	if j.Cell.Transport == scenario.TransportHTTP {
		// The server serves HTTP itself, in its container, on the loopback the cell shares.
		s.proxy.Upstream = ImageServerHTTPUpstream(o.Scenario.Server.HTTPPath())
		s.server, s.await = imageHTTPServer(o.Scenario, o.ServerEnv), backend.ServerAddr
		return
	}
	s.proxy.Command, s.server = imageServer(self, o.Scenario, o.ServerEnv)
}

// check starts the image server once, as its runs will, before any run (when some client will
// run beside it): one that exits before it listens is a setup error naming the image, its exit
// status and its last output (its server.env values masked), never a hang of every run.
func (imageSource) check(ctx context.Context, c ServerCheck) (bool, error) {
	sc := c.Scenario
	if c.Checked["server image"] {
		return false, nil
	}
	c.Checked["server image"] = true
	if !slices.ContainsFunc(sc.Clients, func(cl scenario.Client) bool { _, out := c.Unavailable[cl.ID()]; return !out }) {
		return false, nil
	}
	env, secrets, err := sc.ServerEnv(os.LookupEnv)
	if err != nil {
		return true, err
	}
	setup, err := c.CheckImage(ctx, env, secrets)
	if err != nil && !setup {
		return false, fmt.Errorf("checking the server image %s: %w", sc.Server.Image, err)
	}
	return setup, err
}

func (imageSource) fingerprint(scenario.Server) []any { return nil }
func (imageSource) uncacheable() string               { return "an image server's answers are not checked yet" }

// preflighted is false: the preflight's proxy runs on this machine, the server in its container.
func (imageSource) preflighted() bool { return false }

// imageServer is how a run reaches an image server (server.image): the command the proxy in the
// cell starts in the server's place, a bridge client to the server container's loopback port, and
// that container's spec. Its variables go to the server container, never through the cell.
func imageServer(self string, sc *scenario.Scenario, env []string) ([]string, *backend.ServerSpec) {
	return []string{self, "connect", backend.ServerAddr}, &backend.ServerSpec{Command: sc.Server.Command, Env: env}
}

// ImageServerHTTPUpstream is, for an image server on the streamable HTTP transport, the URL the
// proxy in the cell relays to with --upstream: the server container serves HTTP on the loopback
// it shares with the cell.
func ImageServerHTTPUpstream(path string) string {
	return "http://" + backend.ServerAddr + path
}

// imageHTTPServer is the container of an image server on streamable HTTP: its command with
// {port} written as ServerAddr's port, run as it is (no bridge), with its variables.
func imageHTTPServer(sc *scenario.Scenario, env []string) *backend.ServerSpec {
	_, port, _ := net.SplitHostPort(backend.ServerAddr)
	cmd := make([]string, len(sc.Server.Command))
	for i, a := range sc.Server.Command {
		cmd[i] = strings.ReplaceAll(a, scenario.PortPlaceholder, port)
	}
	return &backend.ServerSpec{Command: cmd, Env: env, HTTP: true}
}

// ImageServer is the server container of the scenario's image server (server.image) as its runs
// start it, over stdio or streamable HTTP, with env its variables (Scenario.ServerEnv).
func ImageServer(sc *scenario.Scenario, env []string) backend.ServerSpec {
	if sc.Server.HTTP != nil {
		return *imageHTTPServer(sc, env)
	}
	return backend.ServerSpec{Command: sc.Server.Command, Env: env}
}

// imageServerUnavailable marks the clients that cannot run against an image server on this
// backend: every one on the local backend, and on docker those whose real model needs a network
// (the cell shares the server container's loopback, and nothing else).
func imageServerUnavailable(sc *scenario.Scenario, docker bool, out map[string]string) {
	if sc.Server.Kind() != scenario.ServerImage {
		return
	}
	for _, c := range sc.Clients {
		if _, ok := out[c.ID()]; ok {
			continue
		}
		switch {
		case !docker:
			out[c.ID()] = "needs the docker backend: the server runs in a container from its image (server.image)"
		case c.Model != nil:
			out[c.ID()] = "its real model needs a network, and a cell beside an image server (server.image) has none"
		}
	}
}
