// Package backend is what every side of where a run executes shares: the run a backend is
// handed ([Spec], with a [ServerSpec] for a server given as an image) and what came of it
// ([Result]; a crash, a timeout, an out-of-memory kill or an adapter that never started is a
// result, not an error), the file of the adapter's stdout ([StdoutFile]), the cell's paths
// ([CellBinary], [CellWorkDir]) and image server's address ([ServerAddr]) that the docker
// backend, the images and the cell's own side agree on, the writers that keep a bounded part of
// a run's output ([Capped], [LastBytes]), and who made what ([Owner]), so what a killed sweep
// left can be found and removed on either backend. It is the step of the data flow where a run
// happens; what runs (the adapter's command, with the proxy wrapped around the server) is
// decided upstream, and what came of it is graded downstream.
//
// The backends and their parts are packages of their own below it: backend/local (a fresh
// process group on this machine), backend/docker (a cell's own container), backend/incell (what
// runs inside a cell), and internal/cellimage the cell images. Both backends satisfy the
// runner's Backend interface, defined where it is used.
//
// Files: backend.go (the shared types), owner.go (who made what).
//
// Used by: the runner, execute, the backends and the CLI. Uses: record (StdoutFile).
package backend
