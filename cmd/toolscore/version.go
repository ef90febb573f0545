package main

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/toolscore/toolscore/exitcode"
	"github.com/toolscore/toolscore/internal/backend"
	"github.com/toolscore/toolscore/internal/client"
)

// version is set at build time with -ldflags "-X main.version=..."; a build without it reports
// the module version go stamped (the tag of go install ...@TAG, or a clone's tag or commit), or
// dev.
var version = "dev"

func init() {
	if bi, ok := debug.ReadBuildInfo(); ok && version == "dev" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		version = bi.Main.Version
	}
}

// versionCmd prints toolscore's version and what the clients it drives are by default: the
// Go libraries compiled in, and what each cell image installs (a manifest's version installs
// another).
func versionCmd(w io.Writer) error {
	fmt.Fprintf(w, "toolscore %s (%s)\n\nclients compiled in:\n", version, runtime.Version())
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	deps := map[string]string{}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, m := range bi.Deps {
			deps[m.Path] = m.Version
			if m.Replace != nil {
				deps[m.Path] = m.Replace.Version
			}
		}
	}
	var own, libraries, contained []client.Descriptor
	for _, d := range client.Descriptors() {
		switch {
		case d.Contained():
			contained = append(contained, d)
		case d.Module == "":
			own = append(own, d)
		default:
			libraries = append(libraries, d)
		}
	}
	// toolscore's own client first, then the Go libraries compiled in.
	for _, d := range own {
		fmt.Fprintf(tw, "  %s\ttoolscore's own JSON-RPC\n", d.Label())
	}
	for _, d := range libraries {
		fmt.Fprintf(tw, "  %s\t%s %s\n", d.Label(), d.Module, cmp.Or(deps[d.Module], "unknown"))
	}
	tw.Flush()

	fmt.Fprintln(w, "\nclients in cell images (docker backend), unless the manifest names a version:")
	slices.SortFunc(contained, func(a, b client.Descriptor) int { return strings.Compare(a.Image.Dir, b.Image.Dir) })
	var errs []error
	for _, d := range contained {
		label := d.Label()
		p, err := backend.ImagePin(d.Image.Dir)
		if err != nil {
			fmt.Fprintf(tw, "  %s\t%v\n", label, err)
			errs = append(errs, err)
			continue
		}
		fmt.Fprintf(tw, "  %s\t%s %s %s\n", label, p.Registry, p.Package, p.Version)
	}
	tw.Flush()
	return exitcode.Failed(errors.Join(errs...))
}
