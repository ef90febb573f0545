package scenario

import (
	"strings"

	"github.com/distribution/reference"
)

// checkServerImage checks server.image: a reference the engine takes, with the command to run in
// it, and no install step (what the server needs belongs in its image).
func (l *loader) checkServerImage(srv Server) {
	if !l.present("server.image") {
		return
	}
	if l.present("server.builtin") {
		return // refused with the builtin
	}
	switch _, err := reference.ParseNormalizedNamed(srv.Image); {
	case strings.TrimSpace(srv.Image) == "":
		l.errorf("server.image", "must not be empty")
	case err != nil:
		l.errorf("server.image", "%q is not an image reference (NAME[:TAG] or NAME@DIGEST): %v", srv.Image, err)
	}
	if !l.present("server.command") {
		l.errorf("server.image", "give server.command too: the server's program and arguments in the image (its entrypoint is not read)")
	}
	if l.present("server.install") {
		l.errorf("server.install", "does not apply to an image server: install the server in its image")
	}
}
