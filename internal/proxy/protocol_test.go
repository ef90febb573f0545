package proxy

import (
	"testing"

	"github.com/toolscore/toolscore/internal/transcript"
)

// TestNegotiatedNamesNoCapAsTheProxyDoes: package transcript spells the proxy's name for no
// protocol cap itself (it imports no proxy), for a transcript whose start event names none.
func TestNegotiatedNamesNoCapAsTheProxyDoes(t *testing.T) {
	if got := transcript.Negotiated(nil).Protocol; got != string(AsIsProtocol) {
		t.Errorf("a transcript naming no protocol reads back as %q, want the proxy's %q", got, AsIsProtocol)
	}
}
