// Package grade turns one run (what the adapter reported, and what the transcript shows went
// over the wire) into an outcome with its evidence: the step between observations and counts.
// It is pure: it reads what a finished run left and runs nothing.
//
// A run is graded once it has ended and its transcript has been read back (with
// transcript.ReadForGrading): package execute hands [Input] (the run, its transcript and, for a
// replayed run, its recording) to [Input.Grade], which tries these in order:
//
//  1. [Replayed], for a run played against a recording: "diverged" when its client left the
//     recording (the replayer's own line on the server's stderr says where). One that kept to
//     it is graded on by the steps below with the recording's negotiation and the values its
//     answer's fault introduced, which the replay's clean proxy cannot know.
//  2. [OffPath]: "off-path" when the HTTP proxy saw the MCP exchange leave the endpoint it
//     records and faults (a redirect it does not follow, MCP sent to another path): what the
//     client did there is no one's finding.
//  3. [Protocol]: "unavailable" or "unsupported" when the handshake alone decided the run, so
//     it measured less than its cell asks; "handshake-failed" when no tool call reached the
//     server because the server refused initialize or answered a revision the client does
//     not speak and the client went no further.
//  4. [SDK] for an SDK-level client, or [Agent] for an agent: what the client did with the
//     answer on the wire. SDK compares the adapter's observation (package client) with the
//     answer the proxy sent, by digest, so an answer of any size costs no copy:
//     [record.Passed], [record.Altered], [record.Threw], [record.RPCError], [record.Hung],
//     [record.Crashed], [record.OOM], [record.ServerExited]. Agent adds [record.Rejected] and
//     [record.NoCall], the kind of the model's view, and the final answer graded by
//     [GradeAnswer] against the scenario's truth and the values the fault introduced.
//
// A run whose transcript was cut short before the call's answer (the runner's "no-server-exit"
// event) is then [record.Unobserved] in place of an outcome that answer would decide (cut.go):
// toolscore's failure, never the client's. [Unread] then notes when the transcript could not be
// read whole. Each gives a [Grade]: the
// outcome, one line of evidence, the answer's wire bytes (or an excerpt of a large one), and
// for an agent the model's view and the answer's grade. Package execute embeds it in the
// run's record, which the runner writes to runs.jsonl. The grade and its outcomes are package record's ([record.Outcomes]
// lists every outcome a run can get).
//
// Files: input.go ([Input] and the order above), grade.go ([Grade], [SDK] and the comparison),
// agent.go ([Agent], [GradeAnswer]), protocol.go ([Protocol]), replay.go ([Replayed]), offpath.go ([OffPath]), cut.go (a transcript cut short),
// unread.go ([Unread]), listing.go (the notes on a network $ref fetched and on a hung run's CPU
// time).
//
// Used by: package execute, which grades every run of a sweep and of check-client. Uses: record
// (the grade, its outcomes and the observation it holds), transcript (the transcript, never the
// proxy that wrote it), jsonrpc, client (reading the observation), jsonstream, replay (the
// divergence line).
package grade
