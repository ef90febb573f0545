package history

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/toolscore/toolscore/exitcode"
	"github.com/toolscore/toolscore/internal/bisect"
	"github.com/toolscore/toolscore/internal/cellimage"
	"github.com/toolscore/toolscore/internal/client"
	"github.com/toolscore/toolscore/internal/outdir"
	"github.com/toolscore/toolscore/internal/registry"
	"github.com/toolscore/toolscore/report"
	"github.com/toolscore/toolscore/scenario"
	"github.com/toolscore/toolscore/sweep"
	"github.com/toolscore/toolscore/tally"
)

// Plan is a history as toolscore history's flags ask for it: which clients, over which range
// of their releases, each version swept with Config into Work.
type Plan struct {
	Manifest string             // the manifest's path; "" is the embedded ledger
	Scenario *scenario.Scenario // the manifest, loaded
	Clients  []string           // the clients' names, each once (Clients)
	From, To string             // the range's ends, published versions; "" is either end
	Since    time.Time          // only releases published on or after it (zero: all)
	Pre      bool               // keep pre-releases in the range
	Order    string             // tally.OrderRegistry or tally.OrderDate
	Every    bool               // sweep every release, not samples
	Config   sweep.Config       // each version's sweep, as Search.Config
	Work     string             // the history's output directory
	// Format is what Run prints on Stdout once history.json is written: text (what changed,
	// release by release) or json (history.json itself).
	Format         string
	Stdout, Stderr io.Writer
}

// Clients are the clients a history sweeps: those named, each once (its history would be the
// same twice over), or when none is named every client of the scenario whose version can be
// set.
func Clients(sc *scenario.Scenario, named []string) ([]string, error) {
	var names []string
	for _, n := range named {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	if len(names) > 0 {
		return names, nil
	}
	for _, c := range sc.Clients {
		if _, err := Pin(c.Name); err == nil && !slices.Contains(names, c.Name) {
			names = append(names, c.Name)
		}
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("the scenario has no client whose version can be set: name one with --clients (%s)", strings.Join(client.Versioned(), ", "))
	}
	return names, nil
}

// Searches are the plan's searches, one a client. Each client's range is read from its
// registry before anything runs, so a wrong name or version costs nothing.
func (p Plan) Searches(ctx context.Context) ([]*Search, error) {
	var searches []*Search
	for _, name := range p.Clients {
		pin, err := Pin(name)
		if err != nil {
			return nil, fmt.Errorf("--clients %s: %w", name, err)
		}
		rel, isPre, err := releases(ctx, pin.Registry, pin.Package)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		rng, err := releaseRange(rel, isPre, pin.Registry, p.From, p.To, p.Since, p.Pre)
		if err == nil {
			_, err = Ordered(rng, p.Order) // a release with no date is refused before anything runs
		}
		if err != nil {
			return nil, fmt.Errorf("%s (%s on %s): %w", name, pin.Package, pin.Registry, err)
		}
		entry := scenario.Client{Name: name}
		for _, c := range p.Scenario.Clients {
			if c.Name == name {
				entry, entry.Version = c, ""
			}
		}
		searches = append(searches, &Search{
			Manifest: p.Manifest, Client: entry, Registry: pin.Registry, Package: pin.Package, Releases: rng,
			Every: p.Every, Order: p.Order, Config: p.Config, Work: p.Work, Stderr: p.Stderr,
		})
	}
	return searches, nil
}

// CheckFlags checks toolscore history's --sample, --order, --format (what it prints: text or
// json) and --since, and gives the date since names (zero for none).
func CheckFlags(sample, order, format, since string) (time.Time, []error) {
	var errs []error
	if sample != "minor" && sample != "every" {
		errs = append(errs, fmt.Errorf("--sample %q: want minor or every", sample))
	}
	if order != tally.OrderRegistry && order != tally.OrderDate {
		errs = append(errs, fmt.Errorf("--order %q: want %s or %s", order, tally.OrderRegistry, tally.OrderDate))
	}
	if format != "text" && format != "json" {
		errs = append(errs, fmt.Errorf("--format %q: want text or json", format))
	}
	var date time.Time
	if since != "" {
		var err error
		if date, err = time.Parse(time.DateOnly, since); err != nil {
			errs = append(errs, fmt.Errorf("--since %q: want a date as YYYY-MM-DD", since))
		}
	}
	return date, errs
}

// Run runs the searches one client after another and writes history.json into the plan's
// Work, with what finished when one stops, and says on Stderr where it is. The error carries
// toolscore history's exit code: interrupted, or failed when a search failed or history.json
// could not be written.
func (p Plan) Run(ctx context.Context, searches []*Search) error {
	h := &tally.History{Scenario: p.Scenario.Name, Toolscore: p.Config.Version, Started: time.Now().UTC()}
	var stopped error
	for _, s := range searches {
		ch, executed, reused, err := s.Run(ctx)
		h.RunsExecuted += executed
		h.RunsReused += reused
		if err != nil {
			stopped = err
			break
		}
		h.Clients = append(h.Clients, ch)
	}
	h.Finished = time.Now().UTC()
	h.Backend = backendOf(p.Work, h)
	b, err := json.MarshalIndent(h, "", "  ")
	if err != nil {
		return err
	}
	path := filepath.Join(p.Work, tally.HistoryFile)
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return exitcode.Failed(fmt.Errorf("writing %s: %w", path, err))
	}
	if stopped != nil {
		fmt.Fprintf(p.Stderr, "toolscore history: stopped: %v; what finished is in %s\n", stopped, path)
		if exitcode.Of(stopped) == exitcode.Interrupted {
			return stopped
		}
		return exitcode.Failed(stopped)
	}
	fmt.Fprintf(p.Stderr, "toolscore history: %s (%d runs executed, %d from the cell cache)\n", path, h.RunsExecuted, h.RunsReused)
	if p.Format == "json" {
		_, err = p.Stdout.Write(append(b, '\n'))
		return err
	}
	return report.HistoryText(p.Stdout, h)
}

// backendOf is the backend the history's sweeps ran on, as the first one's results say.
func backendOf(dir string, h *tally.History) string {
	for _, c := range h.Clients {
		for _, v := range c.Versions {
			if v.Sweep == "" {
				continue
			}
			if res, err := outdir.ReadResults(filepath.Join(dir, v.Sweep)); err == nil {
				return res.Backend
			}
		}
	}
	return ""
}

// Pin is where a client's versions come from: a Go client's module on the Go proxy, or
// the package its cell image installs at a version.
func Pin(name string) (cellimage.Pin, error) {
	d, _, ok := client.Lookup(name)
	switch {
	case ok && d.Module != "":
		return cellimage.Pin{Registry: "Go", Package: d.Module}, nil
	case ok && d.Contained() && d.Image.VersionArg != "":
		return cellimage.PinOf(d.Image)
	}
	return cellimage.Pin{}, fmt.Errorf("not a client whose version can be set (%s)", strings.Join(client.Versioned(), ", "))
}

// releases lists a package's published versions, oldest first in the registry's order.
func releases(ctx context.Context, reg, pkg string) ([]tally.Release, []bool, error) {
	rs, err := registry.Releases(ctx, reg, pkg)
	if err != nil {
		return nil, nil, err
	}
	out, pre := make([]tally.Release, len(rs)), make([]bool, len(rs))
	for i, r := range rs {
		out[i], pre[i] = tally.Release{Version: r.Version, Published: r.Published}, r.Pre
	}
	return out, pre, nil
}

// releaseRange is the releases from from to to (both published versions; "" is either end),
// published on or after since when given (or, when none was, the newest before it), pre-releases
// left out unless pre.
func releaseRange(rel []tally.Release, isPre []bool, registry, from, to string, since time.Time, pre bool) ([]tally.Release, error) {
	if registry == "Go" {
		from, to = bisect.GoVersion(from), bisect.GoVersion(to)
	}
	index := func(flag, v string, def int) (int, error) {
		if v == "" {
			return def, nil
		}
		i := slices.IndexFunc(rel, func(r tally.Release) bool { return r.Version == v })
		if i < 0 {
			return 0, fmt.Errorf("%s %s is not a published version", flag, v)
		}
		return i, nil
	}
	i, err := index("--from", from, 0)
	if err != nil {
		return nil, err
	}
	j, err := index("--to", to, len(rel)-1)
	if err != nil {
		return nil, err
	}
	if j < i {
		return nil, fmt.Errorf("--to %s comes before --from %s", to, from)
	}
	var out []tally.Release
	var before *tally.Release // the newest release published before since
	for k, r := range rel[i : j+1] {
		named := k == 0 && from != "" || k == j-i && to != ""
		if !named && !pre && isPre[i+k] {
			continue
		}
		if !since.IsZero() && r.Published != nil && r.Published.Before(since) {
			before = &rel[i+k]
			continue
		}
		out = append(out, r)
	}
	if len(out) == 0 && before != nil {
		// No release since the date: the one still current then is what users have.
		out = append(out, *before)
	}
	if len(out) == 0 {
		return nil, errors.New("no release in the range")
	}
	return out, nil
}
