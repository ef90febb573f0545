package docker

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/docker/docker/api/types/container"

	"github.com/toolscore/toolscore/internal/backend"
)

// LabelServer marks a run's server container, beside the cell that shares its loopback.
const LabelServer = "io.toolscore.server"

// ServerConfig is the container a run's image server runs in: the cell's hardening and labels
// (CellConfig) with the bridge as its command (or, over HTTP, the server's own), never a network but loopback, and nothing
// attached. Its user is the cell's; its working directory and environment are the image's, with
// HOME a writable /tmp and the manifest's server.env.
func ServerConfig(img string, sb Sandbox, s backend.Spec) (*container.Config, *container.HostConfig) {
	cfg, host := CellConfig(img, sb, s)
	cmd := append([]string{backend.CellBinary, "serve-stdio", "--listen", backend.ServerAddr, "--"}, s.Server.Command...)
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
func (d *Backend) startServer(ctx context.Context, s backend.Spec) (id string, remove func(), err error) {
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
