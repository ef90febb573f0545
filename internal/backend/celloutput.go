package backend

import (
	"errors"
	"io"
	"time"

	"github.com/docker/docker/pkg/stdcopy"
)

// cellOutput reads a cell's attached output as it comes: the cell's stream into the run's
// directory, its stderr kept up to maxOutput. Both docker paths (a fresh container, an exec in a
// held one) read a run through it.
type cellOutput struct {
	read     chan struct{} // closed once the attached output ended
	streamed chan struct{} // closed once the stream is read
	pw       *io.PipeWriter
	stderr   *capped
	end      streamEnd
}

func readCellOutput(attached io.Reader, dir string) *cellOutput {
	pr, pw := io.Pipe()
	o := &cellOutput{read: make(chan struct{}), streamed: make(chan struct{}), pw: pw, stderr: &capped{max: maxOutput}}
	go func() {
		o.end = readStream(pr, dir)
		close(o.streamed)
	}()
	go func() {
		_, _ = stdcopy.StdCopy(pw, o.stderr, attached)
		pw.Close()
		close(o.read)
	}()
	return o
}

// finish waits up to 5 s more for the output to end (a cell stopped at its timeout still sends
// what it wrote), then for the stream, and returns its exit entry.
func (o *cellOutput) finish() streamEnd {
	select {
	case <-o.read:
	case <-time.After(5 * time.Second):
		o.pw.CloseWithError(errors.New("the cell's output did not end"))
	}
	<-o.streamed
	return o.end
}
