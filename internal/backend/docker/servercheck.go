package docker

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/pkg/stdcopy"

	"github.com/toolscore/toolscore/internal/backend"
	"github.com/toolscore/toolscore/internal/backend/incell"
)

// StartFailure is an image server that exited before it listened: a setup error of the sweep,
// never an outcome of a client.
type StartFailure struct {
	Image   string   // server.image, as the manifest names it
	Command []string // server.command
	HTTP    bool
	Status  int
	Output  string // its last output, stdout and stderr as they came, lines joined with " | "
	// Container says the server container itself exited (the probe did not run in it).
	Container bool
}

func (e *StartFailure) Error() string {
	what := "answered initialize"
	if e.HTTP {
		what = "accepted connections on " + backend.ServerAddr
	}
	who := fmt.Sprintf("the server %q in the image %s (server.image)", e.Command, e.Image)
	if e.Container {
		who = fmt.Sprintf("the container of the image %s (server.image) for the server %q", e.Image, e.Command)
	}
	out := "it printed nothing"
	if e.Output != "" {
		out = fmt.Sprintf("its output ended: %q", e.Output)
	}
	return fmt.Sprintf("%s exited with status %d before it %s; %s", who, e.Status, what, out)
}

// maxProbeOutput caps what the check reads of the probe container's output.
const maxProbeOutput = 64 << 10

// CheckServer starts the sweep's image server once before any run, in a container made as a
// run's server container is (ServerConfig) with the probe in front of the server: a server that
// exits before it answers initialize (over HTTP: before it accepts connections) is a
// *StartFailure naming ref, its exit status and its last output. A server still silent after
// timeout passes: the runs measure it. Any other error means the check could not run.
func (d *Backend) CheckServer(ctx context.Context, ref string, s backend.ServerSpec, timeout time.Duration) error {
	if d.ServerImage == "" {
		return errors.New("no server image was built for server.image")
	}
	cfg, host := ServerConfig(d.ServerImage, d.Sandbox, backend.Spec{Cell: "server check", Server: &s, Timeout: timeout})
	probe := []string{backend.CellBinary, "probe-server", "--wait", timeout.String()}
	if s.HTTP {
		probe = append(probe, "--http", backend.ServerAddr)
	}
	cfg.Entrypoint, cfg.Cmd = Argv(append(append(probe, "--"), s.Command...))
	cfg.AttachStdout, cfg.AttachStderr = true, true
	cfg.Labels[LabelMarker], cfg.Labels[LabelSession], cfg.Labels[LabelOwner] = "1", d.session, d.owner
	created, err := d.api.ContainerCreate(ctx, cfg, host, nil, nil, "")
	if err != nil {
		return fmt.Errorf("creating the server container from %s: %w", ref, err)
	}
	defer func() {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		_ = d.api.ContainerRemove(rctx, created.ID, container.RemoveOptions{Force: true, RemoveVolumes: true})
	}()
	att, err := d.api.ContainerAttach(ctx, created.ID, container.AttachOptions{Stream: true, Stdout: true, Stderr: true})
	if err != nil {
		return fmt.Errorf("attaching to the server container: %w", err)
	}
	defer att.Close()
	waitCh, waitErr := d.api.ContainerWait(context.WithoutCancel(ctx), created.ID, container.WaitConditionNextExit)
	if err := d.api.ContainerStart(ctx, created.ID, container.StartOptions{}); err != nil {
		return fmt.Errorf("starting the server container from %s: %w", ref, err)
	}
	stdout, both := &backend.Capped{Max: maxProbeOutput}, &backend.LastBytes{Max: 1000}
	read := make(chan struct{})
	go func() {
		_, _ = stdcopy.StdCopy(io.MultiWriter(stdout, both), both, att.Reader)
		close(read)
	}()
	var status int
	select {
	case w := <-waitCh:
		status = int(w.StatusCode)
	case err := <-waitErr:
		return fmt.Errorf("waiting for the server container: %w", err)
	case <-time.After(timeout + time.Minute):
		return fmt.Errorf("the check of the server container from %s did not end within %s", ref, timeout+time.Minute)
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-read:
	case <-time.After(5 * time.Second):
	}
	if status == 0 {
		return nil
	}
	fail := &StartFailure{Image: ref, Command: s.Command, HTTP: s.HTTP, Status: status, Output: both.String(), Container: true}
	var r incell.ProbeReport
	if status == incell.ProbeRefused && json.Unmarshal(bytes.TrimSpace(stdout.Bytes()), &r) == nil {
		fail.Status, fail.Output, fail.Container = r.Status, r.Output, false
	}
	return fail
}
