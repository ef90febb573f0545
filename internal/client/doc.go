// Package client holds the registry of clients and agents, the contract every adapter keeps, and
// the built-in adapters that drive a real MCP client library (or bare JSON-RPC) against a server
// and report what the library gave back: an observation ([record.Observation]). It is the step of the data flow where a
// run produces its observation.
//
// A client is data: a [Descriptor], registered by name. A client whose library is not Go is a
// folder of clients/ ([ReadFolder]: client.yaml, the adapter and its lockfiles, doc.md); a Go
// client registers with [Register] from an init function in a file of its own (gosdk.go,
// mcpgo.go, raw.go; the agents register from package agent). It says what
// a manifest may call the client ([Descriptor.Paths]: the call straight away, or after tools/list,
// see [CallPaths]), and how a run starts it: in toolscore's own process ([Descriptor.Run], for the
// Go libraries, raw and the agents' adapters) and, for a client that is not Go, in a cell image of
// its own ([Descriptor.Image]; [Descriptor.Command] starts the Node and Python libraries' adapters
// there, and the agents' CLIs are installed there). The manifest loader checks names against
// [Names], [AgentNames] and [Versioned]; the runner resolves a name with [Lookup]; the docker
// backend builds each [Image].
//
// The contract between the runner and every adapter, built in or not, is environment variables in
// ([EnvServer] or [EnvURL], [EnvTool], [EnvArguments], and for an agent [EnvPrompt] and the
// model's) and one JSON observation line out on stdout:
//
//	d, path, ok := client.Lookup("go-sdk/list-then-call") // as a manifest names it
//	r, err := client.RequestFromEnv()                      // what the runner asked
//	obs, err := d.Run(ctx, r, path)                        // one tools/call, through the library
//	json.NewEncoder(os.Stdout).Encode(obs)                 // the observation line
//
// The grader reads it back with [ReadObservation], as a stream, so a result of any size costs no
// copy. An observation holds what the library returned, or what it raised ([record.Raised]), or
// for an agent what it put in front of the model and what it answered ([record.AgentView]).
//
// Adding a client is one folder of clients/ (its image is its runtime's Dockerfile template in
// internal/backend), or, for a Go library, one file holding its Descriptor.
//
// Files: registry.go ([Descriptor], the registry), adapter.go (the contract, [Request]),
// observation.go ([ReadObservation], [Lacks]), raw.go and rawhttp.go (bare JSON-RPC on stdio
// and streamable HTTP: [RawSession], [RawHTTPSession]), gosdk.go and mcpgo.go (the Go libraries,
// through package goadapter), folder.go ([ReadFolders], the client folders of clients/).
//
// Used by: the runner, the backend (cell images), the grader (observations), package agent (its
// descriptors), and the CLI (`toolscore client NAME` runs a built-in adapter). Uses:
// client/goadapter, jsonrpc, jsonstream, proc, record (the observation's types).
package client
