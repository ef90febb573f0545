package docker

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/docker/docker/api/types"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/pkg/stdcopy"

	"github.com/toolscore/toolscore/internal/backend"
	"github.com/toolscore/toolscore/internal/backend/incell"
	"github.com/toolscore/toolscore/internal/frame"
)

// heldCell is the container a cell's runs execute in, one after the other: started before the
// cell's first run when the runner says which cell comes next (PrepareCell), removed after its
// last (EndCell). Each run is started by the container's first process (incell's hold.go), and ends
// every process it started and clears its files before the next (incell's held.go); a run that could not be ended cleanly (left processes,
// killed at its timeout, out of memory, its stream cut) retires the container, and the cell's
// next run gets a fresh one.
type heldCell struct {
	ready chan struct{} // closed once id, att and err are set
	id    string
	err   error
	// att is the container's attached stdin (each run's request) and stdout (each run's frames).
	att types.HijackedResponse
	// retired is set (under Backend.mu) once no further run may use the container.
	retired bool

	mu  sync.Mutex
	run *cellOutput // the run the frames are for; nil between runs
}

// relay reads the first process's frames and hands each to the run going on; when the output
// ends (the container stopped), so does that run's.
func (h *heldCell) relay() {
	pr, pw := io.Pipe()
	go func() {
		_, err := stdcopy.StdCopy(pw, io.Discard, h.att.Reader)
		pw.CloseWithError(err)
	}()
	br := bufio.NewReaderSize(pr, 64<<10)
	var buf []byte
	for {
		kind, p, err := frame.Read(br, buf, 1<<20)
		buf = p[:0]
		h.mu.Lock()
		o := h.run
		switch {
		case err != nil:
			if o != nil {
				o.pw.Close()
				close(o.read)
				h.run = nil
			}
		case o == nil:
		case kind == incell.FrameStdout:
			_, _ = o.pw.Write(p)
		case kind == incell.FrameStderr:
			_, _ = o.stderr.Write(p)
		case kind == incell.FrameExit:
			if code, err := strconv.Atoi(string(p)); err == nil {
				o.code = code
			}
			o.pw.Close()
			close(o.read)
			h.run = nil
		}
		h.mu.Unlock()
		if err != nil {
			_ = pr.CloseWithError(err)
			return
		}
	}
}

// detach stops handing frames to o (a run that ended without its end frame).
func (h *heldCell) detach(o *cellOutput) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.run == o {
		h.run = nil
	}
}

// PrepareCell starts the held container of the cell whose first run is s, in the background, so
// creating and starting it is off the critical path: the runner calls it as soon as it knows
// the cell comes next. A run with an image server gets no held container.
func (d *Backend) PrepareCell(ctx context.Context, s backend.Spec) {
	if s.Server != nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if h := d.held[s.Cell]; h != nil && !h.retired {
		return
	}
	d.held[s.Cell] = d.startHeld(ctx, s)
}

// EndCell removes the cell's held container, in the background; Close waits for it.
func (d *Backend) EndCell(cell string) {
	d.mu.Lock()
	h := d.held[cell]
	delete(d.held, cell)
	d.mu.Unlock()
	if h != nil {
		d.retire(h)
	}
}

// Close removes every held container still there and waits until they are gone.
func (d *Backend) Close() {
	d.mu.Lock()
	held := d.held
	d.held = map[string]*heldCell{}
	d.mu.Unlock()
	for _, h := range held {
		d.retire(h)
	}
	d.ending.Wait()
}

// startHeld creates and starts a held container for s's cell; the caller holds d.mu.
func (d *Backend) startHeld(ctx context.Context, s backend.Spec) *heldCell {
	h := &heldCell{ready: make(chan struct{})}
	img := d.Images[s.Client]
	go func() {
		defer close(h.ready)
		if img == "" {
			h.err = fmt.Errorf("no image for client %q", s.Client)
			return
		}
		cfg, host := CellConfig(img, d.Sandbox, s)
		// The first process starts each run it is asked for on its stdin (incell's hold.go).
		cfg.Entrypoint, cfg.Cmd = []string{backend.CellBinary, "cell", incell.HoldArg}, nil
		cfg.Env = []string{"TMPDIR=" + backend.CellWorkDir, "HOME=" + backend.CellWorkDir}
		cfg.AttachStdin, cfg.AttachStdout, cfg.AttachStderr, cfg.OpenStdin, cfg.StdinOnce = true, true, true, true, false
		delete(cfg.Labels, LabelRun)
		// Every run of the cell may take its whole timeout.
		runs := max(s.CellRuns, 1)
		cfg.Labels[LabelDeadline] = strconv.FormatInt(time.Now().Add(time.Duration(runs)*(s.Timeout+time.Minute)+5*time.Minute).Unix(), 10)
		cfg.Labels[LabelMarker], cfg.Labels[LabelSession], cfg.Labels[LabelOwner] = "1", d.session, d.owner
		// Started for the sweep, not for one run: a run's cancellation must not leave it half made.
		cctx := context.WithoutCancel(ctx)
		created, err := d.api.ContainerCreate(cctx, cfg, host, nil, nil, "")
		if err != nil {
			h.err = fmt.Errorf("creating the cell container from %s: %w", img, err)
			return
		}
		h.id = created.ID
		// Attached before it starts, so none of its output is missed.
		if h.att, err = d.api.ContainerAttach(cctx, h.id, container.AttachOptions{Stream: true, Stdin: true, Stdout: true, Stderr: true}); err != nil {
			h.err = fmt.Errorf("attaching to the cell: %w", err)
			return
		}
		go h.relay()
		if err := d.api.ContainerStart(cctx, h.id, container.StartOptions{}); err != nil {
			h.err = fmt.Errorf("starting the cell: %w", err)
		}
	}()
	return h
}

// retire takes h out of use and removes its container in the background.
func (d *Backend) retire(h *heldCell) {
	d.mu.Lock()
	h.retired = true
	d.mu.Unlock()
	d.ending.Add(1)
	go func() {
		defer d.ending.Done()
		<-h.ready
		if h.id == "" {
			return
		}
		rctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = d.api.ContainerRemove(rctx, h.id, container.RemoveOptions{Force: true, RemoveVolumes: true})
		if h.att.Conn != nil {
			h.att.Close()
		}
	}()
}

// cellFor is the held container s runs in: its cell's, else one started now.
func (d *Backend) cellFor(ctx context.Context, s backend.Spec) *heldCell {
	d.mu.Lock()
	h := d.held[s.Cell]
	if h == nil || h.retired {
		h = d.startHeld(ctx, s)
		d.held[s.Cell] = h
	}
	d.mu.Unlock()
	return h
}

// runHeld executes one run in its cell's held container: copy the run's inputs in (when it has
// any), ask the container's first process to start the cell command, read the run's frames to
// its end (its files land in the run's directory as they come); at the timeout the container is
// stopped.
func (d *Backend) runHeld(ctx context.Context, s backend.Spec) backend.Result {
	start := time.Now()
	h := d.cellFor(ctx, s)
	select {
	case <-h.ready:
	case <-ctx.Done():
		return backend.Result{Cancelled: true, Err: ctx.Err()}
	}
	if h.err != nil {
		d.retire(h)
		return backend.Result{Err: h.err, Cancelled: ctx.Err() != nil}
	}
	img := d.Images[s.Client]
	cfg, _ := CellConfig(img, d.Sandbox, s)
	_ = os.Remove(filepath.Join(s.Dir, backend.StdoutFile))
	d.mu.Lock()
	prepared := Prepared(d.workdir[img], cfg.User)
	d.mu.Unlock()
	if !prepared || HasFiles(s.Dir) {
		in, err := TarDir(s.Dir)
		if err != nil {
			return backend.Result{Err: err}
		}
		if err := d.api.CopyToContainer(ctx, h.id, "/", in, container.CopyToContainerOptions{}); err != nil {
			d.retire(h)
			return backend.Result{Err: fmt.Errorf("copying the run's inputs in: %w", err), Cancelled: ctx.Err() != nil}
		}
	}
	cmd, cellEnv := incell.Command(s.Command)
	env := append(append(append([]string{}, cellEnv...), s.Env...), incell.EnvCellHeld+"=1")
	req, err := json.Marshal(incell.HoldRequest{Cmd: cmd, Env: env})
	if err != nil {
		return backend.Result{Err: err}
	}
	out := newCellOutput(s.Dir)
	h.mu.Lock()
	h.run = out
	h.mu.Unlock()
	defer h.detach(out)
	if _, err := h.att.Conn.Write(append(req, '\n')); err != nil {
		d.retire(h)
		out.pw.Close()
		return backend.Result{Err: fmt.Errorf("starting the run in its cell: %w", err), Cancelled: ctx.Err() != nil}
	}

	var r backend.Result
	timer := time.NewTimer(s.Timeout)
	defer timer.Stop()
	killed := false
	kill := func() {
		kctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 15*time.Second)
		defer cancel()
		r.CPU = d.cpuTime(kctx, h.id)
		// As a fresh cell is stopped: the run's cell command gets the signal, ends its adapter
		// and sends what the run wrote, then the container goes.
		grace := 3
		_ = d.api.ContainerStop(kctx, h.id, container.StopOptions{Timeout: &grace})
		killed = true
	}
	select {
	case <-out.read:
	case <-timer.C:
		r.TimedOut = true
		kill()
	case <-ctx.Done():
		r.Cancelled = true
		kill()
	}
	end := out.finish()
	h.detach(out) // after which no frame touches out
	r.Took = time.Since(start)
	r.Stdout, r.Stderr = filepath.Join(s.Dir, backend.StdoutFile), out.stderr.Bytes()
	ictx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 15*time.Second)
	defer cancel()
	if out.code >= 0 {
		r.ExitCode = out.code
	}
	if !end.Whole && !killed {
		// The run's cell command died (the OOM killer takes the largest process, which may be
		// it): the container goes, and the engine says whether memory ran out in it.
		waitCh, errCh := d.api.ContainerWait(ictx, h.id, container.WaitConditionNotRunning)
		_ = d.api.ContainerKill(ictx, h.id, "KILL")
		select {
		case <-waitCh:
		case <-errCh:
		}
		killed = true
	}
	if info, err := d.api.ContainerInspect(ictx, h.id); err == nil && info.State != nil {
		r.OOMKilled = info.State.OOMKilled // set once the container has stopped
		if !info.State.Running {
			killed = true
		}
	}
	r.OOMKilled = r.OOMKilled || end.OOM
	switch {
	case end.Left > 0:
		r.Stderr = append(r.Stderr, fmt.Sprintf("\ntoolscore: the run left %d process(es) running in its cell; they were killed, and the cell's next run gets a fresh container", end.Left)...)
	case end.Whole && !end.Clean:
		r.Stderr = append(r.Stderr, "\ntoolscore: the run's files could not all be cleared from its cell; the cell's next run gets a fresh container"...)
	}
	if !end.Whole {
		// The run died before it could send its files (killed, out of memory): take what it left.
		if err := CopyOut(ictx, d.api, h.id, s.Dir); err != nil && r.Err == nil && !r.Cancelled {
			r.Stderr = append(r.Stderr, []byte("\ntoolscore: copying the transcript out: "+err.Error())...)
		}
	}
	if killed || r.OOMKilled || !end.Whole || !end.Clean || end.Left > 0 {
		d.retire(h)
	}
	return r
}
