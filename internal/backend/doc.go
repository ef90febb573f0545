// Package backend is where a run executes: a fresh process group on this machine ([Local]),
// or a fresh container ([Docker]). Each run gets its own directory, its own timeout, and
// nothing of it outlives the run. It is the step of the data flow where a run happens; what
// runs (the adapter's command, with the proxy wrapped around the server) is decided upstream,
// and what came of it is graded downstream.
//
// The runner hands a backend one [Spec] a run: the run's directory (its input files in, its
// transcript and the adapter's stdout out, in [StdoutFile]), the adapter's command and
// environment, the timeout, and for a server given as an image a [ServerSpec]. Run returns a
// [Result]: a crash, a timeout, an out-of-memory kill or an adapter that never started is a
// result, not an error. Both backends satisfy the runner's Backend interface.
//
// On docker, the images come first: [NewDocker] connects to the engine, and the runner builds
// each client's cell image with [Docker.EnsureImage] from an [ImageSpec] ([BuiltinImage],
// [ClientImage], [ReadyImage], [GoAdapterImage], [InstallImage]), tagged by a hash of its
// inputs so an image is rebuilt exactly when one changes. [Docker.Run] then starts a container
// of the cell's image, confined as the [Sandbox] says, which runs the adapter under
// `toolscore cell` ([Cell]; toolscore's own adapters do its part themselves, [InCell]): the
// proxy first on the http transport ([Serve]), then the adapter, then the run's files back as
// one tar stream ([ReadStream]). An image server runs in a container of
// its own beside the cell ([ServerConfig]), checked once before the sweep with
// [Docker.CheckServer]. Everything made carries toolscore's labels ([LabelMarker]) and an
// [Owner], so what a killed sweep left can be found and removed.
//
// On the local backend, [Local] starts the adapter in its own process group and kills the
// whole group afterwards; each live group is noted on disk ([GroupDir]) so the next sweep kills
// what a killed runner left ([SweepGroups]).
//
// Files: backend.go ([Spec], [Result]), local.go and groups.go (the local backend), docker.go
// (the docker backend and its sandbox), images.go, pins.go and goadapter.go (cell images,
// their version pins, a Go client's adapter built for a pin), cell.go and serve.go (what runs
// inside a cell), heldcell.go, hold.go and held.go (a cell's container, the first process that
// starts its runs, and how a run ends in it), celloutput.go (a run's output, read on either
// docker path), server.go and servercheck.go (image servers), owner.go (who made what).
//
// Used by: the runner (package runner), which chooses the backend and runs each job on it,
// and the CLI's image, cell and server-check commands. Uses: client (image descriptors),
// client/goadapter, frame, proc, runenv, and the Docker Engine API client.
package backend
