// Package replay is an MCP server that answers a client from a recorded run: the transcript
// (tee.jsonl) the proxy wrote, played back byte for byte, with no server at all. It is how a
// run is repeated exactly, against another client or another version of the same one, and how
// a bug report carries its server along.
//
// [Load] reads a transcript into a [Script]; [Script.Play] then serves it on stdio and
// [Script.Listen] over streamable HTTP at [HTTPPath]. Each message the client sends is matched
// to the first recorded one of the same kind, method and parameters (key order and _meta
// aside); the recorded answer goes out under the live id, and the server's own messages go out
// in the recorded order and with the recorded delays, so a latency fault keeps its delay. Where
// the recorded server exited by itself, the replay ends with its exit status.
//
//	script, warn, err := replay.Load(teePath) // a run's tee.jsonl
//	// warn: records that could not be read (a run cut short); the rest still plays
//	code, err := script.Play(ctx, os.Stdin, os.Stdout, os.Stderr)
//
// A request the recording does not hold gets a JSON-RPC error with code [DivergedCode], and a
// line beginning with [Diverged] on stderr saying what was expected and what came. The grader
// (grade.Replayed) looks for that line among the server's stderr in the replayed run's own
// transcript and grades the run "diverged".
//
// Files:
//   - script.go: [Script] and [Load]: a transcript's records turned into steps to match.
//   - play.go: [Script.Play], the matching and timing shared by both transports, and the
//     divergence answer.
//   - http.go: [Script.Listen]: each answer as a JSON body or an SSE event, as recorded.
//
// Used by: the CLI's `toolscore replay` command, which a replayed sweep (toolscore run
// --replay) starts as the server behind a clean proxy, so the replayed run records a
// transcript of its own; the grader, for [Diverged]. Uses: package transcript to read the
// recording, and jsonrpc to match its messages.
package replay
