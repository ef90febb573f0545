package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/toolscore/toolscore/exitcode"
	"github.com/toolscore/toolscore/internal/bisect"
	"github.com/toolscore/toolscore/internal/cli"
	"github.com/toolscore/toolscore/internal/registry"
	"github.com/toolscore/toolscore/report"
	"github.com/toolscore/toolscore/sweep"
)

// bisectCmd finds the first version of a client whose outcome in one cell differs from a good
// version's, each version built as its own cell image and run against the good version's
// recorded transcript, searched by halving.
func bisectCmd(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("bisect", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: toolscore bisect --client NAME --good V1 --bad V2 --cell FAULT/SCHEMA[/PROTOCOL[/TRANSPORT]] [--live] [SCENARIO]\n\nRecords the cell live with the client at V1 (docker backend), then runs the versions between\nV1 and V2, as the package's registry lists them, against that recording, halving the range,\nand prints the first version whose outcome differs from V1's, with both outcomes and their\nevidence. Exit 0 when it found one, 1 when V2's outcome is V1's, 2 on a usage error.\n\nflags:")
		fs.PrintDefaults()
	}
	name := fs.String("client", "", "the client, as the manifest names it (e.g. ts-sdk/list-then-call): one whose cell image installs a version, or a Go client, built for each")
	good := fs.String("good", "", "a version with the outcome to keep (recorded live)")
	bad := fs.String("bad", "", "a later version with another outcome")
	cellFlag := fs.String("cell", "", "the cell: FAULT/SCHEMA, FAULT/SCHEMA/PROTOCOL or FAULT/SCHEMA/PROTOCOL/TRANSPORT (default: the scenario's first protocol and transport)")
	live := fs.Bool("live", false, "run every version live against the server, not against V1's recording: for a change in what a client asks of the server (a newer protocol revision it offers), which a recording cannot answer")
	work := fs.String("work", "", "where to keep each version's output directory (default: a new directory under the system's temporary one)")
	positional, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	usage := func(format string, a ...any) error {
		err := fmt.Errorf(format, a...)
		fmt.Fprintln(os.Stderr, "toolscore bisect:", err)
		return exitcode.UsageError(err)
	}
	if *name == "" || *good == "" || *bad == "" || *cellFlag == "" || len(positional) > 1 {
		fs.Usage()
		return exitcode.UsageError(errors.New("bisect needs --client, --good, --bad and --cell, and at most one scenario"))
	}
	manifest := ""
	if len(positional) == 1 {
		manifest = positional[0]
	}
	cellParts := strings.Split(*cellFlag, "/")
	if len(cellParts) < 2 || len(cellParts) > 4 {
		return usage("--cell %q: want FAULT/SCHEMA, FAULT/SCHEMA/PROTOCOL or FAULT/SCHEMA/PROTOCOL/TRANSPORT", *cellFlag)
	}
	pin, goodV, badV, err := bisect.Pin(*name, *good, *bad)
	if err != nil {
		return usage("%v", err)
	}
	*good, *bad = goodV, badV
	sc, err := sweep.Load(manifest)
	if err != nil {
		cli.PrintLoadError(os.Stderr, err)
		return exitcode.UsageError(err)
	}
	b := bisect.ForCell(sc, cellParts, *name)
	b.Manifest, b.Live, b.Version, b.Stderr = manifest, *live, version, os.Stderr
	releases, err := registry.Releases(ctx, pin.Registry, pin.Package)
	if err != nil {
		return usage("%v", err)
	}
	between, err := bisect.VersionRange(releases, *good, *bad)
	if err != nil {
		return usage("%s: %v", pin.Package, err)
	}
	b.Work = *work
	if b.Work == "" {
		if b.Work, err = os.MkdirTemp("", "toolscore-bisect-"); err != nil {
			return usage("%v", err)
		}
	}
	fmt.Fprintf(os.Stderr, "toolscore bisect: %s %s..%s: %d %s of %s on %s; outputs in %s\n",
		*name, *good, *bad, len(between), report.Plural(len(between), "version", "versions"), pin.Package, pin.Registry, b.Work)
	found, before, err := b.Run(ctx, between)
	if err != nil {
		fmt.Fprintln(os.Stderr, "toolscore bisect:", err)
		return exitcode.Failed(err)
	}
	if found == nil {
		fmt.Printf("%s %s and %s both: %s\n", *name, *good, *bad, before.Describe())
		return exitcode.Failed(fmt.Errorf("%s %s and %s have one outcome", *name, *good, *bad))
	}
	fmt.Printf("first version whose outcome differs from %s's: %s %s\n", *good, *name, found.Version)
	fmt.Printf("  %s: %s\n", found.Version, found.Describe())
	fmt.Printf("  %s (the version before): %s\n", before.Version, before.Describe())
	return nil
}
