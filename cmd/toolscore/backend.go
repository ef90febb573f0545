package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/toolscore/toolscore/runner"
	"github.com/toolscore/toolscore/runner/backend"
	"github.com/toolscore/toolscore/runner/client"
	"github.com/toolscore/toolscore/runner/scenario"
)

var errUsage = errors.New("usage")

// chooseBackend picks where runs execute: the named backend, or docker when a daemon answers
// and local otherwise. It says why, and returns what to do when the sweep is over.
func chooseBackend(ctx context.Context, name, self string, sc *scenario.Scenario, log io.Writer) (runner.Backend, string, func(), error) {
	local := backend.Local{Binary: self}
	switch name {
	case "local":
		return local, "asked for with --backend local", func() {}, nil
	case "docker", "":
	default:
		return nil, "", nil, fmt.Errorf("%w: unknown backend %q (known: docker, local)", errUsage, name)
	}
	d, done, err := dockerBackend(ctx, self, sc, log)
	if err == nil {
		why := "asked for with --backend docker"
		if name == "" {
			why = "a Docker daemon answered"
		}
		return d, why, done, nil
	}
	if name == "docker" {
		return nil, "", nil, err
	}
	return local, "no Docker backend: " + err.Error(), func() {}, nil
}

// dockerBackend connects, sweeps what dead sweeps left, and makes sure every client's cell
// image is built; done sweeps again and says if this sweep left anything behind.
func dockerBackend(ctx context.Context, self string, sc *scenario.Scenario, log io.Writer) (*backend.Docker, func(), error) {
	bin, err := backend.StaticBinary(self)
	if err != nil {
		return nil, nil, err
	}
	d, err := backend.NewDocker(ctx)
	if err != nil {
		return nil, nil, err
	}
	if n, err := d.Sweep(ctx, false); err != nil {
		return nil, nil, err
	} else if n > 0 {
		fmt.Fprintf(log, "removed %d container(s) and volume(s) left by sweeps that are over\n", n)
	}
	d.Sandbox = sandbox(sc)
	for _, c := range sc.Clients {
		if _, ok := client.Builtins[c.Name]; !ok {
			return nil, nil, fmt.Errorf("client %q has no cell image", c.Name)
		}
		tag, built, err := d.EnsureImage(ctx, backend.BuiltinImage(bin, os.Getenv("TOOLSCORE_BASE_IMAGE")), nil)
		if err != nil {
			return nil, nil, err
		}
		if built {
			fmt.Fprintf(log, "built %s\n", tag)
		}
		d.Images[c.Name] = tag
	}
	done := func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		if n, err := d.RemoveMine(cctx); err == nil && n > 0 {
			fmt.Fprintf(log, "toolscore: removed %d container(s) of this sweep that were still there\n", n)
		}
		_, _ = d.Sweep(cctx, false)
	}
	return d, done, nil
}

// sandbox is the manifest's relaxation of the cell hardening, if any.
func sandbox(sc *scenario.Scenario) backend.Sandbox {
	s := sc.Sandbox
	return backend.Sandbox{Network: s.Network, Memory: s.Memory << 20, CPUs: s.CPUs, Pids: s.Pids, NoFile: s.NoFile, User: s.User, KeepCapabilities: s.KeepCapabilities}
}
