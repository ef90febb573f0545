// Package fault holds the faults toolscore applies to a target tool's tools/call result on the
// wire. Each fault is one small file: a struct of its settings with JSON tags and one Apply
// method, registered by name (the shape of toxiproxy's toxics).
//
// A [Fault] is made by name from the manifest's options with [New] (which copies the template
// given to [Register] and decodes the options into it; a bad option is an [*OptionError]).
// The proxy then hands it each target call as a [Call] (the tool, its arguments, the server's
// result decoded with json.Number, the tool's outputSchema when [UsesSchema], a seeded Rand),
// and puts the returned [Effect] on the wire instead of the server's answer: a new result, a
// JSON-RPC error, a delay, and the values the fault made up ([Introduced]), which the
// transcript keeps for the grader.
//
//	f, err := fault.New("latency", json.RawMessage(`{"latency":"150ms"}`))
//	eff, err := f.Apply(ctx, &fault.Call{Tool: "get_account_balance", Result: result, Rand: r})
//
// The faults of the HTTP exchange (http-429, http-500, session-expired, sse-cut,
// slow-first-byte) also implement [HTTPFault]: their [HTTPEffect] changes the exchange that
// carries the call, so they mean something on streamable HTTP only ([Transport] says which).
//
// Adding a fault is one file: its settings struct, a doc comment saying in one sentence what
// it does to the answer, an Apply method, and an init that calls [Register]; [Names],
// [Options] and [Check] then list it and check its options for the manifest loader and CLI.
//
// Files: fault.go (the interface, the registry, options), result.go (helpers that read and
// rewrite a result's content blocks), schema.go (what the schema faults read from an
// outputSchema), http.go (the HTTP faults' interface), and one file per fault, named after it.
//
// Used by: package proxy (which applies faults), package transcript (which records [Introduced]),
// package grade (which reads it),
// and the CLI (the registry, for the manifest loader and the proxy's flags). Uses nothing of
// toolscore's own.
package fault
