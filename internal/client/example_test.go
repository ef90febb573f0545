package client_test

import (
	"fmt"

	_ "github.com/toolscore/toolscore/internal/agent" // the agents register from their own package
	"github.com/toolscore/toolscore/internal/client"
)

// A manifest names a client; the registry resolves the name to the client's descriptor and the
// path the name picks: the library it drives, where it runs, and whether it is an agent.
func ExampleLookup() {
	d, path, ok := client.Lookup("ts-sdk/list-then-call")
	fmt.Println(ok, d.Name, path, "agent:", d.Agent)
	fmt.Println("runs in the image", d.Image.Dir+":", d.Argv(path))

	d, path, _ = client.Lookup("go-sdk/call")
	fmt.Println(d.Name, path, "built into toolscore from", d.Module, "contained:", d.Contained())

	d, _, _ = client.Lookup("claude-code")
	fmt.Println(d.Name, "agent:", d.Agent, "model key in", d.KeyEnv)
	// Output:
	// true ts-sdk list-then-call agent: false
	// runs in the image ts-sdk: [node /opt/adapter/adapter.mjs list-then-call]
	// go-sdk call built into toolscore from github.com/modelcontextprotocol/go-sdk contained: false
	// claude-code agent: true model key in ANTHROPIC_API_KEY
}
