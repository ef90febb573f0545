// Package incell is what runs inside a cell: `toolscore cell` ([Cell]), which runs a run's
// adapter, first serving the server over HTTP on an http cell ([Serve]), then writes the run's
// files back as one tar stream (the cell's stream, [ReadStream] on the other end);
// toolscore's own adapters do that part themselves ([Adapter]). In a held container (the
// docker backend's, one a cell), `toolscore cell --hold` is the first process: it starts each
// run it is asked for ([HoldRequest]), relays its output as frames, and each run ends what it
// left behind before the next ([StreamEnd] says how it went). [ProbeServer] is the check of an
// image server that runs in the server's container.
//
// The stream's format, the hold protocol and the probe's report are defined here, where they
// are written; the docker backend imports them to read them.
//
// Files: cell.go (toolscore cell, the stream), serve.go (an http cell's proxy), hold.go (a held
// container's first process), held.go (how a run ends in a held container), probe.go (the
// server check's probe).
//
// Used by: the commands a sweep starts of toolscore itself (package selfcmd), the docker backend
// and the runner (Serve). Uses: backend (the cell's paths, StdoutFile), frame, proc.
package incell
