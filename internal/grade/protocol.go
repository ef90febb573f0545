package grade

import (
	"fmt"

	"github.com/toolscore/toolscore/internal/transcript"
	"github.com/toolscore/toolscore/record"
)

// Protocol grades a run by its handshake alone when the handshake decided it; ok is false when
// the run measured its cell and is graded by what the client did.
func Protocol(n transcript.Negotiation, entries []transcript.Entry) (g Grade, ok bool) {
	if n.Unavailable != "" {
		return Grade{Outcome: record.Unavailable, Evidence: fmt.Sprintf("protocol %s: %s", n.Protocol, n.Unavailable)}, true
	}
	if req, _ := transcript.TargetAnswer(entries); req == nil && n.Version != "" && n.ClientAsked != "" && n.Version < n.ClientAsked {
		return Grade{Outcome: record.Unsupported, Evidence: fmt.Sprintf("the client asked for %s in %s, was offered %s, and made no call: it does not speak %s",
			n.ClientAsked, n.Method, n.Version, n.Version)}, true
	}
	return Grade{}, false
}
