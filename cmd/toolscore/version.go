package main

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/toolscore/toolscore/exitcode"
	"github.com/toolscore/toolscore/internal/client"
	"github.com/toolscore/toolscore/internal/selfcmd"
)

// version is set at build time with -ldflags "-X main.version=..."; a build without it reports
// the module version go stamped (the tag of go install ...@TAG, or a clone's tag or commit), or
// dev.
var version = "dev"

func init() {
	if bi, ok := debug.ReadBuildInfo(); ok && version == "dev" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		version = bi.Main.Version
	}
	selfcmd.Version = version // what the built-in servers, run of this binary, announce
}

// versionCmd prints toolscore's version and what the clients it drives are by default: the
// Go libraries compiled in, and what each cell image installs (a manifest's version installs
// another).
func versionCmd(w io.Writer) error {
	fmt.Fprintf(w, "toolscore %s (%s)\n\nclients compiled in:\n", version, runtime.Version())
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	deps := builtDeps()
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
	var errs []error
	line := func(d client.Descriptor) {
		lib, ver, err := library(d, deps)
		if err != nil {
			fmt.Fprintf(tw, "  %s\t%v\n", d.Label(), err)
			errs = append(errs, err)
			return
		}
		fmt.Fprintf(tw, "  %s\t%s\n", d.Label(), strings.TrimSpace(lib+" "+ver))
	}
	for _, d := range append(own, libraries...) {
		line(d)
	}
	tw.Flush()

	fmt.Fprintln(w, "\nclients installed in cell images (docker backend) or the install cache (local), unless the manifest names a version:")
	slices.SortFunc(contained, func(a, b client.Descriptor) int { return strings.Compare(a.Image.Dir, b.Image.Dir) })
	for _, d := range contained {
		line(d)
	}
	tw.Flush()
	return exitcode.Failed(errors.Join(errs...))
}
