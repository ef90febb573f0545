package backend

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/docker/docker/api/types/container"
)

// ServerSpec is a run's server container (server.image): the stdio server's command, run in the
// sweep's server image (Docker.ServerImage) behind toolscore serve-stdio, and its variables.
type ServerSpec struct {
	Command []string
	Env     []string
	// HTTP says the command serves streamable HTTP itself on ServerAddr (its {port} written
	// as ServerAddr's port), so the container runs it as it is, with no bridge.
	HTTP bool
}

// ServerAddr is where a server container's bridge (or its HTTP server) listens: on the loopback
// it shares with the run's cell only, so one fixed port serves every run.
const ServerAddr = "127.0.0.1:7464"

// LabelServer marks a run's server container, beside the cell that shares its loopback.
const LabelServer = "io.toolscore.server"

// ServerConfig is the container a run's image server runs in: the cell's hardening and labels
// (CellConfig) with the bridge as its command (or, over HTTP, the server's own), never a network but loopback, and nothing
// attached. Its user is the cell's; its working directory and environment are the image's, with
// HOME a writable /tmp and the manifest's server.env.
func ServerConfig(img string, sb Sandbox, s Spec) (*container.Config, *container.HostConfig) {
	cfg, host := CellConfig(img, sb, s)
	cmd := append([]string{CellBinary, "serve-stdio", "--listen", ServerAddr, "--"}, s.Server.Command...)
	if s.Server.HTTP {
		cmd = s.Server.Command
	}
	// The image's entrypoint is not read (the manifest's command says what runs): a published
	// server image's ENTRYPOINT would otherwise take the whole command as its arguments.
	cfg.Entrypoint, cfg.Cmd = Argv(cmd)
	cfg.Env = append([]string{"HOME=/tmp"}, s.Server.Env...)
	cfg.WorkingDir = ""
	cfg.AttachStdin, cfg.AttachStdout, cfg.AttachStderr, cfg.OpenStdin, cfg.StdinOnce = false, false, false, false, false
	cfg.Labels[LabelServer] = "1"
	host.NetworkMode = "none"
	return cfg, host
}

// startServer creates and starts the run's server container; remove removes it (also when
// starting failed), with its own context so a cancelled sweep still cleans up.
func (d *Docker) startServer(ctx context.Context, s Spec) (id string, remove func(), err error) {
	remove = func() {}
	if d.ServerImage == "" {
		return "", remove, errors.New("no server image was built for server.image")
	}
	if s.Network != "" {
		return "", remove, fmt.Errorf("the cell needs network %q, but it shares the image server's loopback, which has none", s.Network)
	}
	cfg, host := ServerConfig(d.ServerImage, d.Sandbox, s)
	cfg.Labels[LabelMarker], cfg.Labels[LabelSession], cfg.Labels[LabelOwner] = "1", d.session, d.owner
	created, err := d.api.ContainerCreate(ctx, cfg, host, nil, nil, "")
	if err != nil {
		return "", remove, fmt.Errorf("creating the server container from %s: %w", d.ServerImage, err)
	}
	remove = func() {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		_ = d.api.ContainerRemove(rctx, created.ID, container.RemoveOptions{Force: true, RemoveVolumes: true})
	}
	if err := d.api.ContainerStart(ctx, created.ID, container.StartOptions{}); err != nil {
		return "", remove, fmt.Errorf("starting the server container from %s: %w", d.ServerImage, err)
	}
	return created.ID, remove, nil
}
