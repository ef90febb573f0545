package grade

import (
	"strings"
	"testing"

	"github.com/toolscore/toolscore/internal/transcript"
	"github.com/toolscore/toolscore/record"
)

func TestProtocol(t *testing.T) {
	for _, tc := range []struct {
		name     string
		n        transcript.Negotiation
		outcome  record.Outcome // "" when the handshake decides nothing
		evidence string
	}{
		{"measured", transcript.Negotiation{Protocol: "2025-11-25", Method: "initialize", ClientAsked: "2025-11-25", Version: "2025-11-25"}, "", ""},
		{"server short of the cap", transcript.Negotiation{Protocol: "2026-07-28", Method: "server/discover", ClientAsked: "2026-07-28",
			Unavailable: "the server refused server/discover (-32601 Method not found): it offers no 2026-07-28"},
			record.Unavailable, "protocol 2026-07-28: the server refused server/discover"},
		{"client stops at an older revision", transcript.Negotiation{Protocol: "2024-11-05", Method: "initialize", ClientAsked: "2025-11-25", Version: "2024-11-05"},
			record.Unsupported, "the client asked for 2025-11-25 in initialize, was offered 2024-11-05, and made no call"},
		{"no handshake at all", transcript.Negotiation{Protocol: "as-is"}, "", ""},
		{"the server refused initialize", transcript.Negotiation{Protocol: "as-is", Method: "initialize", ClientAsked: "2025-03-26", Refused: "-32602 Unsupported protocol version"},
			record.HandshakeFailed, "the server refused initialize (-32602 Unsupported protocol version)"},
		{"a refused server/discover, as a 2025-era server refuses it", transcript.Negotiation{Protocol: "as-is", Method: "server/discover", ClientAsked: "2026-07-28", Refused: "-32601 Method not found"},
			"", ""},
		{"the server answered a revision the client left at", transcript.Negotiation{Protocol: "as-is", Method: "initialize", ClientAsked: "2025-03-26", Version: "2025-11-25"},
			record.HandshakeFailed, "the client asked for 2025-03-26 in initialize, the server answered 2025-11-25, and the client went no further"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, ok := Protocol(tc.n, nil)
			if ok != (tc.outcome != "") || g.Outcome != tc.outcome || !strings.Contains(g.Evidence, tc.evidence) {
				t.Errorf("Protocol = %+v, %v; want outcome %q with evidence %q", g, ok, tc.outcome, tc.evidence)
			}
		})
	}
}
