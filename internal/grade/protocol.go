package grade

import (
	"fmt"

	"github.com/toolscore/toolscore/internal/transcript"
)

// Outcomes of a run whose handshake kept it from measuring what its cell asks: neither is what
// the client did with a fault, so neither is made into one.
const (
	// Unavailable: the server cannot offer the protocol the cell asks for (the proxy saw it
	// refuse or fall short), so the run measured the client against less than the cell says.
	Unavailable = "unavailable"
	// Unsupported: the client was offered an older revision than it asked for and went no
	// further than the handshake: it does not speak that revision.
	Unsupported = "unsupported"
)

// Protocol grades a run by its handshake alone when the handshake decided it; ok is false when
// the run measured its cell and is graded by what the client did.
func Protocol(n transcript.Negotiation, entries []transcript.Entry) (g Grade, ok bool) {
	if n.Unavailable != "" {
		return Grade{Outcome: Unavailable, Evidence: fmt.Sprintf("protocol %s: %s", n.Protocol, n.Unavailable)}, true
	}
	if req, _ := transcript.TargetAnswer(entries); req == nil && n.Version != "" && n.ClientAsked != "" && n.Version < n.ClientAsked {
		return Grade{Outcome: Unsupported, Evidence: fmt.Sprintf("the client asked for %s in %s, was offered %s, and made no call: it does not speak %s",
			n.ClientAsked, n.Method, n.Version, n.Version)}, true
	}
	return Grade{}, false
}
