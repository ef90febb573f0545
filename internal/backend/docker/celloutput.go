package docker

import (
	"errors"
	"io"
	"time"

	"github.com/docker/docker/pkg/stdcopy"

	"github.com/toolscore/toolscore/internal/backend"
	"github.com/toolscore/toolscore/internal/backend/incell"
)

// cellOutput reads a cell's output as it comes: the cell's stream into the run's directory, its
// stderr kept up to MaxOutput. Both docker paths (a fresh container's attached output, a held
// one's frames) read a run through it.
type cellOutput struct {
	read     chan struct{} // closed once the attached output ended
	streamed chan struct{} // closed once the stream is read
	pw       *io.PipeWriter
	stderr   *backend.Capped
	end      incell.StreamEnd
	// code is the run's exit status as the held container's first process saw it (-1: unknown).
	code int
}

func readCellOutput(attached io.Reader, dir string) *cellOutput {
	o := newCellOutput(dir)
	go func() {
		_, _ = stdcopy.StdCopy(o.pw, o.stderr, attached)
		o.pw.Close()
		close(o.read)
	}()
	return o
}

// newCellOutput reads a run's stream, written to o.pw, into dir; whoever feeds it closes o.read
// once the run's output has ended.
func newCellOutput(dir string) *cellOutput {
	pr, pw := io.Pipe()
	o := &cellOutput{read: make(chan struct{}), streamed: make(chan struct{}), pw: pw, stderr: &backend.Capped{Max: backend.MaxOutput}, code: -1}
	go func() {
		o.end = incell.ReadStreamEnd(pr, dir)
		close(o.streamed)
	}()
	return o
}

// finish waits up to 5 s more for the output to end (a cell stopped at its timeout still sends
// what it wrote), then for the stream, and returns its exit entry.
func (o *cellOutput) finish() incell.StreamEnd {
	select {
	case <-o.read:
	case <-time.After(5 * time.Second):
		o.pw.CloseWithError(errors.New("the cell's output did not end"))
	}
	<-o.streamed
	return o.end
}
