// Package docker is the docker backend: each cell's runs in a container of its own, confined as
// the [Sandbox] says. [New] connects to the engine, and the runner builds each client's cell
// image on it with [Backend.EnsureImage] from a cellimage.Spec. [Backend.Run] runs a run in its
// cell's held container (heldcell.go), whose first process, toolscore cell --hold (package
// incell), starts each run and reports how it ended; a run with an image server runs in a fresh
// container ([CellConfig]) beside the server's ([ServerConfig]), checked once before the sweep
// with [Backend.CheckServer]. A run's files come back as the cell's stream (celloutput.go).
// Everything made carries toolscore's labels ([LabelMarker]) and the sweep's backend.Owner, so
// what a killed sweep left can be found and removed ([Backend.Sweep]).
//
// Files: docker.go (the backend, the sandbox, a fresh container's run), heldcell.go (a cell's
// held container), celloutput.go (a run's output, read on either path), images.go (building
// and listing images), cleanup.go (what a sweep left), server.go and servercheck.go (image
// servers).
//
// Used by: the runner (package runner), the CLI's image and server-check commands, and the
// benchmarks. Uses: backend (Spec, Result, the cell's paths, Owner), incell (the cell's side of
// the stream and of the held container), cellimage (what an image is made of), frame, and the
// Docker Engine API client.
package docker
