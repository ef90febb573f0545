package docker

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/docker/docker/api/types"
	"github.com/docker/docker/api/types/build"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/image"
	"github.com/docker/docker/api/types/network"
	"github.com/docker/docker/api/types/volume"
	"github.com/docker/docker/client"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/toolscore/toolscore/internal/backend"
	"github.com/toolscore/toolscore/internal/backend/incell"
)

// engine is the part of the Docker Engine API the backend uses; *client.Client has it, and it
// talks to engines as old as API 1.41 (Debian's docker.io 20.10) through version negotiation.
type engine interface {
	Ping(ctx context.Context) (types.Ping, error)
	ContainerCreate(ctx context.Context, config *container.Config, hostConfig *container.HostConfig, networkingConfig *network.NetworkingConfig, platform *ocispec.Platform, name string) (container.CreateResponse, error)
	CopyToContainer(ctx context.Context, id, dstPath string, content io.Reader, options container.CopyToContainerOptions) error
	CopyFromContainer(ctx context.Context, id, srcPath string) (io.ReadCloser, container.PathStat, error)
	ContainerAttach(ctx context.Context, id string, options container.AttachOptions) (types.HijackedResponse, error)
	ContainerWait(ctx context.Context, id string, condition container.WaitCondition) (<-chan container.WaitResponse, <-chan error)
	ContainerStart(ctx context.Context, id string, options container.StartOptions) error
	ContainerStop(ctx context.Context, id string, options container.StopOptions) error
	ContainerInspect(ctx context.Context, id string) (container.InspectResponse, error)
	ContainerStatsOneShot(ctx context.Context, id string) (container.StatsResponseReader, error)
	ContainerRemove(ctx context.Context, id string, options container.RemoveOptions) error
	ContainerKill(ctx context.Context, id, signal string) error
	ContainerExecCreate(ctx context.Context, id string, options container.ExecOptions) (container.ExecCreateResponse, error)
	ContainerExecAttach(ctx context.Context, execID string, options container.ExecAttachOptions) (types.HijackedResponse, error)
	ContainerExecInspect(ctx context.Context, execID string) (container.ExecInspect, error)
	ContainerList(ctx context.Context, options container.ListOptions) ([]container.Summary, error)
	VolumeList(ctx context.Context, options volume.ListOptions) (volume.ListResponse, error)
	VolumeRemove(ctx context.Context, id string, force bool) error
	ImageBuild(ctx context.Context, buildContext io.Reader, options build.ImageBuildOptions) (build.ImageBuildResponse, error)
	ImageList(ctx context.Context, options image.ListOptions) ([]image.Summary, error)
	ImageRemove(ctx context.Context, id string, options image.RemoveOptions) ([]image.DeleteResponse, error)
}

// Labels every container, volume and image toolscore makes carries.
const (
	LabelMarker   = "io.toolscore"          // "1" on everything of ours
	LabelSession  = "io.toolscore.session"  // the sweep that made it
	LabelOwner    = "io.toolscore.owner"    // that sweep's process, an Owner as JSON
	LabelDeadline = "io.toolscore.deadline" // unix time past which it is a leftover whatever its session
	LabelCell     = "io.toolscore.cell"
	LabelRun      = "io.toolscore.run"
	LabelInputs   = "io.toolscore.inputs" // an image's input hash
)

// cellUID is the user a cell runs as, who owns its work directory.
const cellUID = 1000

// Sandbox is how a cell container is confined; every field is a manifest option a user can
// relax, and the zero value of each means the hardened default.
type Sandbox struct {
	Network string // "none" (loopback only) unless set
	Memory  int64  // bytes; swap is set equal, so no swap
	CPUs    float64
	Pids    int64
	NoFile  int64
	User    string // "1000:1000" unless set
	// KeepCapabilities, when true, does not drop every capability.
	KeepCapabilities bool
}

func (s Sandbox) withDefaults() Sandbox {
	if s.Network == "" {
		s.Network = "none"
	}
	if s.Memory == 0 {
		s.Memory = 1 << 30
	}
	if s.CPUs == 0 {
		s.CPUs = 1
	}
	if s.Pids == 0 {
		s.Pids = 256
	}
	if s.NoFile == 0 {
		s.NoFile = 1024
	}
	if s.User == "" {
		s.User = strconv.Itoa(cellUID) + ":" + strconv.Itoa(cellUID)
	}
	return s
}

// Backend runs each cell's runs in a container of the cell's own (heldcell.go), each run a fresh
// process tree holding the client, the proxy and the server; a run with an image server runs in
// a fresh container of its own.
type Backend struct {
	api     engine
	session string
	owner   string
	Sandbox Sandbox
	// Images maps a client name to the image its cells run in.
	Images map[string]string
	// ServerImage is the image server's image (server.image with the binary layered on).
	ServerImage string

	mu      sync.Mutex
	workdir map[string]string // image tag -> owner of its prepared work directory ("" when none)
	held    map[string]*heldCell
	ending  sync.WaitGroup // held cells being removed
}

// New connects to the engine named by the environment (DOCKER_HOST and friends), and
// pings it: an error means no daemon answered.
func New(ctx context.Context) (*Backend, error) {
	api, err := client.NewClientWithOpts(client.FromEnv, client.WithAPIVersionNegotiation())
	if err != nil {
		return nil, fmt.Errorf("docker client: %w", err)
	}
	pctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	if _, err := api.Ping(pctx); err != nil {
		api.Close()
		return nil, fmt.Errorf("no Docker daemon answered at %s: %w", api.DaemonHost(), err)
	}
	return &Backend{
		api:     api,
		session: strconv.FormatInt(time.Now().UnixNano(), 36) + "-" + strconv.Itoa(os.Getpid()),
		owner:   backend.Self().String(),
		Images:  map[string]string{},
		held:    map[string]*heldCell{},
	}, nil
}

func (d *Backend) Name() string { return "docker" }

// Self is where the toolscore binary is inside every cell.
func (d *Backend) Self() string { return backend.CellBinary }

// WorkDir is the run's directory inside its cell.
func (d *Backend) WorkDir(string) string { return backend.CellWorkDir }

// Session names this sweep's containers.
func (d *Backend) Session() string { return d.session }

// Run executes one run: in its cell's held container, or in a fresh one when it has an image
// server (whose container's network the cell joins, one server a run).
func (d *Backend) Run(ctx context.Context, s backend.Spec) backend.Result {
	if s.Server != nil {
		return d.runFresh(ctx, s)
	}
	return d.runHeld(ctx, s)
}

// runFresh executes one run in a fresh container: create, copy the run's inputs in (when it has
// any), attach, register the wait, start, read the cell's stream to EOF (its files land in the
// run's directory as they come), wait, inspect, copy the files out only when the stream was cut
// short, remove.
func (d *Backend) runFresh(ctx context.Context, s backend.Spec) backend.Result {
	start := time.Now()
	img := d.Images[s.Client]
	if img == "" {
		return backend.Result{Err: fmt.Errorf("no image for client %q", s.Client)}
	}
	cfg, host := CellConfig(img, d.Sandbox, s)
	cfg.Labels[LabelMarker], cfg.Labels[LabelSession], cfg.Labels[LabelOwner] = "1", d.session, d.owner
	if s.Server != nil {
		sid, remove, err := d.startServer(ctx, s)
		defer remove() // after the cell's own removal: the server outlives its client
		if err != nil {
			return backend.Result{Err: err, Cancelled: ctx.Err() != nil}
		}
		host.NetworkMode = container.NetworkMode("container:" + sid)
	}
	created, err := d.api.ContainerCreate(ctx, cfg, host, nil, nil, "")
	if err != nil {
		return backend.Result{Err: fmt.Errorf("creating the cell container from %s: %w", img, err), Cancelled: ctx.Err() != nil}
	}
	id := created.ID
	// Removal must happen even when the sweep is being cancelled, so it gets its own context.
	defer func() {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		_ = d.api.ContainerRemove(rctx, id, container.RemoveOptions{Force: true, RemoveVolumes: true})
	}()
	// Whatever this run's adapter prints, and nothing an earlier sweep into the same directory left.
	_ = os.Remove(filepath.Join(s.Dir, backend.StdoutFile))
	// The copy-in is skipped when there is nothing to copy: the image has the work directory,
	// owned by the user the cell runs as, and the run has no input files.
	d.mu.Lock()
	prepared := Prepared(d.workdir[img], cfg.User)
	d.mu.Unlock()
	if !prepared || HasFiles(s.Dir) {
		in, err := TarDir(s.Dir)
		if err != nil {
			return backend.Result{Err: err}
		}
		if err := d.api.CopyToContainer(ctx, id, "/", in, container.CopyToContainerOptions{}); err != nil {
			return backend.Result{Err: fmt.Errorf("copying the run's inputs in: %w", err), Cancelled: ctx.Err() != nil}
		}
	}
	att, err := d.api.ContainerAttach(ctx, id, container.AttachOptions{Stream: true, Stdin: true, Stdout: true, Stderr: true})
	if err != nil {
		return backend.Result{Err: fmt.Errorf("attaching: %w", err), Cancelled: ctx.Err() != nil}
	}
	defer att.Close()
	waitCh, waitErr := d.api.ContainerWait(context.WithoutCancel(ctx), id, container.WaitConditionNextExit)
	if err := d.api.ContainerStart(ctx, id, container.StartOptions{}); err != nil {
		return backend.Result{Err: fmt.Errorf("starting the cell: %w", err), Cancelled: ctx.Err() != nil}
	}
	_ = att.CloseWrite() // the adapter reads nothing: stdin is closed at once
	out := readCellOutput(att.Reader, s.Dir)

	var r backend.Result
	timer := time.NewTimer(s.Timeout)
	defer timer.Stop()
	stop := func() {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 15*time.Second)
		defer cancel()
		r.CPU = d.cpuTime(sctx, id)
		grace := 2
		_ = d.api.ContainerStop(sctx, id, container.StopOptions{Timeout: &grace})
	}
	select {
	case w := <-waitCh:
		r.ExitCode = int(w.StatusCode)
	case err := <-waitErr:
		r.Err = fmt.Errorf("waiting for the cell: %w", err)
	case <-timer.C:
		r.TimedOut = true
		stop()
	case <-ctx.Done():
		r.Cancelled = true
		stop()
	}
	whole := out.finish().Whole
	r.Took = time.Since(start)
	r.Stdout, r.Stderr = filepath.Join(s.Dir, backend.StdoutFile), out.stderr.Bytes()
	ictx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 15*time.Second)
	defer cancel()
	if info, err := d.api.ContainerInspect(ictx, id); err == nil && info.State != nil {
		r.OOMKilled = info.State.OOMKilled
		if r.TimedOut || r.Cancelled {
			r.ExitCode = info.State.ExitCode
		}
	}
	if whole {
		return r
	}
	// The cell died before it could send its files (killed, out of memory): take what it left.
	if err := CopyOut(ictx, d.api, id, s.Dir); err != nil && r.Err == nil && !r.Cancelled {
		r.Stderr = append(r.Stderr, []byte("\ntoolscore: copying the transcript out: "+err.Error())...)
	}
	return r
}

// cpuTime is the CPU time the cell's processes have used so far, as its cgroup counts it; 0 when
// the engine cannot tell. It is read before a run is stopped: once the cell has exited, its
// cgroup is gone and the engine says 0.
func (d *Backend) cpuTime(ctx context.Context, id string) time.Duration {
	st, err := d.api.ContainerStatsOneShot(ctx, id)
	if err != nil {
		return 0
	}
	defer st.Body.Close()
	var v container.StatsResponse
	if json.NewDecoder(st.Body).Decode(&v) != nil {
		return 0
	}
	return time.Duration(v.CPUStats.CPUUsage.TotalUsage)
}

// CellConfig is the container a run of s executes in: image img, the command of incell.Command
// (its program as the entrypoint, so an image's own ENTRYPOINT never takes it as arguments)
// with the run's environment, confined by sb (a zero field is the hardened default; the spec's
// network, when set, is used over sb's), and labelled with the run's deadline, cell and run.
// Backend.Run creates every cell from it, adding its sweep's labels.
func CellConfig(img string, sb Sandbox, s backend.Spec) (*container.Config, *container.HostConfig) {
	sb = sb.withDefaults()
	if s.Network != "" {
		sb.Network = s.Network
	}
	pids := sb.Pids
	deadline := time.Now().Add(s.Timeout + 2*time.Minute).Unix()
	cmd, cellEnv := incell.Command(s.Command)
	cfg := &container.Config{
		Image:        img,
		Cmd:          cmd,
		Env:          append(append([]string{"TMPDIR=" + backend.CellWorkDir, "HOME=" + backend.CellWorkDir}, cellEnv...), s.Env...),
		WorkingDir:   backend.CellWorkDir,
		User:         sb.User,
		AttachStdin:  true,
		AttachStdout: true,
		AttachStderr: true,
		OpenStdin:    true,
		StdinOnce:    true,
		Tty:          false,
		Labels: map[string]string{
			LabelDeadline: strconv.FormatInt(deadline, 10), LabelCell: s.Cell, LabelRun: strconv.Itoa(s.Run),
		},
	}
	cfg.Entrypoint, cfg.Cmd = Argv(cmd)
	host := &container.HostConfig{
		NetworkMode: container.NetworkMode(sb.Network),
		SecurityOpt: []string{"no-new-privileges"},
		// Everything a cell says comes over its attach connection; the engine's default log
		// driver would also write every byte of it (a run's transcript included) to a file of
		// its own, per line, costing the engine CPU per run and letting a flooding server or
		// client fill the engine's disk.
		LogConfig:  container.LogConfig{Type: "none"},
		AutoRemove: false,
		Resources: container.Resources{
			Memory:     sb.Memory,
			MemorySwap: sb.Memory,
			NanoCPUs:   int64(sb.CPUs * 1e9),
			PidsLimit:  &pids,
			Ulimits:    []*container.Ulimit{{Name: "nofile", Soft: sb.NoFile, Hard: sb.NoFile}},
		},
	}
	if !sb.KeepCapabilities {
		host.CapDrop = []string{"ALL"}
	}
	return cfg, host
}

// Argv splits a command into a container's entrypoint (its program) and command (its
// arguments): set together, the image's own ENTRYPOINT and CMD are both left unread.
func Argv(command []string) (entrypoint, cmd []string) {
	if len(command) == 0 {
		return nil, nil
	}
	return command[:1], command[1:]
}

// Prepared says whether an image's work directory, owned by owner (its LabelWorkdir, "" when
// none), already belongs to user, the cell's: then a run with no input files is not copied in.
func Prepared(owner, user string) bool { return owner != "" && owner == user }

// copierFrom is the part of the Engine API CopyOut uses.
type copierFrom interface {
	CopyFromContainer(ctx context.Context, id, srcPath string) (io.ReadCloser, container.PathStat, error)
}

// CopyOut brings the run directory's files back from the cell id into dir.
func CopyOut(ctx context.Context, api copierFrom, id, dir string) error {
	rc, _, err := api.CopyFromContainer(ctx, id, backend.CellWorkDir+"/.")
	if err != nil {
		return err
	}
	defer rc.Close()
	return ExtractArchive(rc, dir)
}

// ExtractArchive writes the regular files of a tar stream the engine's archive endpoint gave for
// a cell's work directory into dir: only plain names inside it, so a hostile cell cannot write
// elsewhere.
func ExtractArchive(r io.Reader, dir string) error {
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		// Copying "dir/." names entries "./x", relative to dir; copying "dir" names them
		// "dir/x", under the directory's own name.
		name := path.Clean(h.Name)
		if parts := strings.SplitN(name, "/", 2); len(parts) == 2 && !strings.HasPrefix(h.Name, "./") {
			name = parts[1]
		}
		if err := incell.ExtractFile(tr, dir, name); err != nil {
			return err
		}
	}
}

// HasFiles says whether the run's directory holds input files (an unreadable one counts: the
// copy-in will say what is wrong).
func HasFiles(dir string) bool {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return false
	}
	if err != nil {
		return true
	}
	for _, e := range entries {
		if e.Type().IsRegular() {
			return true
		}
	}
	return false
}

// TarDir packs the run's host directory as the cell's work directory, owned by the cell user:
// what the copy-in puts at / of the cell.
func TarDir(dir string) (io.Reader, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	_ = tw.WriteHeader(&tar.Header{Name: "run/", Mode: 0o755, Typeflag: tar.TypeDir})
	_ = tw.WriteHeader(&tar.Header{Name: "run/toolscore/", Mode: 0o755, Typeflag: tar.TypeDir, Uid: cellUID, Gid: cellUID})
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		if err := tw.WriteHeader(&tar.Header{Name: "run/toolscore/" + e.Name(), Mode: 0o644, Size: int64(len(b)), Uid: cellUID, Gid: cellUID, Typeflag: tar.TypeReg}); err != nil {
			return nil, err
		}
		if _, err := tw.Write(b); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return &buf, nil
}
