package agent

import (
	"slices"
	"testing"

	"github.com/toolscore/toolscore/internal/client"
)

// TestAgentFolders: every agent folder of internal/client/clients is registered by an adapter of
// this package, and every agent registered is a folder's, so neither half of an agent can be
// added without the other.
func TestAgentFolders(t *testing.T) {
	folders := client.AgentFolders()
	if len(folders) == 0 {
		t.Fatal("no agent folders in internal/client/clients")
	}
	for _, name := range folders {
		d, _, ok := client.Lookup(name)
		if !ok || !d.Agent || d.Run == nil {
			t.Errorf("the agent folder %s has no adapter in internal/agent registering it (client.AgentFolder)", name)
		}
	}
	for _, name := range client.AgentNames() {
		if !slices.Contains(folders, name) {
			t.Errorf("the agent %s is registered from no folder of internal/client/clients", name)
		}
	}
}
