package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/toolscore/toolscore/runner/backend"
	"github.com/toolscore/toolscore/runner/client"
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

// goClients are the Go client libraries compiled in, with the clients that use them.
var goClients = []struct{ clients, module string }{
	{"go-sdk/*", "github.com/modelcontextprotocol/go-sdk"},
	{"mcp-go/*", "github.com/mark3labs/mcp-go"},
}

// versionCmd prints toolscore's version and what the clients it drives are by default: the
// Go libraries compiled in, and what each cell image installs (a manifest's version installs
// another).
func versionCmd(w io.Writer) int {
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
	fmt.Fprintf(tw, "  raw\ttoolscore's own JSON-RPC\n")
	for _, g := range goClients {
		v := deps[g.module]
		if v == "" {
			v = "unknown"
		}
		fmt.Fprintf(tw, "  %s\t%s %s\n", g.clients, g.module, v)
	}
	tw.Flush()

	fmt.Fprintln(w, "\nclients in cell images (docker backend), unless the manifest names a version:")
	clients := map[string][]string{} // image -> clients
	for name, c := range client.Containeds {
		clients[c.Image] = append(clients[c.Image], name)
	}
	images := make([]string, 0, len(clients))
	for im := range clients {
		images = append(images, im)
	}
	slices.Sort(images)
	code := 0
	for _, im := range images {
		names := clients[im]
		slices.Sort(names)
		label := strings.Join(names, ", ")
		if len(names) > 1 && !slices.ContainsFunc(names, func(n string) bool { return !strings.HasPrefix(n, im+"/") }) {
			label = im + "/*"
		}
		p, err := backend.ImagePin(im)
		if err != nil {
			fmt.Fprintf(tw, "  %s\t%v\n", label, err)
			code = 1
			continue
		}
		fmt.Fprintf(tw, "  %s\t%s %s %s\n", label, p.Registry, p.Package, p.Version)
	}
	tw.Flush()
	return code
}
