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
	if req, _ := transcript.TargetAnswer(entries); req != nil {
		return Grade{}, false // the call reached the server: the client is graded on its answer
	}
	if n.Version != "" && n.ClientAsked != "" && n.Version < n.ClientAsked {
		return Grade{Outcome: record.Unsupported, Evidence: fmt.Sprintf("the client asked for %s in %s, was offered %s, and made no call: it does not speak %s",
			n.ClientAsked, n.Method, n.Version, n.Version)}, true
	}
	if cutShort(entries, "") != "" {
		// What the client sent after the handshake may be what the transcript lost.
		return Grade{}, false
	}
	switch {
	case n.Refused != "" && n.Method == "initialize":
		// The server said no to the handshake itself: whatever the client raised after, it was
		// never given a session to call the tool in. The server's doing, not a validation. A
		// refused server/discover is not one: a 2025-era server refuses it and the client falls
		// back to initialize, as the spec says it should.
		return Grade{Outcome: record.HandshakeFailed, Evidence: fmt.Sprintf("the server refused %s (%s) and the client made no call: no tool call reached the server",
			n.Method, n.Refused)}, true
	case n.Version != "" && n.ClientAsked != "" && n.Version != n.ClientAsked && !transcript.WentOn(entries):
		// A server that does not speak the revision asked for answers with one it does: a client
		// that does not speak that one stops there (the spec's "SHOULD disconnect"). Neither
		// broke the protocol; the two have no revision in common.
		return Grade{Outcome: record.HandshakeFailed, Evidence: fmt.Sprintf("the client asked for %s in %s, the server answered %s, and the client went no further: "+
			"it does not speak %s, so no tool call reached the server (a protocol mismatch, not a validation)", n.ClientAsked, n.Method, n.Version, n.Version)}, true
	}
	return Grade{}, false
}
