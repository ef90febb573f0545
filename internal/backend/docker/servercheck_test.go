package docker

import (
	"strings"
	"testing"

	"github.com/toolscore/toolscore/internal/backend"
)

// TestStartFailure: the error names the image, the server's command, its exit status and its
// output, quoted so a hostile server's text cannot reach a terminal raw.
func TestStartFailure(t *testing.T) {
	e := &StartFailure{Image: "acme/time:1", Command: []string{"mcp-server-time", "--tz", "UTC"}, Status: 2, Output: "usage: x\x1b[2J"}
	want := `the server ["mcp-server-time" "--tz" "UTC"] in the image acme/time:1 (server.image) exited with status 2 before it answered initialize; its output ended: "usage: x\x1b[2J"`
	if e.Error() != want {
		t.Errorf("got  %s\nwant %s", e.Error(), want)
	}
	e.HTTP, e.Output = true, ""
	if got := e.Error(); !strings.Contains(got, "before it accepted connections on "+backend.ServerAddr+"; it printed nothing") {
		t.Errorf("over HTTP: %s", got)
	}
}
