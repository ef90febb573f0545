package main

import (
	"cmp"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime/debug"
	"strings"
	"text/tabwriter"

	"github.com/toolscore/toolscore/exitcode"
	"github.com/toolscore/toolscore/internal/backend/docker"
	"github.com/toolscore/toolscore/internal/cellimage"
	"github.com/toolscore/toolscore/internal/cli"
	"github.com/toolscore/toolscore/internal/client"
	"github.com/toolscore/toolscore/internal/install"
	"github.com/toolscore/toolscore/internal/runner"
	"github.com/toolscore/toolscore/report"
	"github.com/toolscore/toolscore/scenario"
	"github.com/toolscore/toolscore/sweep"
)

const clientsUsage = `usage: toolscore clients [SCENARIO] [--format text|json]

Lists every built-in client and agent, then the clients of SCENARIO when it is given: what kind
it is, the library it is built on at the version it runs (the default, or the manifest's
version pin), and where it can run on this machine, without building or running anything:

  local   yes; yes (builds with go) for a Go client at a version pin; for a client run from
          the install cache (the TypeScript and Python SDKs, the agent CLIs, a manifest's own),
          yes (installed in DIR) or yes (the first sweep installs it); or why the local
          backend cannot run it (the reason a sweep gives: node not found on PATH, ...)
  docker  built (its cell image is here), buildable (the image it builds on is here), or
          not: why (no Docker engine answers, the base image is not on the engine, ...)

--format json prints an array of objects with the fields name, from ("built-in" or
"manifest"), kind ("SDK client", "agent" or "bare"), library, version, pinned (true for a
manifest's version), local, docker and image (the cell image's tag, "" when none is known).

Exit 0, or 2 on a bad flag or manifest.

flags:`

// clientRow is one client as toolscore clients lists it.
type clientRow struct {
	Name    string `json:"name"`
	From    string `json:"from"`
	Kind    string `json:"kind"`
	Library string `json:"library"`
	Version string `json:"version"`
	Pinned  bool   `json:"pinned"`
	Local   string `json:"local"`
	Docker  string `json:"docker"`
	Image   string `json:"image"`
}

// clientsCmd lists the clients and where each can run here.
func clientsCmd(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("clients", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), clientsUsage)
		fs.PrintDefaults()
	}
	format := fs.String("format", "text", "text or json")
	positional, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(positional) > 1 {
		err = fmt.Errorf("one scenario at a time, got %d: %s", len(positional), strings.Join(positional, " "))
	} else if *format != "text" && *format != "json" {
		err = fmt.Errorf("unknown format %q (text or json)", *format)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "toolscore clients:", err)
		return exitcode.UsageError(err)
	}
	// The built-in clients are judged as a sweep of a manifest naming them alone would judge
	// them (the built-in ledger's server, no model, no pin); a manifest's, as its sweep would.
	builtin := &scenario.Scenario{}
	for _, n := range client.Names() {
		builtin.Clients = append(builtin.Clients, scenario.Client{Name: n})
	}
	manifest := &scenario.Scenario{}
	if len(positional) == 1 {
		if manifest, err = sweep.Load(positional[0]); err != nil {
			cli.PrintLoadError(os.Stderr, err)
			return exitcode.UsageError(err)
		}
	}
	engine := newEngine(ctx)
	if engine.err != nil {
		fmt.Fprintln(os.Stderr, "toolscore clients:", engine.err)
	}
	rows := append(clientRows(ctx, builtin, "built-in", engine), clientRows(ctx, manifest, "manifest", engine)...)
	if *format == "json" {
		b, _ := json.MarshalIndent(rows, "", "  ")
		_, err = fmt.Printf("%s\n", b)
		return err
	}
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tFROM\tKIND\tLIBRARY\tVERSION\tLOCAL\tDOCKER")
	for _, r := range rows {
		v := r.Version
		if r.Pinned {
			v += " (pinned)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", report.Plain(r.Name), r.From, r.Kind, report.Plain(r.Library), report.Plain(v), report.Plain(r.Local), report.Plain(r.Docker))
	}
	return tw.Flush()
}

// clientRows lists the clients of sc, in its order.
func clientRows(ctx context.Context, sc *scenario.Scenario, from string, engine *dockerEngine) []clientRow {
	deps := builtDeps()
	local, docker := runner.LocalUnavailable(sc), runner.DockerUnavailable(sc)
	var rows []clientRow
	for _, c := range runner.Clients(sc) {
		d := c.Descriptor
		r := clientRow{Name: c.ID(), From: from, Kind: "SDK client", Local: "yes"}
		switch {
		case d.Agent:
			r.Kind = "agent"
		case d.Module == "" && !d.Contained() && !d.Manifest:
			r.Kind = "bare"
		}
		var err error
		if r.Library, r.Version, err = library(d, deps); err != nil {
			r.Library = err.Error()
		}
		if r.Kind == "bare" {
			r.Version = version // toolscore's own client is as old as toolscore
		}
		if c.Version != "" {
			r.Version, r.Pinned = c.Version, true
		}
		// A Go client at a version pin runs an adapter the sweep builds with the go command.
		var goErr error
		if d.Module != "" && c.Version != "" {
			_, goErr = cellimage.GoCommand(d.Module, c.Version)
		}
		switch why, out := local[c.ID()]; {
		case out:
			r.Local = why
		case goErr != nil:
			r.Local = goErr.Error()
		case d.Module != "" && c.Version != "":
			r.Local = "yes (builds with go)"
		case d.Local != nil:
			r.Local = localInstall(c)
		}
		if why, out := docker[c.ID()]; out {
			r.Docker = "not: " + why
		} else if goErr != nil {
			r.Docker = "not: " + goErr.Error()
		} else {
			r.Image, r.Docker = engine.status(ctx, c, sc.Server.Install)
		}
		rows = append(rows, r)
	}
	return rows
}

// localInstall says whether a client the local backend runs from the install cache is there
// already or is installed by the first sweep that runs it.
func localInstall(c runner.Client) string {
	root, err := install.Root()
	if err != nil {
		return err.Error()
	}
	r, err := runner.LocalRecipe(c)
	if err != nil {
		return err.Error()
	}
	if dir, ok := install.Installed(root, r); ok {
		return "yes (installed in " + dir + ")"
	}
	return "yes (the first sweep installs it)"
}

// dockerEngine is the Docker engine that answers here, if one does, and the toolscore binary a cell
// image is built with.
type dockerEngine struct {
	d      *docker.Backend
	err    error // why there is no engine
	bin    []byte
	binErr error
}

func newEngine(ctx context.Context) *dockerEngine {
	e := &dockerEngine{}
	if e.d, e.err = docker.New(ctx); e.err != nil {
		return e
	}
	self, err := os.Executable()
	if err == nil {
		e.bin, err = cellimage.StaticBinary(self)
	}
	e.binErr = err
	return e
}

// status says whether the cell image of c is built on the engine (with the server's install
// step layered on, when the manifest has one), can be built there without pulling anything, or
// why not; with the image's tag when it is known. It builds nothing.
func (e *dockerEngine) status(ctx context.Context, c runner.Client, install string) (tag, status string) {
	if e.err != nil {
		return "", "not: no Docker engine answered" // the whole error is printed once, on stderr
	}
	if e.binErr != nil {
		return "", "not: " + e.binErr.Error()
	}
	// The image a sweep builds for c, before a server's install step (cellimage.ImageFor).
	spec, _, err := cellimage.ImageFor(ctx, c.Descriptor, c.Image, c.Version, e.bin, e.d.ImageID)
	if err != nil {
		return "", "not: " + err.Error()
	}
	tag, err = spec.Tag()
	if err != nil {
		return "", "not: " + err.Error()
	}
	id, err := e.d.ImageID(ctx, tag)
	switch {
	case err != nil:
		return tag, "not: " + err.Error()
	case id != "" && c.Descriptor.Module != "" && c.Version != "":
		// The adapter at the pin is layered on the built-in image once go has built it.
		return tag, "buildable (builds the adapter with go)"
	case id != "" && install != "":
		with, err := cellimage.Install(tag, install).Tag()
		if err == nil {
			id, err = e.d.ImageID(ctx, with)
		}
		if err != nil {
			return tag, "not: " + err.Error()
		}
		if id == "" {
			return with, "buildable (installs the server on " + tag + ")"
		}
		return with, "built"
	case id != "":
		return tag, "built"
	}
	base := spec.Base()
	if base == "" || base == "scratch" {
		return tag, "buildable"
	}
	if id, err := e.d.ImageID(ctx, base); err != nil {
		return tag, "not: " + err.Error()
	} else if id == "" {
		return tag, fmt.Sprintf("not: its base image %s is not on the engine (a build pulls it)", base)
	}
	return tag, "buildable"
}

// builtDeps are the versions of the Go modules compiled into toolscore, by module path.
func builtDeps() map[string]string {
	deps := map[string]string{}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, m := range bi.Deps {
			deps[m.Path] = m.Version
			if m.Replace != nil {
				deps[m.Path] = m.Replace.Version
			}
		}
	}
	return deps
}

// library is what a client is built on and its version by default: the Go module compiled in
// (deps, from builtDeps), the package its cell image installs (as the image pins it), or
// toolscore's own JSON-RPC (no version of its own).
func library(d client.Descriptor, deps map[string]string) (lib, ver string, err error) {
	switch {
	case d.Manifest:
		return "its own: " + strings.Join(d.Local.Command, " "), "", nil
	case d.Contained():
		p, err := cellimage.PinOf(d.Image)
		if err != nil {
			return "", "", err
		}
		return p.Registry + " " + p.Package, p.Version, nil
	case d.Module == "":
		return "toolscore's own JSON-RPC", "", nil
	}
	return d.Module, cmp.Or(deps[d.Module], "unknown"), nil
}
