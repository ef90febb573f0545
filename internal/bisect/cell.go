package bisect

import (
	"fmt"

	"github.com/toolscore/toolscore/internal/cellimage"
	"github.com/toolscore/toolscore/internal/client"
	"github.com/toolscore/toolscore/scenario"
)

// Pin is where the versions of the client name (as the manifest or toolscore clients names
// it) come from, with good and bad as that registry spells them: a Go client is built from
// its module at each version (cellimage.BuildGoAdapter), any other from the package its cell
// image installs at a version.
func Pin(name, good, bad string) (pin cellimage.Pin, goodV, badV string, err error) {
	d, _, ok := client.Lookup(name)
	switch {
	case ok && d.Module != "":
		return cellimage.Pin{Registry: "Go", Package: d.Module}, GoVersion(good), GoVersion(bad), nil
	case ok && d.Contained() && d.Image.VersionArg != "":
		if pin, err = cellimage.PinOf(d.Image); err != nil {
			return pin, good, bad, fmt.Errorf("--client %s: %v", name, err)
		}
		return pin, good, bad, nil
	}
	return pin, good, bad, fmt.Errorf("--client %q: bisect needs a client whose cell image installs a version from a registry, or a Go client (%v)", name, client.Versioned())
}

// ForCell is the search of one cell, given as --cell's parts (FAULT, SCHEMA and maybe
// PROTOCOL and TRANSPORT), with the scenario's first protocol and transport where the cell
// names none, and the client as the scenario's entry for it (its bare name when it has none).
func ForCell(sc *scenario.Scenario, cell []string, name string) *Search {
	b := &Search{Fault: cell[0], Schema: cell[1], Client: scenario.Client{Name: name}}
	if len(cell) >= 3 {
		b.Protocol = cell[2]
	} else if len(sc.Protocols) > 0 {
		b.Protocol = string(sc.Protocols[0])
	}
	if len(cell) == 4 {
		b.Transport = cell[3]
	} else if len(sc.Transports) > 0 {
		b.Transport = string(sc.Transports[0])
	}
	for _, c := range sc.Clients {
		if c.Name == name {
			b.Client = c
		}
	}
	return b
}
