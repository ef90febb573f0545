package grade

import (
	"bytes"
	"strings"

	"github.com/toolscore/toolscore/internal/replay"
	"github.com/toolscore/toolscore/internal/transcript"
	"github.com/toolscore/toolscore/record"
)

// Replayed grades a run played against a recording (toolscore run --replay) by its divergence
// alone, when it diverged: the evidence is the replayer's own account, from the server's stderr
// in the transcript. Only a replayed run may be graded so: there the replayer is the only
// server, so nothing else writes that stderr.
func Replayed(entries []transcript.Entry) (Grade, bool) {
	for i := range entries {
		e := &entries[i]
		if e.Dir == transcript.ServerStderr && bytes.HasPrefix(e.Wire, []byte(replay.Diverged)) {
			line := strings.TrimSpace(string(e.Wire[len(replay.Diverged):]))
			return Grade{Outcome: record.Diverged, Evidence: clip("the client left the recording: "+line, maxEvidence)}, true
		}
	}
	return Grade{}, false
}
