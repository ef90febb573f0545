package runner

import (
	"context"
	"path/filepath"

	"github.com/toolscore/toolscore/internal/replay"
	"github.com/toolscore/toolscore/scenario"
)

// SourceRecording is each run's recording in a previous sweep (toolscore run --replay), played
// by toolscore replay behind a clean proxy, whatever the server was.
const SourceRecording Source = "recording"

func init() { registerSource(SourceRecording, recordingSource{}) }

// recordingSource stands in for the server, whatever it was: no server container, none of its
// variables, and on http none of its network.
type recordingSource struct{}

func (recordingSource) serve(o Options, j Job, self, work string, s *served) {
	s.proxy = o.replayFlags(work)
	recording := filepath.Join(work, recordingFile)
	s.proxy.Command = []string{self, "replay", recording}
	if j.Cell.Transport == scenario.TransportHTTP {
		s.proxy.Listen, s.proxy.Path, s.network = "127.0.0.1:0", replay.HTTPPath, ""
		s.proxy.Command = []string{self, "replay", "--listen", "127.0.0.1:" + scenario.PortPlaceholder, recording}
	}
}

// check has nothing to check: the sweep checks the recordings against its plan.
func (recordingSource) check(context.Context, ServerCheck) (bool, error) { return false, nil }

func (recordingSource) fingerprint(scenario.Server) []any { return nil }
func (recordingSource) uncacheable() string {
	return "a replayed sweep plays recordings, not the server"
}
func (recordingSource) preflighted() bool { return false }

// replaying says whether the sweep plays recordings rather than a server.
func (o Options) replaying() bool { return o.Source() == SourceRecording }
