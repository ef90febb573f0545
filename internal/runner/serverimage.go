package runner

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/toolscore/toolscore/internal/backend"
	"github.com/toolscore/toolscore/internal/backend/docker"
	"github.com/toolscore/toolscore/internal/cellimage"
	"github.com/toolscore/toolscore/record"
	"github.com/toolscore/toolscore/report"
)

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
