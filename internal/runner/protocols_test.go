package runner

import (
	"slices"
	"testing"

	"github.com/toolscore/toolscore/internal/proxy"
	"github.com/toolscore/toolscore/scenario"
)

// TestProtocolsAgree: every protocol a manifest may name is one the proxy enforces, so a cell's
// protocol never reaches the proxy as an unknown flag value.
func TestProtocolsAgree(t *testing.T) {
	for _, p := range scenario.Protocols() {
		if _, err := proxy.ParseProtocol(string(p)); err != nil {
			t.Errorf("the manifest takes protocol %q, the proxy refuses it: %v", p, err)
		}
	}
	for _, v := range proxy.Revisions {
		if !slices.Contains(scenario.Protocols(), scenario.Protocol(v)) {
			t.Errorf("the proxy enforces revision %s, the manifest does not take it", v)
		}
	}
}
