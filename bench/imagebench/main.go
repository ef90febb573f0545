// Command imagebench measures the cell images (issue 5): building every one from cold, from
// cache and for a new binary, and what each adapter costs per run over a bare container of its
// image.
//
//	go run ./bench/imagebench [-runs 10] [-stream=true] [-keep] [-timeout 15m]
//
// Part 1, building. It compiles the static toolscore binary into a temporary directory
// (CGO_ENABLED=0 go build -o $TMP/toolscore ./cmd/toolscore) and a second one that differs
// only in its version string (-ldflags=-X main.version=bench2), then times
//
//	cold        every toolscore/cell-* tag removed first through the Engine API (ImageRemove of
//	            each tag with PruneChildren, so their untagged parents, the npm and pip layers
//	            among them, go too; the base images are tagged and stay), then
//	            $TMP/toolscore images build
//	            (an image a container of another session still uses is removed by id once it
//	            is free; an image the cold build finds built anyway, because another session
//	            sharing the engine built it meanwhile, is removed and built once more, and its
//	            figure taken from that second command, marked *)
//	warm        $TMP/toolscore images build again: every image must be "up to date" (found by
//	            its input hash, nothing built)
//	new binary  $TMP/toolscore-bench2 images build: every image must be built again, reusing
//	            every layer below the binary's
//
// The command prints `TAG built in D` or `TAG up to date` per image; an image's seconds here
// are the time from the previous line (the first: from the command's start) to its line. Which
// layers a build made anew is read from the image's history afterwards: a step whose layer is
// older than the build's start was reused. With -stream (the default) a third binary
// (main.version=bench3) is built into images in this process with docker.Backend.EnsureImage, the
// builder's stream captured, and its "Using cache" lines counted per image; then
// $TMP/toolscore-bench3 images build must find every one of them up to date (the same specs as
// the command's). The images of the bench2 and bench3 binaries are removed at the end.
//
// Part 2, per-run overhead. For each adapter (raw, ts-sdk/call, ts-client-v2/call,
// python-sdk/call, mcp-go/call), in turn: one untimed bare run, half of the bare runs, the
// sweep
//
//	$TMP/toolscore run --backend docker --clients NAME --faults clean --schema hidden --runs 10
//	     --parallel 1 --out $TMP/sweep-N
//
// and the other half of the bare runs. A run's time is runs.jsonl's ms (the backend's Took:
// container create to the end of the cell's output); a bare run is, through the Engine API,
// create {Image, Cmd, HostConfig{NetworkMode: none}}, wait (next-exit), start, the exit, remove;
// its time is create to the exit, the same span, and the remove is reported beside it. The bare
// command is /bin/true on the node and python images; the built-in image is scratch, so there
// it is /opt/toolscore/toolscore version.
//
// Containers this program creates carry the label io.toolscore.bench=<session> (not
// io.toolscore) and are removed by id. Images: only toolscore/cell-* tags (cold) and the images
// of this program's bench2/bench3 binaries are removed; never the base images, never a prune.
package main

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/api/types/image"
	"github.com/docker/docker/client"

	"github.com/toolscore/toolscore/bench/internal/enginebench"
	"github.com/toolscore/toolscore/internal/backend"
	"github.com/toolscore/toolscore/internal/backend/docker"
	"github.com/toolscore/toolscore/internal/cellimage"
	// The agents register themselves as clients, with their cell images.
	_ "github.com/toolscore/toolscore/internal/agent"
	tsclient "github.com/toolscore/toolscore/internal/client"
)

const cellPrefix = "toolscore/cell-"

// The adapters of part 2, in order.
var adapters = []string{"raw", "ts-sdk/call", "ts-client-v2/call", "python-sdk/call", "mcp-go/call"}

type config struct {
	runs   int
	stream bool
	keep   bool
}

func main() {
	var c config
	flag.IntVar(&c.runs, "runs", 10, "runs per adapter sweep, and bare runs per image")
	flag.BoolVar(&c.stream, "stream", true, "also build a third binary's images in-process with docker.Backend.EnsureImage and count the stream's \"Using cache\" lines")
	flag.BoolVar(&c.keep, "keep", false, "keep the temporary directory (its path is printed)")
	timeout := flag.Duration("timeout", 15*time.Minute, "give up (and stop everything started) after this long")
	flag.Parse()
	if c.runs < 2 {
		fmt.Fprintln(os.Stderr, "imagebench: -runs must be at least 2")
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	if err := run(ctx, c); err != nil {
		fmt.Fprintln(os.Stderr, "imagebench:", err)
		cancel()
		os.Exit(1)
	}
}

type bench struct {
	cfg  config
	api  *client.Client
	sess *enginebench.Session // the containers this program created
	tmp  string
	root string // the module's directory
	// extraTags are the image tags of the bench2/bench3 binaries, removed at the end.
	extraTags []string
}

func run(ctx context.Context, c config) error {
	t0 := time.Now()
	fmt.Printf("$ %s\n", enginebench.CommandLine("./bench/imagebench"))
	enginebench.DefaultBaseImages()
	api, sv, err := enginebench.Connect(ctx)
	if err != nil {
		return err
	}
	defer api.Close()
	fmt.Printf("go %s %s/%s, %d CPUs; Docker Engine %s (API %s, negotiated %s, %s/%s) at %s; load average %s\n",
		strings.TrimPrefix(runtime.Version(), "go"), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(),
		sv.Version, sv.APIVersion, api.ClientVersion(), sv.Os, sv.Arch, api.DaemonHost(), enginebench.LoadAvg())
	bases, err := enginebench.DescribeBases(ctx, api, enginebench.BaseImages[:2]) // node and python: the five images it builds
	if err != nil {
		return err
	}
	builtinBase := "scratch"
	if v := os.Getenv("TOOLSCORE_BASE_IMAGE"); v != "" {
		builtinBase = v
	}
	fmt.Printf("base images: %s; builtin on %s\n", bases, builtinBase)

	tmp, cleanup, err := enginebench.TempDir("imagebench-", c.keep)
	if err != nil {
		return err
	}
	defer cleanup()
	b := &bench{cfg: c, api: api, sess: enginebench.NewSession(api), tmp: tmp}
	defer b.sess.RemoveLeft()
	defer b.removeExtraImages()
	if b.root, err = enginebench.ModuleRoot(ctx); err != nil {
		return err
	}

	bin1, err := enginebench.BuildToolscore(ctx, b.root, b.tmp, "toolscore", "")
	if err != nil {
		return err
	}
	bin2, err := enginebench.BuildToolscore(ctx, b.root, b.tmp, "toolscore-bench2", "bench2")
	if err != nil {
		return err
	}
	bin3 := ""
	if c.stream {
		if bin3, err = enginebench.BuildToolscore(ctx, b.root, b.tmp, "toolscore-bench3", "bench3"); err != nil {
			return err
		}
	}

	tags, err := b.partBuild(ctx, bin1, bin2, bin3)
	if err != nil {
		return err
	}
	if err := b.partOverhead(ctx, bin1, tags); err != nil {
		return err
	}
	fmt.Printf("\ntook %.0f s; load average %s\n", time.Since(t0).Seconds(), enginebench.LoadAvg())
	return nil
}

// ============================== part 1: building ==============================================

// buildLine is one line of `toolscore images build`.
type buildLine struct {
	tag, name string
	built     bool
	state     string        // as printed: "built in 1.2s" or "up to date"
	took      time.Duration // since the previous line, or the command's start
}

type buildRun struct {
	start time.Time
	wall  time.Duration
	lines map[string]buildLine // by image name
	err   error
	log   string // stderr
}

// imagesBuild runs `BIN images build`, noting when each line arrives.
func (b *bench) imagesBuild(ctx context.Context, bin string) buildRun {
	r := buildRun{lines: map[string]buildLine{}}
	cmd := exec.CommandContext(ctx, bin, "images", "build")
	cmd.Dir = b.tmp
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		r.err = err
		return r
	}
	r.start = time.Now()
	if err := cmd.Start(); err != nil {
		r.err = err
		return r
	}
	prev := r.start
	sc := bufio.NewScanner(out)
	var bad []string
	for sc.Scan() {
		now := time.Now()
		line := strings.TrimSpace(sc.Text())
		tag, state, ok := strings.Cut(line, " ")
		name := imageName(tag)
		if !ok || name == "" || (state != "up to date" && !strings.HasPrefix(state, "built in ")) {
			bad = append(bad, line)
			continue
		}
		r.lines[name] = buildLine{tag: tag, name: name, built: state != "up to date", state: state, took: now.Sub(prev)}
		prev = now
	}
	err = cmd.Wait()
	r.wall = time.Since(r.start)
	r.log = stderr.String()
	switch {
	case err != nil:
		r.err = fmt.Errorf("%s images build: %v\n%s", bin, err, enginebench.Tail(stderr.Bytes(), 3000))
	case len(bad) > 0:
		r.err = fmt.Errorf("%s images build printed %q, want `TAG built in D|up to date`", bin, bad)
	}
	return r
}

// imageName is builtin for toolscore/cell-builtin:0123..., "" for any other tag.
func imageName(tag string) string {
	repo, _, ok := strings.Cut(tag, ":")
	if !ok || !strings.HasPrefix(repo, cellPrefix) {
		return ""
	}
	return strings.TrimPrefix(repo, cellPrefix)
}

// imageNames are the images `toolscore images build` makes, sorted as it makes them.
func imageNames() []string {
	names := []string{"builtin"}
	for _, im := range tsclient.Images() {
		names = append(names, im.Dir)
	}
	slices.Sort(names)
	return names
}

// baseOf is the image the cell image named is built on ("" for scratch).
func baseOf(name string) string {
	if name == "builtin" {
		return os.Getenv("TOOLSCORE_BASE_IMAGE")
	}
	for _, im := range tsclient.Images() {
		if im.Dir == name && im.BaseEnv != "" {
			return os.Getenv(im.BaseEnv)
		}
	}
	return ""
}

// removal is what making the engine cold did.
type removal struct {
	tags, images, deleted int
	errs                  []string
	// waited are images still there after their tags' removal, because a container of
	// another session used them (the engine refuses the tag, or untags and keeps the image):
	// each was removed by id, with PruneChildren, once no container used it.
	waited []string
}

// removeCellImages removes every toolscore/cell-* tag (of the images named only, when given),
// each with PruneChildren: when a tag is an image's last, the image and its untagged parents
// go. An image that stays because a container of another session uses it is removed by id,
// with PruneChildren, once no container uses it, waiting up to wait in all.
func (b *bench) removeCellImages(ctx context.Context, only []string, wait time.Duration) (removal, error) {
	var r removal
	ims, err := b.api.ImageList(ctx, image.ListOptions{})
	if err != nil {
		return r, fmt.Errorf("listing images: %w", err)
	}
	var ids []string
	refused := map[string][]string{} // image id: the tag removals the engine refused
	for _, im := range ims {
		cell, other := 0, 0
		for _, t := range im.RepoTags {
			if n := imageName(t); n == "" || (only != nil && !slices.Contains(only, n)) {
				other++
				continue
			}
			cell++
			r.tags++
			res, err := b.api.ImageRemove(ctx, t, image.RemoveOptions{PruneChildren: true})
			if err != nil {
				refused[im.ID] = append(refused[im.ID], fmt.Sprintf("%s: %v", t, err))
				continue
			}
			for _, d := range res {
				if d.Deleted != "" {
					r.deleted++
				}
			}
		}
		if cell > 0 {
			r.images++
			if other == 0 {
				ids = append(ids, im.ID)
			}
		}
	}
	deadline := time.Now().Add(wait)
	for _, id := range ids {
		if _, err := b.api.ImageInspect(ctx, id); err != nil {
			continue // gone
		}
		how := "untagged but kept"
		if len(refused[id]) > 0 {
			how = "its tag refused"
		}
		t0 := time.Now()
		most := 0
		for {
			cs, err := b.api.ContainerList(ctx, container.ListOptions{All: true, Filters: filters.NewArgs(filters.Arg("ancestor", id))})
			most = max(most, len(cs))
			if err == nil && len(cs) == 0 {
				res, err := b.api.ImageRemove(ctx, id, image.RemoveOptions{PruneChildren: true})
				if err == nil || client.IsErrNotFound(err) {
					for _, d := range res {
						if d.Deleted != "" {
							r.deleted++
						}
					}
					r.waited = append(r.waited, fmt.Sprintf("%s (%s: %d container(s) of another session used it) removed by id after %.0f s",
						enginebench.ShortID(id), how, most, time.Since(t0).Seconds()))
					delete(refused, id)
					break
				}
			}
			if time.Now().After(deadline) {
				r.waited = append(r.waited, fmt.Sprintf("%s (%s: %d container(s) of another session use it) still there after %.0f s: its build below is not cold",
					enginebench.ShortID(id), how, most, time.Since(t0).Seconds()))
				break
			}
			select {
			case <-ctx.Done():
				return r, ctx.Err()
			case <-time.After(time.Second):
			}
		}
	}
	for _, e := range refused {
		r.errs = append(r.errs, e...)
	}
	slices.Sort(r.errs)
	return r, nil
}

// layerReuse reads an image's history: its steps above the base, and how many of them are
// older than start (reused from cache); first is the first step made anew, oldest first.
type reuse struct {
	steps, reused int
	first         string
	// contiguous: every reused step lies below every new one (a cache chain is a prefix).
	contiguous bool
}

func (b *bench) layerReuse(ctx context.Context, tag, base string, start time.Time) (reuse, error) {
	var r reuse
	h, err := b.api.ImageHistory(ctx, tag)
	if err != nil {
		return r, fmt.Errorf("history of %s: %w", tag, err)
	}
	nBase := 0
	if base != "" {
		bh, err := b.api.ImageHistory(ctx, base)
		if err != nil {
			return r, fmt.Errorf("history of %s: %w", base, err)
		}
		nBase = len(bh)
	}
	if len(h) < nBase {
		return r, fmt.Errorf("%s has a shorter history than its base %s", tag, base)
	}
	steps := h[:len(h)-nBase] // newest first
	r.steps = len(steps)
	r.contiguous = true
	sawNew := false
	for i := len(steps) - 1; i >= 0; i-- {
		s := steps[i]
		if s.Created < start.Unix() {
			r.reused++
			if sawNew {
				r.contiguous = false
			}
			continue
		}
		if !sawNew {
			r.first = describeStep(s.CreatedBy)
		}
		sawNew = true
	}
	return r, nil
}

// describeStep shortens a history entry's CreatedBy to its instruction.
func describeStep(s string) string {
	s = strings.TrimSpace(strings.TrimPrefix(s, "/bin/sh -c #(nop) "))
	s = strings.Join(strings.Fields(s), " ")
	if i := strings.Index(s, "COPY file:"); i >= 0 {
		// COPY file:<sha> in /dst
		if j := strings.Index(s, " in "); j > i {
			return "COPY file:" + s[i+10:min(i+22, j)] + "… in " + strings.TrimSpace(s[j+4:])
		}
	}
	if len(s) > 60 {
		s = s[:59] + "…"
	}
	return s
}

type caseResult struct {
	head  string
	bin   string
	runs  []buildRun           // the command, and for cold a retry of some images
	lines map[string]buildLine // per image, from the run that counts for it
	start map[string]time.Time // that run's start
	use   map[string]reuse     // the layers of the images built
	retry []string             // cold: the images whose figures come from the retry
}

// take records run's lines (of the images named, or all) as the case's.
func (cr *caseResult) take(ctx context.Context, b *bench, r buildRun, names []string) error {
	for _, n := range names {
		l, ok := r.lines[n]
		if !ok {
			return fmt.Errorf("%s: images build printed no line for %s", cr.head, n)
		}
		cr.lines[n], cr.start[n] = l, r.start
		delete(cr.use, n)
		if l.built {
			u, err := b.layerReuse(ctx, l.tag, baseOf(n), r.start)
			if err != nil {
				return err
			}
			cr.use[n] = u
		}
	}
	return nil
}

// notCold names the images a cold build found (up to date, or with layers reused): another
// session sharing the engine built them, or their layers, between the removal and the build.
func (cr *caseResult) notCold(names []string) []string {
	var out []string
	for _, n := range names {
		if !cr.lines[n].built || cr.use[n].reused > 0 {
			out = append(out, n)
		}
	}
	return out
}

func (b *bench) partBuild(ctx context.Context, bin1, bin2, bin3 string) (map[string]string, error) {
	names := imageNames()
	fmt.Println()
	fmt.Printf("== 1. building the %d cell images (%s) with `images build` ==\n", len(names), strings.Join(names, ", "))

	cold := func(only []string) error {
		rm, err := b.removeCellImages(ctx, only, 90*time.Second)
		if err != nil {
			return err
		}
		fmt.Printf("cold: removed %d toolscore/cell-* tag(s) of %d image(s) by ImageRemove(tag, PruneChildren): %d image(s) and parent(s) deleted",
			rm.tags-len(rm.errs), rm.images, rm.deleted)
		if len(rm.errs) > 0 {
			fmt.Printf("; %d could not be removed: %s", len(rm.errs), strings.Join(rm.errs, "; "))
		}
		fmt.Println()
		for _, s := range rm.waited {
			fmt.Printf("      image %s\n", s)
		}
		return nil
	}

	cases := []*caseResult{
		{head: "cold", bin: bin1}, {head: "warm", bin: bin1}, {head: "new binary", bin: bin2},
	}
	for _, cr := range cases {
		cr.lines, cr.start, cr.use = map[string]buildLine{}, map[string]time.Time{}, map[string]reuse{}
		if cr.head == "cold" {
			if err := cold(nil); err != nil {
				return nil, err
			}
		}
		r := b.imagesBuild(ctx, cr.bin)
		if r.err != nil {
			return nil, fmt.Errorf("%s: %w", cr.head, r.err)
		}
		cr.runs = append(cr.runs, r)
		if err := cr.take(ctx, b, r, names); err != nil {
			return nil, err
		}
		fmt.Printf("%-10s $TMP/%s images build: %d lines, %d built, %.1f s\n", cr.head, filepath.Base(cr.bin),
			len(r.lines), countBuilt(r), r.wall.Seconds())
		if cr.head == "cold" {
			if nc := cr.notCold(names); len(nc) > 0 {
				fmt.Printf("cold: %s found built (up to date, or layers reused): another session sharing the engine built them meanwhile; once more for them:\n",
					strings.Join(nc, ", "))
				if err := cold(nc); err != nil {
					return nil, err
				}
				r := b.imagesBuild(ctx, cr.bin)
				if r.err != nil {
					return nil, fmt.Errorf("cold, again: %w", r.err)
				}
				cr.runs = append(cr.runs, r)
				if err := cr.take(ctx, b, r, nc); err != nil {
					return nil, err
				}
				cr.retry = nc
				fmt.Printf("%-10s $TMP/%s images build: %d lines, %d built, %.1f s\n", "cold again", filepath.Base(cr.bin),
					len(r.lines), countBuilt(r), r.wall.Seconds())
			}
		}
		if cr.head == "new binary" {
			for _, n := range names {
				b.extraTags = append(b.extraTags, cr.lines[n].tag)
			}
		}
	}

	// The table: seconds per image per case.
	fmt.Println()
	fmt.Printf("%-13s %-44s %12s %12s %12s\n", "image", "tag (cold, warm)", "cold s", "warm s", "new binary s")
	for _, n := range names {
		fmt.Printf("%-13s %-44s", n, cases[0].lines[n].tag)
		for _, cr := range cases {
			l := cr.lines[n]
			mark := "B"
			if !l.built {
				mark = "="
			}
			if slices.Contains(cr.retry, n) {
				mark += "*"
			} else if len(cr.retry) > 0 {
				mark += " "
			}
			fmt.Printf(" %12s", fmt.Sprintf("%.1f %s", l.took.Seconds(), mark))
		}
		fmt.Println()
	}
	fmt.Printf("%-13s %-44s", "total", "(the command's wall time)")
	for _, cr := range cases {
		if len(cr.retry) == 0 {
			fmt.Printf(" %12.1f", cr.runs[0].wall.Seconds())
			continue
		}
		var sum time.Duration
		for _, n := range names {
			sum += cr.lines[n].took
		}
		fmt.Printf(" %12s", fmt.Sprintf("%.1f * ", sum.Seconds()))
	}
	fmt.Println()
	fmt.Println("B built, = up to date (found by its input-hash tag); an image's s: from the previous line (the first: from the")
	fmt.Println("command's start, which includes hashing the inputs) to its line")
	if r := cases[0].retry; len(r) > 0 {
		fmt.Printf("* from the second cold command (%s removed again, the others up to date); cold total: the sum of the images'\n", strings.Join(r, ", "))
		fmt.Printf("  seconds (the first command took %.1f s, the second %.1f s)\n", cases[0].runs[0].wall.Seconds(), cases[0].runs[1].wall.Seconds())
	}
	fmt.Printf("the command's own figures (built in D, rounded to 100ms):")
	for _, cr := range cases {
		var parts []string
		for _, n := range names {
			if l := cr.lines[n]; l.built {
				parts = append(parts, n+" "+strings.TrimPrefix(l.state, "built in "))
			}
		}
		if len(parts) == 0 {
			parts = []string{"none built"}
		}
		fmt.Printf("\n  %-10s %s", cr.head, strings.Join(parts, ", "))
	}
	fmt.Println()

	// Checks.
	var problems []string
	for _, n := range names {
		if !cases[0].lines[n].built {
			problems = append(problems, "cold: "+n+" was up to date (another session built it meanwhile)")
		}
		if cases[1].lines[n].built {
			problems = append(problems, "warm: "+n+" was built again")
		}
		if !cases[2].lines[n].built {
			problems = append(problems, "new binary: "+n+" was up to date")
		}
		if cases[1].lines[n].tag != cases[0].lines[n].tag {
			problems = append(problems, "warm: "+n+" has another tag than cold")
		}
	}

	fmt.Println()
	fmt.Println("layers made anew, from each image's history (a step is reused when its layer is older than that build's start):")
	fmt.Printf("%-13s %6s %12s %20s   %s\n", "image", "steps", "cold: new", "new binary: reused", "new binary: first step made anew")
	for _, n := range names {
		cu, nu := cases[0].use[n], cases[2].use[n]
		fmt.Printf("%-13s %6d %12s %20s   %s\n", n, cu.steps, fmt.Sprintf("%d/%d", cu.steps-cu.reused, cu.steps),
			fmt.Sprintf("%d/%d", nu.reused, nu.steps), nu.first)
		if cu.reused > 0 {
			problems = append(problems, fmt.Sprintf("cold: %s reused %d layer(s): not cold", n, cu.reused))
		}
		if !strings.Contains(nu.first, backend.CellBinary) {
			problems = append(problems, fmt.Sprintf("new binary: %s's first new step is %q, not the binary's COPY", n, nu.first))
		}
		if !nu.contiguous {
			problems = append(problems, "new binary: "+n+" has reused layers above new ones")
		}
	}
	fmt.Println("steps: the image's history entries above its base (each Dockerfile step, and the two LABEL steps of the build's labels);")
	fmt.Println("new binary: every step from the binary's COPY on is new (it and the ENV/LABEL steps on top of it), every step below reused")

	if bin3 != "" {
		if err := b.streamCase(ctx, bin3, names, &problems); err != nil {
			return nil, err
		}
	}
	fmt.Println()
	if len(problems) == 0 {
		fmt.Println("checks, all held: cold built every image with no layer reused; warm built none; the new binary rebuilt every image,")
		fmt.Println("reusing every layer below the binary's COPY and none above it (history, and the in-process stream's \"Using cache\")")
	} else {
		fmt.Printf("checks: %d did not hold:\n  %s\n", len(problems), strings.Join(problems, "\n  "))
	}

	out := map[string]string{}
	for _, n := range names {
		out[n] = cases[0].lines[n].tag
	}
	return out, nil
}

func countBuilt(r buildRun) int {
	n := 0
	for _, l := range r.lines {
		if l.built {
			n++
		}
	}
	return n
}

// step is one "Step i/n : INSTR" of a classic build's stream and whether "Using cache" followed.
type step struct {
	instr  string
	cached bool
}

// parseStream splits a classic builder's output into its steps.
func parseStream(s string) []step {
	var steps []step
	for _, line := range strings.Split(s, "\n") {
		switch {
		case strings.HasPrefix(line, "Step "):
			_, instr, _ := strings.Cut(line, " : ")
			steps = append(steps, step{instr: strings.TrimSpace(instr)})
		case strings.TrimSpace(line) == "---> Using cache" && len(steps) > 0:
			steps[len(steps)-1].cached = true
		}
	}
	return steps
}

// streamCase builds the third binary's images here, through docker.Backend.EnsureImage with the specs
// cmd/toolscore/images.go makes, reading the builder's stream; then its `images build` must
// find them all.
func (b *bench) streamCase(ctx context.Context, bin string, names []string, problems *[]string) error {
	raw, err := cellimage.StaticBinary(bin)
	if err != nil {
		return err
	}
	specs := map[string]cellimage.Spec{"builtin": cellimage.Builtin(raw, os.Getenv("TOOLSCORE_BASE_IMAGE"))}
	for _, im := range tsclient.Images() {
		if specs[im.Dir], err = cellimage.Client(im, raw, ""); err != nil {
			return err
		}
	}
	d, err := docker.New(ctx)
	if err != nil {
		return err
	}
	fmt.Println()
	fmt.Println("new binary again, in this process: $TMP/toolscore-bench3's images through docker.Backend.EnsureImage(ctx, spec, log), the specs")
	fmt.Println("cmd/toolscore/images.go makes; the builder's stream read for \"Using cache\" after each Step:")
	fmt.Printf("%-13s %6s %8s %12s  %s\n", "image", "s", "steps", "Using cache", "steps not cached (FROM and ARG before FROM are never)")
	t0 := time.Now()
	tags := map[string]string{}
	for _, n := range names {
		var log strings.Builder
		start := time.Now()
		tag, built, err := d.EnsureImage(ctx, specs[n], &log)
		took := time.Since(start)
		if err != nil {
			return fmt.Errorf("EnsureImage %s: %w", n, err)
		}
		tags[n] = tag
		b.extraTags = append(b.extraTags, tag)
		if !built {
			*problems = append(*problems, "in-process: "+n+" was already there; no stream to read")
			fmt.Printf("%-13s %6.1f %8s %12s  (already there)\n", n, took.Seconds(), "-", "-")
			continue
		}
		steps := parseStream(log.String())
		var cachable, cached int
		var not []string
		firstNew := ""
		seenFrom := false
		for _, s := range steps {
			kw, _, _ := strings.Cut(s.instr, " ")
			kw = strings.ToUpper(kw)
			if kw == "FROM" {
				seenFrom = true
				continue
			}
			if !seenFrom {
				continue // ARG before FROM
			}
			cachable++
			if s.cached {
				cached++
			} else {
				if firstNew == "" {
					firstNew = s.instr
				}
				not = append(not, shorten(s.instr, 34))
			}
		}
		fmt.Printf("%-13s %6.1f %8d %12d  %s\n", n, took.Seconds(), cachable, cached, strings.Join(not, " | "))
		if !strings.HasPrefix(firstNew, "COPY toolscore "+backend.CellBinary) {
			*problems = append(*problems, fmt.Sprintf("in-process: %s's first uncached step is %q, not the binary's COPY", n, firstNew))
		}
	}
	fmt.Printf("%-13s %6.1f\n", "total", time.Since(t0).Seconds())
	r := b.imagesBuild(ctx, bin)
	if r.err != nil {
		return fmt.Errorf("after the in-process builds: %w", r.err)
	}
	same := 0
	for _, n := range names {
		if l := r.lines[n]; !l.built && l.tag == tags[n] {
			same++
		}
	}
	fmt.Printf("then $TMP/toolscore-bench3 images build: %d of %d up to date with the same tags (%.1f s)\n", same, len(names), r.wall.Seconds())
	if same != len(names) {
		*problems = append(*problems, "in-process specs differ from the command's")
	}
	return nil
}

func shorten(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len([]rune(s)) > n {
		return string([]rune(s)[:n-1]) + "…"
	}
	return s
}

// removeExtraImages removes the images of the bench2/bench3 binaries: tags this program made;
// PruneChildren takes only their own layers (those below are the kept images' parents too).
func (b *bench) removeExtraImages() {
	if len(b.extraTags) == 0 {
		return
	}
	n, errs := enginebench.RemoveImages(b.api, b.extraTags)
	fmt.Printf("removed the %d image(s) of the bench2/bench3 binaries", n)
	if len(errs) > 0 {
		fmt.Printf("; could not remove: %s", strings.Join(errs, "; "))
	}
	fmt.Println()
}

// ============================== part 2: per-run overhead =======================================

type overheadRow struct {
	adapter, image string
	bareCmd        []string
	runMs          []float64
	outcomes       map[string]int
	bareMs, rmMs   []float64
	sweepWall      time.Duration
	foreign        int
	note           string
}

func (b *bench) partOverhead(ctx context.Context, bin string, tags map[string]string) error {
	n := b.cfg.runs
	fmt.Println()
	fmt.Printf("== 2. per-run overhead of each adapter: %d runs, parallel 1, next to %d bare runs of its image ==\n", n, n)
	fmt.Printf("  sweep  $TMP/toolscore run --backend docker --clients NAME --faults clean --schema hidden --runs %d --parallel 1 --out $TMP/sweep-N\n", n)
	fmt.Println("  bare   Engine API: create {Image, Cmd, HostConfig{NetworkMode: none}}, wait (next-exit), start, the exit, remove (force)")
	fmt.Printf("  order  per adapter: 1 untimed bare run, %d bare, the sweep, %d bare\n", n/2, n-n/2)
	var rows []*overheadRow
	for i, a := range adapters {
		img := "builtin"
		if d, _, _ := tsclient.Lookup(a); d.Contained() {
			img = d.Image.Dir
		}
		tag := tags[img]
		if tag == "" {
			return fmt.Errorf("no image %s for %s", img, a)
		}
		r := &overheadRow{adapter: a, image: tag, bareCmd: []string{"/bin/true"}}
		if img == "builtin" {
			r.bareCmd = []string{backend.CellBinary, "version"}
		}
		stop := b.sess.SampleForeign(ctx, &r.foreign, enginebench.OwnedByChild)
		if _, _, err := b.bare(ctx, tag, r.bareCmd); err != nil {
			stop()
			return fmt.Errorf("%s: warm-up bare run: %w", a, err)
		}
		bareN := func(k int) error {
			for j := 0; j < k; j++ {
				run, rm, err := b.bare(ctx, tag, r.bareCmd)
				if err != nil {
					return fmt.Errorf("%s: bare run: %w", a, err)
				}
				r.bareMs, r.rmMs = append(r.bareMs, enginebench.Ms(run)), append(r.rmMs, enginebench.Ms(rm))
			}
			return nil
		}
		err := bareN(n / 2)
		if err == nil {
			err = b.sweep(ctx, bin, a, filepath.Join(b.tmp, fmt.Sprintf("sweep-%d", i+1)), r)
		}
		if err == nil {
			err = bareN(n - n/2)
		}
		stop()
		if err != nil {
			return err
		}
		rows = append(rows, r)
	}

	fmt.Println()
	fmt.Printf("%-18s %-44s %8s %8s %8s %8s %9s %7s %7s  %s\n", "adapter", "image", "run med", "run p90", "bare med", "bare p90", "overhead", "bare rm", "foreign", "outcomes; bare command")
	for _, r := range rows {
		fmt.Printf("%-18s %-44s %8.0f %8.0f %8.1f %8.1f %9.0f %7.1f %7d  %s; %s%s\n", r.adapter, r.image,
			enginebench.Median(r.runMs), enginebench.P90(r.runMs), enginebench.Median(r.bareMs), enginebench.P90(r.bareMs),
			enginebench.Median(r.runMs)-enginebench.Median(r.bareMs), enginebench.Median(r.rmMs), r.foreign,
			outcomes(r.outcomes), strings.Join(r.bareCmd, " "), r.note)
	}
	fmt.Println()
	fmt.Println("ms; run: runs.jsonl ms (container create to the end of the cell's output: copy-in, attach, start, the adapter, the proxy,")
	fmt.Println("the ledger, the exit; not inspect, copy-out, remove), whole milliseconds; bare: create to the exit (wait answering),")
	fmt.Println("the same span; overhead: run median - bare median; bare rm: the bare run's remove, not in either span; p90: the")
	fmt.Printf("nearest-rank 90th percentile (the %s of %d); the builtin image is scratch, so its bare command is %s version,\n", ordinal(int(math.Ceil(0.9*float64(n)))), n, backend.CellBinary)
	fmt.Println("not /bin/true; foreign: the most running containers of somebody else's sampled once a second during the adapter's turn")
	return nil
}

func ordinal(i int) string {
	switch {
	case i%100 >= 11 && i%100 <= 13:
		return strconv.Itoa(i) + "th"
	case i%10 == 1:
		return strconv.Itoa(i) + "st"
	case i%10 == 2:
		return strconv.Itoa(i) + "nd"
	case i%10 == 3:
		return strconv.Itoa(i) + "rd"
	}
	return strconv.Itoa(i) + "th"
}

func outcomes(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

// sweep runs one adapter's sweep and reads its runs.jsonl.
func (b *bench) sweep(ctx context.Context, bin, adapter, out string, r *overheadRow) error {
	argv := []string{"run", "--backend", "docker", "--clients", adapter, "--faults", "clean", "--schema", "hidden",
		"--runs", strconv.Itoa(b.cfg.runs), "--parallel", "1", "--out", out}
	stderr, wall, err := enginebench.Sweep(ctx, bin, b.tmp, argv)
	r.sweepWall = wall
	if err != nil {
		return err
	}
	if strings.Contains(string(stderr), "built "+cellPrefix) {
		r.note = " (the sweep built its image)"
	}
	runs, err := enginebench.ReadRuns(out, adapter, b.cfg.runs, stderr)
	if err != nil {
		return err
	}
	r.outcomes = map[string]int{}
	for _, rec := range runs {
		r.outcomes[string(rec.Outcome)]++
		r.runMs = append(r.runMs, float64(rec.Ms))
	}
	return nil
}

// bare runs CMD in a fresh container of IMAGE: it returns create to the exit, and the remove.
func (b *bench) bare(ctx context.Context, img string, cmd []string) (run, rm time.Duration, err error) {
	t0 := time.Now()
	id, err := b.sess.Create(ctx, &container.Config{Image: img, Cmd: cmd}, &container.HostConfig{NetworkMode: "none"})
	if err != nil {
		return 0, 0, err
	}
	code, err := b.sess.StartToExit(ctx, id, func(step string) {
		if step == "exit" {
			run = time.Since(t0)
		}
	})
	if err == nil && code != 0 {
		err = fmt.Errorf("%s in %s exited %d", strings.Join(cmd, " "), img, code)
	}
	t1 := time.Now()
	b.sess.Remove(ctx, id)
	return run, time.Since(t1), err
}
