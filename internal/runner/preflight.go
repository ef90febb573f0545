package runner

import (
	"github.com/toolscore/toolscore/scenario"
)

// PreflightServer is what the sweep's preflight starts, in its directory work, to list the
// server's tools as a run reaches them: the proxy of a clean stdio cell with the schema as the
// server sends it, around the server a run starts, and the variables it is given; its transcript
// is record.TeeFile in dir. ok is false
// for a source no stdio proxy of a cell starts (a recording, an image, a url, a command serving
// HTTP): the preflight leaves those to the runs.
func (o Options) PreflightServer(dir string) (proxy, env []string, ok bool) {
	if !o.source().preflighted() {
		return nil, nil, false
	}
	calls := o.Scenario.Calls()
	j := Job{Seed: 1, Cell: scenario.Cell{
		Fault:     scenario.Fault{Name: "clean"},
		Schema:    scenario.SchemaAsIs,
		Protocol:  scenario.ProtocolAsIs,
		Transport: scenario.TransportStdio,
		Tool:      scenario.Tool{Name: calls[0].Name}, // no output_schema: as-is publishes none of the manifest's
	}}
	self := o.Backend.Self()
	s := o.serve(j, self, o.Backend.WorkDir(dir))
	return proxyCommand(self, s.proxy), s.env, true
}
