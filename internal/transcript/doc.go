// Package transcript is the format of a run's transcript (tee.jsonl), apart from the wire that
// writes it: the records, the tee that writes them, the readers, and the questions a grader asks
// of what they read.
//
// A transcript is one [Record] a line: each message's exact bytes and direction
// ([ClientToServer], [ServerToClient]; with the fault selector's [Match] on a target call, what a
// fault changed, and the [HTTPFacts] of its exchange over streamable HTTP), the server's stderr
// ([ServerStderr]), and the proxy's events ([Event]: the negotiation, a fault's decision, the
// server's exit). [NewTee] writes them; the proxy is its one writer, with [EndWithout], which the
// run's executor (package execute) calls when the proxy died before it could record the session's end.
//
// It is read back as [Entry] values by [Read], or by [ReadForGrading], which keeps only what a
// grader reads, in bounded memory. [TargetAnswer], [Negotiated], [FirstUnanswered],
// [HandshakeExit], [ToolsListed] and [TaskFollowed] answer the grader's questions about it. A run
// whose client started the server more than once has a transcript per session beside the first
// ([SessionPath], [CreateSession]); [GradedSession] is the one it is graded on.
//
// Files: tee.go (the records and writing them), read.go ([Read], [Entry.OpenWire], [EndWithout]),
// grading.go ([ReadForGrading]), questions.go (the grader's questions), negotiation.go
// ([Negotiated]), sessions.go (a run's several sessions).
//
// Used by: proxy (which writes it), execute, the runner, grade, replay, repro and the CLI (which read
// it). Uses: fault ([fault.Introduced]), jsonrpc (a message's envelope and id), jsonstream,
// proc, record.
package transcript
