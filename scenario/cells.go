package scenario

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/toolscore/toolscore/record"
)

// Cell is one point of the matrix: one client, one fault, one schema mode, one protocol
// and one transport. Every run of a cell is alike.
type Cell struct {
	Client    Client
	Fault     Fault
	Schema    SchemaMode
	Protocol  Protocol
	Transport Transport
	// Tool is the tool the cell calls; its Coordinate is empty for a scenario's single tool.
	Tool Tool
}

// Coordinates is where the cell sits in the matrix, as its runs' records and its counts write
// it.
func (c Cell) Coordinates() record.Cell {
	return record.Cell{Client: c.Client.ID(), Fault: c.Fault.Name, Schema: string(c.Schema), Protocol: string(c.Protocol),
		Transport: string(c.Transport), Tool: c.Tool.Coordinate()}
}

// Key names the cell in results, baselines and diffs (record.Cell.Key).
func (c Cell) Key() string { return c.Coordinates().Key() }

// Cells expands the matrix in manifest order: tool outermost, then schema
// mode, then protocol, then transport, then fault, then client, so a report
// reads one tool, schema mode, protocol and transport at a time.
func (s *Scenario) Cells() []Cell {
	cells := make([]Cell, 0, s.CellCount())
	for _, tool := range s.Calls() {
		for _, m := range s.SchemaModes {
			for _, p := range s.protocols() {
				for _, t := range s.transports() {
					for _, f := range s.Faults {
						if f.httpOnly && t == TransportStdio || !f.applies(tool) {
							continue // a stdio cell has no HTTP exchange to break; a tool no schema to break against
						}
						f := f.forTool(tool)
						for _, c := range s.Clients {
							cells = append(cells, Cell{Client: c, Fault: f, Schema: m, Protocol: p, Transport: t, Tool: tool})
						}
					}
				}
			}
		}
	}
	return cells
}

// forTool is the fault as it applies to tool t: with t's decoy arguments when the fault takes
// them and its own entry gives none.
func (f Fault) forTool(t Tool) Fault {
	if !f.decoys || len(t.DecoyArgs) == 0 || f.Options["decoy_args"] != nil {
		return f
	}
	opts := maps.Clone(f.Options)
	if opts == nil {
		opts = map[string]any{}
	}
	opts["decoy_args"] = t.DecoyArgs
	f.Options = opts
	return f
}

// protocols is the protocol axis, as-is alone for a scenario built without one.
func (s *Scenario) protocols() []Protocol {
	if len(s.Protocols) == 0 {
		return []Protocol{ProtocolAsIs}
	}
	return s.Protocols
}

// transports is the transport axis, stdio alone for a scenario built without one.
func (s *Scenario) transports() []Transport {
	if len(s.Transports) == 0 {
		return []Transport{TransportStdio}
	}
	return s.Transports
}

// CellCount is how many cells Cells returns, without making them.
func (s *Scenario) CellCount() int {
	// tool × transport × fault, without the stdio cells of the faults of the HTTP exchange and
	// the cells of a fault that needs a schema on a tool without one
	triples := 0
	for _, tool := range s.Calls() {
		for _, t := range s.transports() {
			for _, f := range s.Faults {
				if (!f.httpOnly || t != TransportStdio) && f.applies(tool) {
					triples++
				}
			}
		}
	}
	return triples * len(s.SchemaModes) * len(s.protocols()) * len(s.Clients)
}

// Matches says whether the expectation applies to the cell. A client
// selector without a version matches every version of that client.
func (e Expect) Matches(c Cell) bool {
	return (isAny(e.Client) || e.Client == c.Client.Name || e.Client == c.Client.ID()) &&
		(isAny(e.Fault) || e.Fault == c.Fault.Name) &&
		(isAny(e.Schema) || SchemaMode(e.Schema) == c.Schema) &&
		(isAny(e.Protocol) || Protocol(e.Protocol) == c.Protocol) &&
		(isAny(e.Transport) || Transport(e.Transport) == c.Transport) &&
		(isAny(e.Tool) || e.Tool == c.Tool.Coordinate())
}

// Filter narrows the matrix to the named clients, faults, schema modes,
// protocols and transports, as given by the --clients, --faults, --schema, --protocols and
// --transports flags; an empty list keeps every entry. A client is named by its name
// (every version) or name@version. A name the scenario does not have is an
// error naming the flag, and then nothing is narrowed.
func (s *Scenario) Filter(clients, faults, schemas, protocols, transports []string) error {
	keptClients, errClients := filter("--clients", "clients", s.Clients, clients, func(c Client) []string { return []string{c.ID(), c.Name} })
	keptFaults, errFaults := filter("--faults", "faults", s.Faults, faults, func(f Fault) []string { return []string{f.Name} })
	keptModes, errModes := filter("--schema", "schema modes", s.SchemaModes, schemas, func(m SchemaMode) []string { return []string{string(m)} })
	keptProtocols, errProtocols := filter("--protocols", "protocols", s.protocols(), protocols, func(p Protocol) []string { return []string{string(p)} })
	keptTransports, errTransports := filter("--transports", "transports", s.transports(), transports, func(t Transport) []string { return []string{string(t)} })
	if err := errors.Join(errClients, errFaults, errModes, errProtocols, errTransports); err != nil {
		return err
	}
	s.Clients, s.Faults, s.SchemaModes = keptClients, keptFaults, keptModes
	if len(protocols) > 0 {
		s.Protocols = keptProtocols
	}
	if len(transports) > 0 {
		s.Transports = keptTransports
	}
	return nil
}

// FilterTools narrows the matrix to the named tools, as --tools gives them; an empty list keeps
// every tool, and a tool the scenario does not call is an error naming the flag.
func (s *Scenario) FilterTools(tools []string) error {
	kept, err := filter("--tools", "tools", s.Calls(), tools, func(t Tool) []string { return []string{t.Name} })
	if err == nil && len(tools) > 0 && len(s.Tools) > 0 {
		s.Tools = kept
	}
	return err
}

// filter keeps the items that one of names names; names(item) lists the
// names an item answers to, the one shown in errors first.
func filter[T any](flag, kind string, items []T, wanted []string, names func(T) []string) ([]T, error) {
	if len(wanted) == 0 {
		return items, nil
	}
	var errs []error
	for _, w := range wanted {
		if !slices.ContainsFunc(items, func(it T) bool { return slices.Contains(names(it), w) }) {
			var have []string
			for _, it := range items {
				have = append(have, names(it)[0])
			}
			hint := ""
			if near := Closest(w, have); near != "" {
				hint = fmt.Sprintf("; did you mean %q?", near)
			}
			errs = append(errs, fmt.Errorf("%s %q: not in the scenario%s (%s: %s)", flag, w, hint, kind, strings.Join(have, ", ")))
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	var kept []T
	for _, it := range items {
		if slices.ContainsFunc(names(it), func(n string) bool { return slices.Contains(wanted, n) }) {
			kept = append(kept, it)
		}
	}
	return kept, nil
}
