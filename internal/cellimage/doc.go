// Package cellimage is what a cell image is made of, apart from any engine: an image's build
// context and the tag that hashes it ([Spec]), the images toolscore builds ([Builtin], [Client],
// [Ready], [Install], [GoAdapter], [Recipe]), the version a client's image pins ([PinOf],
// [DefaultVersion]), and a Go client's adapter built for a pin ([BuildGoAdapter]). The
// Dockerfiles are embedded: images/ holds those of the images that are no client's (built-in,
// a manifest's own client, a ready image, an install step, a Go adapter), templates/ the client
// folders' one per runtime; a folder that brings its own (an agent's, java-sdk's, rmcp's) is
// read from internal/client. The docker backend builds a Spec on its engine (its EnsureImage).
//
// Files: images.go (the spec, its tag, the images), pins.go (version pins), goadapter.go (a Go
// client's adapter), recipe.go (a manifest's own client).
//
// Used by: the runner (package runner), which builds each client's cell image, the CLI's image
// and client commands, and the docker backend. Uses: client (image descriptors),
// client/goadapter, install (recipes).
package cellimage
