package runner

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"time"

	"github.com/toolscore/toolscore/internal/backend"
	"github.com/toolscore/toolscore/internal/backend/docker"
	"github.com/toolscore/toolscore/internal/cellimage"
	"github.com/toolscore/toolscore/record"
	"github.com/toolscore/toolscore/report"
	"github.com/toolscore/toolscore/scenario"
)

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
	if sc.Server.Image == "" {
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

// serverImage builds the image server's image: the manifest's image with the static binary
// layered on (as a ready client image is), cached by its inputs.
func serverImage(ctx context.Context, d *docker.Backend, ref string, bin []byte, log io.Writer) (string, error) {
	id, err := d.ImageID(ctx, ref)
	if err != nil {
		return "", err
	}
	start := time.Now()
	tag, built, err := d.EnsureImage(ctx, cellimage.Ready(ref, id, bin), nil)
	if err != nil {
		return "", fmt.Errorf("layering toolscore on the server image %s (server.image): %w", ref, err)
	}
	if built {
		fmt.Fprintf(log, "built %s for the server image %s in %s\n", tag, report.Plain(ref), time.Since(start).Round(time.Second))
	}
	return tag, nil
}

// maxBesideOutput caps what BesideImageServer reads of the cell's stdout: text from a server
// under test, a listing of its tools.
const maxBesideOutput = 16 << 20

// BesideImageServer runs command in a cell beside a server container of the image ref running
// server, as a run of an image server does (the image with the static binary self layered on,
// the bridge on the loopback they share, both hardened, labelled and removed), and returns the
// cell's stdout, its stderr written to log. env are the server's variables. The cell runs in the server's own image, which holds the binary.
func BesideImageServer(ctx context.Context, self, ref string, server, env, command []string, timeout time.Duration, log io.Writer) ([]byte, error) {
	bin, err := cellimage.StaticBinary(self)
	if err != nil {
		return nil, err
	}
	d, err := docker.New(ctx)
	if err != nil {
		return nil, fmt.Errorf("a server image needs the docker backend: %w", err)
	}
	if _, err := d.Sweep(ctx, false); err != nil {
		return nil, err
	}
	if d.ServerImage, err = serverImage(ctx, d, ref, bin, log); err != nil {
		return nil, err
	}
	d.Images["init"] = d.ServerImage
	dir, err := os.MkdirTemp("", "toolscore-beside-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	r := d.Run(ctx, backend.Spec{Dir: dir, Client: "init", Cell: "init", Run: 1, Command: command, Timeout: timeout,
		Server: &backend.ServerSpec{Command: server, Env: env}})
	// The cell's stderr holds the server's, as a server command's goes to init's own stderr.
	_, _ = log.Write(r.Stderr)
	var out []byte
	if f, err := record.Open(r.Stdout); err == nil {
		out, _ = io.ReadAll(io.LimitReader(f, maxBesideOutput))
		f.Close()
	}
	switch {
	case r.Err != nil:
		return nil, r.Err
	case r.Cancelled:
		return nil, ctx.Err()
	case r.TimedOut:
		return nil, fmt.Errorf("no answer within %s", timeout)
	case r.ExitCode != 0:
		return nil, fmt.Errorf("the cell exited with status %d (its stderr is above)", r.ExitCode)
	}
	return out, nil
}
