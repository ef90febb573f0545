package grade

import (
	"fmt"
	"strings"

	"github.com/toolscore/toolscore/record"
)

// Unread notes on g that the run's transcript could not be read whole (err), so the evidence
// says what the grade rests on. A client that returned a result is not graded altered against
// an answer the transcript may hold in the part that could not be read: that run is crashed,
// with toolscore's own error as the evidence, as a run toolscore could not set up is. A raise
// graded crashed for want of anything on the wire to explain it is threw again: the lost part
// may hold it.
func Unread(g Grade, err error) Grade {
	why := fmt.Sprintf("toolscore could not read the run's transcript whole (%v)", err)
	if g.Outcome == record.Crashed && strings.HasPrefix(g.Evidence, noCall) && g.Observation != nil && g.Observation.Raised != nil {
		// The part that could not be read may hold what the client raised on.
		g.Outcome, g.Evidence = record.Threw, g.Observation.Raised.Class+": "+g.Observation.Raised.Text()
	}
	if g.Outcome == record.Altered && g.Wire == "" && g.WireLarge == nil {
		g.Outcome, g.Evidence = record.Crashed, why+", so what the server answered is unknown; the client returned a result"
	} else if g.Evidence == "" {
		g.Evidence = why
	} else {
		g.Evidence += "; " + why
	}
	g.Evidence = clip(g.Evidence, maxEvidence)
	return g
}
