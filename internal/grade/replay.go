package grade

import (
	"bytes"
	"strings"

	"github.com/toolscore/toolscore/internal/proxy"
	"github.com/toolscore/toolscore/internal/replay"
	"github.com/toolscore/toolscore/record"
)

// Replayed grades a run played against a recording (toolscore run --replay) by its divergence
// alone, when it diverged: the evidence is the replayer's own account, from the server's stderr
// in the transcript. Only a replayed run may be graded so: there the replayer is the only
// server, so nothing else writes that stderr.
func Replayed(transcript []proxy.Entry) (Grade, bool) {
	for i := range transcript {
		e := &transcript[i]
		if e.Dir == proxy.ServerStderr && bytes.HasPrefix(e.Wire, []byte(replay.Diverged)) {
			line := strings.TrimSpace(string(e.Wire[len(replay.Diverged):]))
			return Grade{Outcome: record.Diverged, Evidence: clip("the client left the recording: "+line, maxEvidence)}, true
		}
	}
	return Grade{}, false
}
