package grade

import (
	"github.com/toolscore/toolscore/internal/transcript"
	"github.com/toolscore/toolscore/record"
)

// OffPath grades a run whose MCP exchange left the recorded endpoint "off-path", with the
// proxy's account as evidence: what the client did with the call there was neither recorded nor
// faulted, so grading it against the wire would blame the client (or the server) by guess.
func OffPath(entries []transcript.Entry) (Grade, bool) {
	for i := range entries {
		if e := &entries[i]; e.Dir == transcript.Event && e.Event == transcript.OffPath {
			return Grade{Outcome: record.OffPath, Evidence: clip(e.Note, maxEvidence)}, true
		}
	}
	return Grade{}, false
}
