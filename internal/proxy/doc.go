// Package proxy is toolscore's wire: an MCP proxy, wrapped around the server under test, that
// relays JSON-RPC both ways, records every byte (the tee), applies the schema mode to tools/list,
// caps the protocol revision the server may show, and applies one fault to the target tool's
// tools/call results, below any SDK; otherwise it is transparent. Each run of a cell has its own
// proxy, a process started as `toolscore proxy [flags] -- SERVER...` (the CLI turns the flags into
// a [Config]), so the client under test talks to the proxy as if it were the server.
//
// A [Config] says what to do to the traffic: the fault (from package fault) and its selector
// (Tool, Probability, Nth, Seed), the [SchemaMode] and the [Protocol] cap. transcript.NewTee
// opens the transcript. Then one of two entry points runs the session and returns the server's exit status:
//
//   - [Run] for stdio: it starts the [Server] command and relays newline-delimited frames
//     between the client's stdin/stdout and the server's, until the server exits.
//   - [RunHTTP] for streamable HTTP: it listens (see [HTTPRun]) and relays to an [Upstream]
//     URL or to a server it starts on a free port ([scenario.PortPlaceholder] in its arguments), with
//     the faults of the HTTP exchange (429, 500, a cut SSE stream, ...) as well.
//
// Both build a [Proxy] with [New] and drive it ([Proxy.ClientToServer], [Proxy.ServerToClient],
// [Proxy.Handler]). A frame that is not a JSON-RPC object is forwarded untouched; a rewritten
// answer keeps every byte the fault does not change.
//
// A fault may answer the call with a task handle (task-handle): the proxy then keeps the
// server's result and serves the tasks requests itself (tasks/get, tasks/result, tasks/list,
// tasks/cancel, tasks/update), in the shape of the session's revision, never forwarding them;
// transcript.TaskFollowed reads back how the client followed the task.
//
// The transcript (tee.jsonl) is one transcript.Record a line: each message's exact bytes and
// direction, the server's stderr, and events (the negotiation, the server's exit). Its format,
// its writer and its readers are package transcript's; the proxy only writes it.
//
// Files: proxy.go (the session and the fault), frame.go (stdio framing), process.go (the stdio
// server process), http.go, http_run.go and sse.go (streamable HTTP), origin.go (the proxy's
// origin in OAuth's URLs), streamorder.go (a session's GET stream ahead of its requests),
// schema.go (schema modes, and the faults of the listing), refserver.go (the loopback listener a schema-ref fault's
// network $ref points at), protocol.go (the revision cap), task.go (the tasks the proxy serves),
// fresh.go and decoy.go (a fresh server instance the proxy asks on its own behalf), keepbytes.go
// (answers that are not UTF-8).
//
// Used by: the CLI's proxy command, the runner (which starts it), the benchmarks. Uses: fault,
// jsonrpc (a frame's envelope), jsonstream, proc, runenv, transcript (which it writes).
package proxy
