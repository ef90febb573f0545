package runner

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/toolscore/toolscore/internal/backend/docker"
	"github.com/toolscore/toolscore/internal/backend/local"
	"github.com/toolscore/toolscore/internal/cellimage"
	"github.com/toolscore/toolscore/internal/install"
	"github.com/toolscore/toolscore/report"
	"github.com/toolscore/toolscore/scenario"
)

// ErrUnknownBackend is a backend name ChooseBackend does not know: a usage error.
var ErrUnknownBackend = errors.New("unknown backend")

// Choice is where a sweep's runs execute, and what comes with it.
type Choice struct {
	Backend Backend
	// Why says why this backend, for the log and the report.
	Why string
	// Unavailable are the clients that cannot run here, by ID, each with the reason.
	Unavailable map[string]string
	// Adapters are the adapters built for Go clients' version pins, by client ID: the command
	// that runs one on this backend (see Options.Adapters).
	Adapters map[string]string
	// Installed are the folders of the install cache the local backend runs clients from, by
	// client ID (see Options.Installed): each named by its recipe's key before anything is
	// installed in it, so the cells' keys are known first. Installs makes them.
	Installed map[string]string
	// Installs installs them, each only for a client with a cell to run (Install, and a run's
	// own check before it starts); nil on docker.
	Installs *Installs
	// Done cleans up once the sweep is over, and says if it left anything behind.
	Done func()
	// Fingerprints say what each client that can run will run as, by client ID: its cell
	// image (a tag made from its inputs), its install (a key made from its files' bytes), its
	// built Go adapter's SHA-256, or toolscore's own adapter. A resume compares them.
	Fingerprints map[string]string
	// ClientFiles are, for each client the manifest defines, the SHA-256 of each file its
	// install copies (install.Recipe.Digests), by client ID: the cells' keys hold them beside
	// the install's key, so a cell run again can say which file changed.
	ClientFiles map[string]map[string]string
}

// ChooseBackend picks where runs execute: the named backend; for "" docker when a daemon
// answers and local otherwise; for "auto" (the action's) docker or nothing, so a server under
// test never runs beside the runner by surprise. It builds no client's cell image and installs
// no client: Choice.ReadyForChecks builds the image the server's checks run in, Choice.Install
// the others with a cell to run, Installs.Ready any before its first run.
// self is the toolscore binary; what it does is logged to log.
func ChooseBackend(ctx context.Context, name, self string, sc *scenario.Scenario, log io.Writer) (Choice, error) {
	// Whatever the backend, the process groups of local runs whose runner was killed go first.
	if n, err := local.SweepGroups(); err != nil {
		fmt.Fprintln(log, "toolscore:", err)
	} else if n > 0 {
		fmt.Fprintf(log, "killed %d process group(s) left by runs whose toolscore was killed\n", n)
	}
	onHost := local.Backend{Binary: self}
	localOnly := LocalUnavailable(sc)
	clients := Clients(sc)
	localAdapters := func() map[string]string {
		adapters := map[string]string{}
		for _, c := range clients {
			if path, ok := goAdapter(ctx, c, localOnly, log); ok {
				adapters[c.ID()] = path
			}
		}
		return adapters
	}
	localChoice := func(why string) (Choice, error) {
		adapters := localAdapters()
		installs, err := planInstalls(sc, clients, localOnly, log)
		if err != nil {
			return Choice{}, err
		}
		return Choice{Backend: onHost, Why: why, Unavailable: localOnly, Adapters: adapters, Installed: installs.dirs, Installs: installs, Done: func() {},
			Fingerprints: fingerprints(clients, localOnly, nil, installs.dirs, adapters), ClientFiles: clientFiles(clients, localOnly)}, nil
	}
	switch name {
	case "local":
		return localChoice("asked for with --backend local")
	case "docker", "", "auto":
	default:
		return Choice{}, fmt.Errorf("%w %q (known: docker, local)", ErrUnknownBackend, name)
	}
	d, images, unavailable, adapters, done, err := dockerBackend(ctx, self, sc, clients, log)
	if err == nil {
		why := "asked for with --backend docker"
		if name != "docker" {
			why = "a Docker daemon answered"
		}
		return Choice{Backend: d, Why: why, Unavailable: unavailable, Adapters: adapters, Installs: images, Done: done, Fingerprints: fingerprints(clients, unavailable, d.Images, nil, adapters),
			ClientFiles: clientFiles(clients, unavailable)}, nil
	}
	if _, manifest := errors.AsType[*scenario.Error](err); name != "" || manifest {
		return Choice{}, err
	}
	return localChoice("no Docker backend: " + err.Error())
}

// clientFiles is Choice.ClientFiles of clients, less the unavailable ones. A client whose files
// cannot be read has none: its install's key, in its fingerprint, still keys its cells.
func clientFiles(clients []Client, unavailable map[string]string) map[string]map[string]string {
	out := map[string]map[string]string{}
	for _, c := range clients {
		l := c.Descriptor.Local
		if _, skip := unavailable[c.ID()]; skip || !c.Descriptor.Manifest || l == nil || l.Recipe.Files == nil {
			continue
		}
		if d, err := l.Recipe.Digests(); err == nil {
			out[c.ID()] = d
		}
	}
	return out
}

// fingerprints is Choice.Fingerprints of clients, less the unavailable ones: on docker images
// holds each client's image tag (its Go adapter built in); on local installed its install
// folder (named by its key) and adapters the Go adapters built for version pins.
func fingerprints(clients []Client, unavailable, images, installed, adapters map[string]string) map[string]string {
	out := map[string]string{}
	for _, c := range clients {
		id := c.ID()
		if _, skip := unavailable[id]; skip {
			continue
		}
		switch {
		case images[id] != "":
			out[id] = "image " + images[id]
		case installed[id] != "":
			out[id] = "install " + filepath.Base(installed[id]) + outsideFiles(c, installed[id])
		case adapters[id] != "":
			out[id] = "go adapter sha256:" + fileDigest(adapters[id])
		default:
			out[id] = "toolscore's own adapter"
		}
	}
	return out
}

// outsideFiles names the files the command of a client the manifest defines, installed in
// dir, runs from outside its install, each with its SHA-256: an adapter named by its absolute
// path, or a program found on PATH (a script of the user's, an interpreter). The install's key
// is of the manifest's folder, so an edit to such a file would otherwise leave the client's
// fingerprint, its cells' keys and a resume's check as they were. A file that file reads or
// starts in turn is not followed.
//
// A program named without a / is looked up on PATH whether or not the install has one of that
// name (the run starts the install's own first: a venv's python3): the fingerprint is then the
// same before the client is installed as after, which it must be, as the cells' keys are made
// before any install (a sweep installs only the clients with a cell to run) and a resume
// compares it with the one the sweep started with. The PATH's program is what an install's own
// of that name was made from (a venv's python3 is the interpreter that made it), or, at worst,
// a file whose edit re-runs cells that did not need it.
func outsideFiles(c Client, dir string) string {
	l := c.Descriptor.Local
	if !c.Descriptor.Manifest || l == nil || len(l.Command) == 0 {
		return ""
	}
	var b strings.Builder
	argv := l.Argv("", dir, c.ID(), "")
	if !strings.ContainsRune(l.Command[0], '/') {
		argv[0] = l.Command[0] // not the install's own (Argv's install.LookBin): see above
	}
	for i, w := range argv {
		if i == 0 && !strings.ContainsRune(w, '/') {
			found, err := exec.LookPath(w)
			if err != nil {
				continue // the run cannot start it, and says so
			}
			w = found
		}
		if !filepath.IsAbs(w) {
			continue // an argument, not a file named from anywhere
		}
		if rel, err := filepath.Rel(dir, w); err == nil && filepath.IsLocal(rel) {
			continue // the install's own: its key covers it
		}
		if info, err := os.Stat(w); err != nil || !info.Mode().IsRegular() {
			continue
		}
		fmt.Fprintf(&b, "; %s sha256:%.16s", w, fileDigest(w))
	}
	return b.String()
}

// fileDigest is the SHA-256 of the file at path, in hex, or what kept it from being read.
func fileDigest(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return "unreadable: " + err.Error()
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "unreadable: " + err.Error()
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Installs are what a sweep's clients run from: on local their installs, on docker their cell
// images. Each install's folder is named by its recipe's key, and each image by the hash of
// its inputs (cellimage.Spec.Tag), both known without making anything: so are the clients'
// fingerprints and their cells' keys, and the cell cache is looked up first. A client is
// installed (or its install checked whole, install.Ensure), or its image built (or found),
// only once a cell of it is to run: a sweep whose cells all come from the cache makes none,
// but on docker the image the server's checks run in (ForChecks).
type Installs struct {
	sc      *scenario.Scenario
	root    string // local: the install cache's folder
	log     io.Writer
	images  bool     // docker's cell images, not installs
	clients []Client // in the manifest's order, those with something to make
	dirs    map[string]string
	// make makes client id's install or image, or checks it is there: fresh says it made it.
	make map[string]func(ctx context.Context) (fresh bool, err error)

	mu      sync.Mutex
	done    map[string]error // the clients ensured, with what came of it
	skipped map[string]bool  // the clients Install left out, every cell of each in the cache
}

// Said are the clients the sweep installed (or found installed and checked), or whose image it
// built (or found), and those it left out, every cell of each in the cell cache and none run
// after all, in the manifest's order: what the results say of it (tally.Results.Installed).
func (in *Installs) Said() (installed, notInstalled []string) {
	if in == nil {
		return nil, nil
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	for _, c := range in.clients {
		err, done := in.done[c.ID()]
		switch {
		case done && err == nil:
			installed = append(installed, c.ID())
		case !done && in.skipped[c.ID()]:
			notInstalled = append(notInstalled, c.ID())
		}
	}
	return installed, notInstalled
}

// planInstalls makes the sweep's Installs: every client that runs from the install cache with
// its recipe and folder, nothing installed. A client whose recipe cannot be read is marked
// unavailable, with the reason; one the manifest defines is the manifest's error instead
// (sc.InstallError), and nothing runs.
func planInstalls(sc *scenario.Scenario, clients []Client, unavailable map[string]string, log io.Writer) (*Installs, error) {
	in := newInstalls(sc, log)
	for _, c := range clients {
		if c.Descriptor.Local == nil {
			continue
		}
		if _, out := unavailable[c.ID()]; out {
			continue
		}
		if in.root == "" {
			var err error
			if in.root, err = install.Root(); err != nil {
				return nil, err
			}
		}
		r, err := LocalRecipe(c)
		var key string
		if err == nil {
			key, err = r.Key()
		}
		if err != nil {
			if c.Descriptor.Manifest {
				return nil, sc.InstallError(c.Client, err)
			}
			unavailable[c.ID()] = err.Error()
			fmt.Fprintf(log, "client %s is unavailable: %s\n", report.Plain(c.ID()), report.Plain(err.Error()))
			continue
		}
		id, dir := c.ID(), filepath.Join(in.root, key)
		in.clients = append(in.clients, c)
		in.dirs[id] = dir
		in.make[id] = func(ctx context.Context) (bool, error) {
			got, fresh, err := install.Ensure(ctx, in.root, id, r, log)
			if err == nil && got != dir {
				err = fmt.Errorf("installed into %s, not %s as its recipe's key said", got, dir)
			}
			return fresh, err
		}
	}
	return in, nil
}

func newInstalls(sc *scenario.Scenario, log io.Writer) *Installs {
	return &Installs{sc: sc, log: log, dirs: map[string]string{}, make: map[string]func(context.Context) (bool, error){},
		done: map[string]error{}, skipped: map[string]bool{}}
}

// ensure installs client id, or checks its install whole, once for the sweep (install.Ensure,
// which also keeps its state for the check before each run), or builds its cell image; later
// calls return what came of the first. fresh says whether this call made it.
func (in *Installs) ensure(ctx context.Context, id string) (fresh bool, err error) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if err, done := in.done[id]; done {
		return false, err
	}
	fresh, err = in.make[id](ctx)
	if ctx.Err() == nil {
		in.done[id] = err
	}
	return fresh, err
}

// Ready makes sure the install client id runs from is there and whole, or its cell image
// built, before a run of it starts: a client the sweep's first pass (Install) left out, every
// cell of it in the cell cache, is installed now that one of its cells runs after all (its
// entry damaged, or the server answering otherwise). A client with no install has nothing to do.
func (in *Installs) Ready(ctx context.Context, id string) error {
	if in == nil || in.make[id] == nil {
		return nil
	}
	_, err := in.ensure(ctx, id)
	return err
}

// ForChecks makes sure the server's checks (its start, the preflight, the cell cache's replay)
// can run in client id's cell: on docker they run in its image, which is built for them; on
// local they run on the host and need no install.
func (in *Installs) ForChecks(ctx context.Context, id string) error {
	if in == nil || !in.images {
		return nil
	}
	return in.Ready(ctx, id)
}

// Made says whether a check of the server may run in client id's cell: on docker, whether its
// image was built (or found) this sweep; on local, where the checks run on the host, always.
func (in *Installs) Made(id string) bool {
	if in == nil || !in.images || in.make[id] == nil {
		return true
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	err, done := in.done[id]
	return done && err == nil
}

// Install installs the clients of the sweep that run from the install cache, or builds the
// cell images of those on docker, that need says have a cell to run (Options.ClientsToRun; nil
// needs every one), and says on the log which were installed already, and which it left out
// because none of their cells is to run. A client that cannot be installed, or whose image
// cannot be built, is marked unavailable, with the reason, and loses its fingerprint; one the
// manifest defines is the manifest's error instead (sc.InstallError), and nothing runs.
func (c Choice) Install(ctx context.Context, need map[string]bool) error {
	in := c.Installs
	if in == nil {
		return nil
	}
	var already, skipped []string
	for _, cl := range in.clients {
		id := cl.ID()
		if _, out := c.Unavailable[id]; out {
			continue
		}
		if run, has := need[id]; need != nil && !run {
			in.mu.Lock()
			_, made := in.done[id] // for the server's checks (ReadyForChecks): not left out
			if has && !made {
				skipped = append(skipped, id)
				in.skipped[id] = true
			}
			in.mu.Unlock()
			continue
		}
		fresh, err := in.ensure(ctx, id)
		if err == nil && !fresh {
			already = append(already, id)
		}
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if _, step := errors.AsType[*install.StepError](err); cl.Descriptor.Manifest && (step || !in.images) {
				// A manifest's own client that does not install is the manifest's error.
				return in.sc.InstallError(cl.Client, err)
			}
			c.Unavailable[id] = err.Error()
			delete(c.Fingerprints, id)
			fmt.Fprintf(in.log, "client %s is unavailable: %s\n", report.Plain(id), report.Plain(err.Error()))
		}
	}
	if len(already) > 0 && !in.images {
		fmt.Fprintf(in.log, "installed already, nothing to install: %s (in %s)\n", report.Plain(strings.Join(already, ", ")), in.root)
	}
	if len(skipped) > 0 {
		what := "not installed"
		if in.images {
			what = "no cell image built"
		}
		fmt.Fprintf(in.log, "%s, every cell of it is in the cell cache: %s\n", what, report.Plain(strings.Join(skipped, ", ")))
	}
	return nil
}

// ReadyForChecks makes the cell image of the first client that can run, on docker, where the
// server's checks (its start, the preflight, the cell cache's replay) run in it: before the
// cell cache is looked up, which needs the preflight's plan. A client whose image cannot be
// built is unavailable, and the next one's is made. Nothing on local.
func (c Choice) ReadyForChecks(ctx context.Context, sc *scenario.Scenario) error {
	if c.Installs == nil || !c.Installs.images {
		return nil
	}
	for _, cl := range sc.Clients {
		id := cl.ID()
		if _, out := c.Unavailable[id]; out {
			continue
		}
		if err := c.Install(ctx, map[string]bool{id: true}); err != nil {
			return err
		}
		if _, out := c.Unavailable[id]; !out {
			return nil
		}
	}
	return nil
}

// LocalRecipe is what installs the client on this machine: its recipe at the manifest's version
// or the one its image pins, with its image directory's files (adapter and lockfiles) unless
// the recipe brings its own.
func LocalRecipe(c Client) (install.Recipe, error) {
	d := c.Descriptor
	version := c.Version
	if version == "" {
		version = cellimage.DefaultVersion(d.Image)
	}
	r := d.Local.VersionedRecipe(version, c.Version != "")
	if r.Files == nil && d.Contained() {
		files, err := cellimage.ImageFS(d.Image)
		if err != nil {
			return r, err
		}
		r.Files = files
	}
	return r, nil
}

// LocalUnavailable lists the clients of sc the local backend cannot run, each with the reason,
// before any Go adapter is built (a Go client at a version pin may still fail to build: see
// cellimage.GoCommand). toolscore clients says the same, so it cannot disagree with a sweep.
func LocalUnavailable(sc *scenario.Scenario) map[string]string {
	out := MissingKeys(sc)
	for _, c := range Clients(sc) {
		switch d := c.Descriptor; {
		case d.Local != nil:
			if m := install.Missing(d.Local.Runtime); m != "" {
				out[c.ID()] = m
			}
		case d.Contained():
			out[c.ID()] = "needs the docker backend: its library lives in a cell image"
		}
	}
	imageServerUnavailable(sc, false, out)
	return out
}

// DockerUnavailable lists the clients of sc the docker backend cannot run whatever its images,
// each with the reason; a client whose image does not build is added to them by the sweep.
func DockerUnavailable(sc *scenario.Scenario) map[string]string {
	out := MissingKeys(sc)
	imageServerUnavailable(sc, true, out)
	return out
}

// goAdapter builds the adapter of a Go client with a version pin, and returns its path; a
// client it cannot build for is marked unavailable, with the reason. ok is false for every
// other client.
func goAdapter(ctx context.Context, c Client, unavailable map[string]string, log io.Writer) (string, bool) {
	d := c.Descriptor
	if d.Module == "" || c.Version == "" {
		return "", false
	}
	if _, out := unavailable[c.ID()]; out {
		return "", false
	}
	start := time.Now()
	path, err := cellimage.BuildGoAdapter(ctx, d.Module, c.Version, io.Discard)
	if err != nil {
		unavailable[c.ID()] = err.Error()
		fmt.Fprintf(log, "client %s is unavailable: %s\n", report.Plain(c.ID()), report.Plain(err.Error()))
		return "", false
	}
	if since := time.Since(start); since > time.Second {
		fmt.Fprintf(log, "built the adapter of %s in %s\n", report.Plain(c.ID()), since.Round(time.Second))
	}
	return path, true
}

// dockerBackend connects, sweeps what dead sweeps left, and plans the cell image of every
// client of the scenario (clients, resolved): its tag, the hash of its inputs, is known without
// building it, and the images (Installs) build it only for a client with a cell to run
// (Choice.Install, Installs.Ready), or whose cell the server's checks run in (ReadyForChecks).
// A ready image the manifest names is pulled now, as its ID is one of the inputs. done sweeps
// again and says if this sweep left anything behind.
func dockerBackend(ctx context.Context, self string, sc *scenario.Scenario, clients []Client, log io.Writer) (*docker.Backend, *Installs, map[string]string, map[string]string, func(), error) {
	bin, err := cellimage.StaticBinary(self)
	if err != nil {
		return nil, nil, nil, nil, nil, err
	}
	d, err := docker.New(ctx)
	if err != nil {
		return nil, nil, nil, nil, nil, err
	}
	if n, err := d.Sweep(ctx, false); err != nil {
		return nil, nil, nil, nil, nil, err
	} else if n > 0 {
		fmt.Fprintf(log, "removed %d container(s) and volume(s) left by sweeps that are over\n", n)
	}
	d.Sandbox = sandbox(sc)
	unavailable := DockerUnavailable(sc)
	if sc.Server.Kind() == scenario.ServerImage {
		if d.ServerImage, err = serverImage(ctx, d, sc.Server.Image, bin, log); err != nil {
			return nil, nil, nil, nil, nil, err
		}
	}
	// Clients that share an image (the built-in ones, two versions of none) plan it once: each
	// plan hashes the whole binary.
	type made struct {
		layers []layer
		err    error
	}
	planned := map[string]made{}
	adapters := map[string]string{}
	images := newInstalls(sc, log)
	images.images = true
	for _, c := range clients {
		adapter, isGo := goAdapter(ctx, c, unavailable, log)
		if _, out := unavailable[c.ID()]; out {
			continue
		}
		key := c.Image + "|" + c.Version + "|" + c.Descriptor.Image.Dir + "|" + adapter
		if c.Descriptor.Manifest {
			key = "defined|" + c.Name
		}
		m, ok := planned[key]
		if !ok {
			m.layers, m.err = cellImage(ctx, d, c, sc.Server.Install, bin, adapter)
			planned[key] = m
		}
		if isGo {
			adapters[c.ID()] = cellimage.GoAdapterPath
		}
		if m.err != nil {
			// A client whose image cannot be planned is reported as unavailable, with the reason.
			unavailable[c.ID()] = m.err.Error()
			fmt.Fprintf(log, "client %s is unavailable: %s\n", report.Plain(c.ID()), report.Plain(m.err.Error()))
			continue
		}
		d.Images[c.ID()] = m.layers[len(m.layers)-1].tag
		images.clients = append(images.clients, c)
		images.make[c.ID()] = func(ctx context.Context) (bool, error) { return buildImage(ctx, d, c, m.layers, log) }
	}
	done := func() {
		d.Close() // the cells' held containers, before any leftover is counted
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		if n, err := d.RemoveMine(cctx); err == nil && n > 0 {
			fmt.Fprintf(log, "toolscore: removed %d container(s) of this sweep that were still there\n", n)
		}
		_, _ = d.Sweep(cctx, false)
	}
	return d, images, unavailable, adapters, done, nil
}

// layer is one image of the stack a client's cell image is built as, each FROM the one before.
type layer struct {
	spec cellimage.Spec
	tag  string
	what string // recipe, server, or "" for the client's own image
}

// cellImage plans the image a client's cells run in, and returns its layers, the last one the
// cell image: the client's own image (the one toolscore builds, or the ready one the manifest
// names, with the binary layered on; for a Go client at a version pin, the built-in image with
// the adapter at path goAdapter layered on; for a client the manifest defines, its recipe's),
// with the command server's install step layered on when there is one. Nothing is built.
func cellImage(ctx context.Context, d *docker.Backend, c Client, serverInstall string, bin []byte, goAdapter string) ([]layer, error) {
	var layers []layer
	add := func(s cellimage.Spec, what string) error {
		tag, err := s.Tag()
		if err == nil {
			layers = append(layers, layer{s, tag, what})
		}
		return err
	}
	spec, recipe, err := cellimage.ImageFor(ctx, c.Descriptor, c.Image, c.Version, bin, d.ImageID)
	if err != nil {
		return nil, err
	}
	if recipe {
		// The manifest's image, when it names one, is the base the client's folder and steps go on.
		if err := add(spec, "recipe"); err != nil {
			return nil, err
		}
	}
	if len(layers) == 0 {
		if err := add(spec, ""); err != nil {
			return nil, err
		}
		if goAdapter != "" {
			adapter, err := os.ReadFile(goAdapter)
			if err == nil {
				err = add(cellimage.GoAdapter(layers[0].tag, adapter), "")
			}
			if err != nil {
				return nil, err
			}
		}
	}
	if serverInstall != "" {
		if err := add(cellimage.Install(layers[len(layers)-1].tag, serverInstall), "server"); err != nil {
			return nil, err
		}
	}
	return layers, nil
}

// buildImage builds the layers of client c's cell image (cellImage) that are not there yet,
// and says which it built on log; fresh says it built any. An install step of a manifest's
// client that fails is the manifest's error, at the client's install, with the step's last
// lines of output.
func buildImage(ctx context.Context, d *docker.Backend, c Client, layers []layer, log io.Writer) (fresh bool, err error) {
	for _, l := range layers {
		start := time.Now()
		var build bytes.Buffer
		var out io.Writer
		if l.what == "recipe" {
			out = &build
		}
		_, built, err := d.EnsureImage(ctx, l.spec, out)
		switch {
		case err != nil && ctx.Err() != nil:
			return fresh, ctx.Err()
		case err != nil && l.what == "recipe":
			return fresh, cellimage.RecipeStepError(c.Descriptor.Local.Recipe, build.String(), err)
		case err != nil && l.what == "server":
			return fresh, fmt.Errorf("installing the server on %s (server.install): %w", l.spec.Args["BASE_IMAGE"], err)
		case err != nil:
			return fresh, err
		case built && l.what == "server":
			fmt.Fprintf(log, "installed the server on %s for %s in %s\n", l.tag, report.Plain(c.ID()), time.Since(start).Round(time.Second))
		case built:
			fmt.Fprintf(log, "built %s for %s in %s\n", l.tag, report.Plain(c.ID()), time.Since(start).Round(time.Second))
		}
		fresh = fresh || built
	}
	return fresh, nil
}

// MissingKeys lists the clients whose real model has no key in this environment: they cannot
// run, and say why.
func MissingKeys(sc *scenario.Scenario) map[string]string {
	out := map[string]string{}
	for _, c := range Clients(sc) {
		if c.Model == nil {
			continue
		}
		if env := c.KeyEnv(); os.Getenv(env) == "" {
			out[c.ID()] = "its model needs an API key in " + env + ", which is not set"
		}
	}
	return out
}

// sandbox is the manifest's relaxation of the cell hardening, if any.
func sandbox(sc *scenario.Scenario) docker.Sandbox {
	s := sc.Sandbox
	return docker.Sandbox{Network: s.Network, Memory: s.Memory << 20, CPUs: s.CPUs, Pids: s.Pids, NoFile: s.NoFile, User: s.User, KeepCapabilities: s.KeepCapabilities}
}

// Options are the options of a sweep of p on the chosen backend, with what provisioning made
// filled in (the backend, its adapters and installs, the clients that cannot run here); the
// caller adds where the output goes and how the server is given.
func (c Choice) Options(p Plan) Options {
	p.Unavailable = c.Unavailable
	return Options{Plan: p, Backend: c.Backend, BackendWhy: c.Why, Adapters: c.Adapters, Installed: c.Installed, Installs: c.Installs, ClientFiles: c.ClientFiles}
}

// Image is the cell image client id's runs start from, "" on a backend that runs no images.
func (c Choice) Image(id string) string {
	if d, ok := c.Backend.(*docker.Backend); ok {
		return d.Images[id]
	}
	return ""
}

// CheckImageServer starts sc's server.image once as its runs will, with env its variables; a
// backend that runs no images has nothing to check. A server that exits before it listens is
// setup, its error naming the image, its exit status and its last output with secrets masked
// (the server's output is hostile text).
func (c Choice) CheckImageServer(ctx context.Context, sc *scenario.Scenario, env, secrets []string) (setup bool, err error) {
	d, ok := c.Backend.(*docker.Backend)
	if !ok {
		return false, nil
	}
	err = d.CheckServer(ctx, sc.Server.Image, ImageServer(sc, env), sc.Timeout.Std())
	if failed, ok := errors.AsType[*docker.StartFailure](err); ok {
		for _, s := range secrets {
			if s != "" {
				failed.Output = strings.ReplaceAll(failed.Output, s, "[masked]")
			}
		}
		return true, errors.New(report.Plain(failed.Error()))
	}
	return false, err
}

// ServerCheck is what the pre-run checks of sc's server are given on this backend, with auth a
// url server's Authorization and checked the checks done so far.
func (c Choice) ServerCheck(sc *scenario.Scenario, auth string, checked map[string]bool) ServerCheck {
	return ServerCheck{Backend: c.Backend, Scenario: sc, Auth: auth, Unavailable: c.Unavailable, Made: c.Installs.Made, Image: c.Image,
		CheckImage: func(ctx context.Context, env, secrets []string) (bool, error) {
			return c.CheckImageServer(ctx, sc, env, secrets)
		}, Checked: checked}
}
