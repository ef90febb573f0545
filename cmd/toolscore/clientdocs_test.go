package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/toolscore/toolscore/internal/client"
)

// clientTable renders the table of docs/clients.md: a row per client and agent of ds, its names,
// the library it runs at its default version (as toolscore version reads it), what its adapter
// does (the descriptor's Does), where it lives, and how often its registry says it is downloaded
// (Downloads, where a figure was found).
func clientTable(t *testing.T, ds []client.Descriptor) string {
	deps := builtDeps()
	var b strings.Builder
	b.WriteString("| name | library | what the adapter does | where it lives | downloads |\n|---|---|---|---|---|\n")
	for _, d := range ds {
		var names []string
		for _, p := range d.Paths {
			names = append(names, "`"+strings.TrimSuffix(d.Name+"/"+p, "/")+"`")
		}
		if len(names) == 0 {
			names = []string{"`" + d.Name + "`"}
		}
		name := strings.Join(names, ", ")
		if d.Agent {
			name += " (agent)"
		}
		lib := "none: bare JSON-RPC"
		if d.Module != "" || d.Contained() {
			registry, ver, err := library(d, deps)
			if err != nil {
				t.Fatalf("client %s: %v", d.Name, err)
			}
			registry, pkg, ok := strings.Cut(registry, " ")
			if !ok { // a Go module: its path alone
				registry, pkg = "", registry
			}
			lib = fmt.Sprintf("`%s` %s", pkg, ver)
			if registry != "" {
				lib += " (" + registry + ")"
			}
		}
		where := "the toolscore binary"
		switch {
		case d.Image.Folder != nil:
			where = "`internal/client/clients/" + d.Name + "`"
		case d.Contained():
			where = "`internal/cellimage/images/" + d.Image.Dir + "`"
		}
		if d.Does == "" {
			t.Fatalf("client %s says nothing about what its adapter does (Descriptor.Does)", d.Name)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", name, lib, cell(d.Does), where, cell(d.Downloads))
	}
	return b.String()
}

// clientSections renders the sections of docs/clients.md that the clients of ds bring (their
// folder's doc.md), sorted by name; the agents' are agentSections.
func clientSections(ds []client.Descriptor) string { return sections(ds, false) }

// agentSections renders the sections the agents of ds bring, under the page's Agents.
func agentSections(ds []client.Descriptor) string { return sections(ds, true) }

func sections(ds []client.Descriptor, agents bool) string {
	var parts []string
	for _, d := range ds {
		if d.Doc != "" && d.Agent == agents {
			parts = append(parts, d.Doc)
		}
	}
	return strings.Join(parts, "\n")
}
