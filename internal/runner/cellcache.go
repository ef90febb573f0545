package runner

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/toolscore/toolscore/internal/backend"
	"github.com/toolscore/toolscore/internal/cache"
	"github.com/toolscore/toolscore/internal/grade"
	"github.com/toolscore/toolscore/record"
	"github.com/toolscore/toolscore/report"
	"github.com/toolscore/toolscore/scenario"
	"github.com/toolscore/toolscore/tally"
)

// CellCache is the sweep's use of the cell cache (package cache): before the first run, the
// cells it holds whose server still answers the same are taken from it instead of run; each
// cell run whole is kept in it once its runs are over.
type CellCache struct {
	Store cache.Cache
	// Log hears what the cache did that a user must know: an entry damaged, a server that
	// answers differently, a cache that cannot be written.
	Log io.Writer

	mu sync.Mutex
	// hits are the cells taken from the cache, by index; stale the cells whose entry the live
	// server no longer answers as recorded, whose new runs replace it.
	hits  map[int]*cacheHit
	stale map[int]bool
	// ran collects the records of each cell's runs as they end, by index, for its entry.
	ran map[int][]cache.Run
	// suspect holds the cells whose runs had an outcome the machine's load may make, by index,
	// until a run alone says whether the cell does that alone too; alone is that run's outcome.
	suspect map[int]suspectCell
	alone   map[int]record.Outcome
	// cannotWrite is set once a store failed: the sweep goes on running, without the cache.
	cannotWrite bool
	// Verified says the server's answers were checked for the cells reused.
	Verified bool
}

// cacheHit is a cell the cache holds: its entry, the runs of it this sweep takes, and the
// server sessions they recorded.
type cacheHit struct {
	key      string
	entry    *cache.Entry
	runs     []cache.Run
	sessions []cache.Session
}

// cacheReplayCommand is the command toolscore runs where the runs execute to replay recorded
// sessions to the live server, their answers on its stdout: toolscore cache-replay --in F -- SERVER...
const cacheReplayCommand = "cache-replay"

// keyInputs is everything that decides a cell apart from the server: its key is their hash.
type keyInputs struct {
	Format  int    `json:"format"`
	Grader  int    `json:"grader"`
	Backend string `json:"backend"`
	// Client is the manifest's entry of the cell's client, and Fingerprint what it runs as
	// (Choice.Fingerprints: its install's key, its image, its built adapter).
	Client      scenario.Client `json:"client"`
	Fingerprint string          `json:"fingerprint"`
	// ClientFiles are the SHA-256 of each file of a client the manifest defines: its install's
	// key above hashes them all already; each apart says which one changed.
	ClientFiles map[string]string `json:"client_files,omitempty"`
	// Build is toolscore's own build (sweep.Build: the SHA-256 of its binary, and of the one
	// its runs start), for every client: toolscore reads and grades every adapter's
	// observation, starts every run's proxy, and writes every record, whatever client ran.
	Build     string           `json:"build,omitempty"`
	Cell      record.Cell      `json:"cell"`
	Fault     scenario.Fault   `json:"fault"`
	Options   map[string]any   `json:"fault_options,omitempty"`
	Tool      scenario.Tool    `json:"tool"`
	Runs      int              `json:"runs"`
	Timeout   string           `json:"timeout"`
	Sandbox   scenario.Sandbox `json:"sandbox"`
	Transport string           `json:"transport"`
	// Slice is the run numbers of a cell this sweep runs only some of: a shard's, when --shard
	// deals each cell's runs over the shards. Such an entry serves the same slice only, which
	// the same shard of the same matrix gets again; a whole cell has none, so its key is the
	// same sharded or not.
	Slice []int `json:"slice,omitempty"`
}

// cellKey is the cache key of job j's cell, and what it was made of; slice is the run numbers
// of the cell this sweep has when it has only some of them (sliceOf), else nil.
func (o Options) cellKey(j Job, slice []int) (string, json.RawMessage) {
	tool := j.Cell.Tool
	tool.Volatile = nil // masks the check of the server's answers only: not the cell's
	if !j.Client.Descriptor.Agent {
		tool.Prompt = ""
	}
	fp := o.Record.Adapters[j.Client.ID()]
	in := keyInputs{
		Format: cache.Format, Grader: grade.GraderVersion, Backend: o.Backend.Name(),
		Client: j.Cell.Client, Fingerprint: fp, Cell: j.Cell.Coordinates(),
		Fault: j.Cell.Fault, Options: j.Cell.Fault.Options, Tool: tool,
		Runs: o.Scenario.Runs, Timeout: o.Scenario.Timeout.Std().String(), Sandbox: o.Scenario.Sandbox,
		Transport: string(j.Cell.Transport), Slice: slice, Build: o.Record.Build, ClientFiles: o.ClientFiles[j.Client.ID()],
	}
	b, _ := json.Marshal(in)
	return cache.Key(in), b
}

// sliceOf is the run numbers of cell c in this sweep when they are not all of the cell's (a
// shard's slice), else nil.
func (o Options) sliceOf(c cellRuns) []int {
	var nums []int
	for j := range c.Runs {
		nums = append(nums, j.Run)
	}
	if len(nums) == o.Scenario.Runs {
		return nil
	}
	return nums
}

// cacheUnusable says why the sweep's cells cannot be checked against the live server, and so
// are never taken from the cache; "" when they can.
func (o Options) cacheUnusable() string {
	return o.source().uncacheable()
}

// ClientsToRun says of each client with a cell in this sweep whether one of its cells is to
// run, as far as can be told before any is checked: false when the cell cache seems to hold
// every one (cache.Has); a client with no cell here is not in it. The sweep provisions only these first (Choice.Install); a cell
// the cache turns out not to give after all (its entry damaged, the server answering
// otherwise) has its client provisioned before it runs (Installs.Ready).
func (o Options) ClientsToRun() map[string]bool {
	need := map[string]bool{}
	cached := o.Cache != nil && o.cacheUnusable() == ""
	for c := range o.cellJobs() {
		id := c.First.Client.ID()
		if need[id] {
			continue
		}
		need[id] = !cached || c.First.Cell.Client.Model != nil && c.First.Cell.Client.Cache != "reuse"
		if !need[id] {
			key, _ := o.cellKey(c.First, o.sliceOf(c))
			need[id] = !o.Cache.Store.Has(key)
		}
	}
	return need
}

// cacheHits finds, when the sweep has a cell cache, the cells of this sweep the cache holds, checks the live server against
// their recorded sessions (one fresh session each distinct one), and keeps those whose answers
// are all the same. It says on the log what it could not use, and why.
func (o Options) cacheHits(ctx context.Context, res *tally.Results) {
	cc := o.Cache
	if cc == nil {
		return
	}
	cc.hits, cc.stale, cc.ran = map[int]*cacheHit{}, map[int]bool{}, map[int][]cache.Run{}
	if why := o.cacheUnusable(); why != "" {
		fmt.Fprintf(cc.Log, "cell cache: every cell runs: %s\n", why)
		return
	}
	hits := map[int]*cacheHit{}
	sessions := map[string]cache.Session{}
	unreadable := 0
	var misses []missed // the cells the cache holds no entry of under their key
	for c := range o.cellJobs() {
		i := c.First.Index
		if res.Cells[i].Runs > 0 {
			continue // a resumed cell goes on where it was
		}
		if c.First.Cell.Client.Model != nil && c.First.Cell.Client.Cache != "reuse" {
			continue // a real model answers differently every run
		}
		key, inputs := o.cellKey(c.First, o.sliceOf(c))
		e, err := cc.Store.Get(key)
		if damaged, ok := errors.AsType[*cache.DamagedError](err); ok {
			res.AddCacheMiss(tally.MissEntry, "their entries are damaged, and were discarded", res.Cells[i].Coordinates())
			fmt.Fprintf(cc.Log, "cell cache: %s: %s; it is discarded and the cell runs\n", report.Plain(c.First.Cell.Key()), report.Plain(damaged.Error()))
			if derr := cc.Store.Discard(ctx, key); derr != nil {
				fmt.Fprintf(cc.Log, "cell cache: discarding it: %v\n", derr)
			}
			continue
		}
		if err != nil {
			if !errors.Is(err, cache.ErrMiss) {
				res.AddCacheMiss(tally.MissEntry, "their entries could not be read", res.Cells[i].Coordinates())
				unreadable++
			} else {
				misses = append(misses, missed{i, c.First.Cell.Key(), inputs})
			}
			continue
		}
		byNumber := map[int]cache.Run{}
		for _, r := range e.Runs {
			byNumber[r.Number] = r
		}
		h := &cacheHit{key: key, entry: e}
		ok := true
		for j := range c.Runs {
			r, have := byNumber[j.Run]
			if !have {
				res.AddCacheMiss(tally.MissEntry, "their entries lack some of the runs", res.Cells[i].Coordinates())
				ok = false
				break
			}
			ss, err := cache.ReadSessions(e.RunDir(r))
			if err != nil {
				// Never reused, so its cell's new runs replace it: kept, it would make the cell
				// run in every sweep (an entry of a toolscore that did not record the proxy's own
				// sessions, a message too large to replay).
				fmt.Fprintf(cc.Log, "cell cache: %s: %s; the cell runs, and its new runs replace the entry\n", report.Plain(c.First.Cell.Key()), report.Plain(err.Error()))
				res.AddCacheMiss(tally.MissEntry, "their entries' recorded sessions cannot be played to the server", res.Cells[i].Coordinates())
				cc.stale[i] = true
				ok = false
				break
			}
			h.runs = append(h.runs, r)
			h.sessions = append(h.sessions, ss...)
		}
		if !ok {
			continue
		}
		hits[i] = h
		for _, s := range h.sessions {
			sessions[s.Key()] = s
		}
	}
	if unreadable > 0 {
		fmt.Fprintf(cc.Log, "cell cache: %d entries could not be read in %s; their cells run\n", unreadable, cc.Store.Dir)
	}
	o.whyNotCached(res, misses)
	if len(hits) == 0 {
		return
	}
	live, err := o.checkServer(ctx, len(hits), sessions)
	if err != nil {
		fmt.Fprintf(cc.Log, "cell cache: the server could not be checked against the cached cells (%s): every cell runs\n", report.Plain(err.Error()))
		for _, i := range slices.Sorted(maps.Keys(hits)) {
			cc.stale[i] = true
			res.AddCacheMiss(tally.MissUnchecked, "the server could not be checked against their entries: "+err.Error(), res.Cells[i].Coordinates())
		}
		return
	}
	volatile := map[string][]string{}
	for _, t := range o.Scenario.Calls() {
		volatile[t.Name] = t.Volatile
	}
	changed, first := 0, ""
	for _, i := range slices.Sorted(maps.Keys(hits)) {
		for _, s := range hits[i].sessions {
			if why := s.Differs(live[s.Key()], volatile, o.Scenario.Timeout.Std()); why != "" {
				if first == "" {
					first = res.Cells[i].Coordinates() + ": " + why
				}
				res.AddCacheMiss(tally.MissServer, "the server answers differently", res.Cells[i].Coordinates()+": "+why)
				changed++
				cc.stale[i] = true
				delete(hits, i)
				break
			}
		}
	}
	if changed > 0 {
		fmt.Fprintf(cc.Log, "cell cache: %d cached %s run again: the server answers differently (first: %s)\n", changed, report.Plural(changed, "cell is", "cells are"), report.Plain(first))
	}
	cc.hits, cc.Verified = hits, len(hits) > 0
}

// checkBatches is how many parts the cache check plays its sessions in, when it has at least
// checkBatchMin sessions a part: one replay of them all took minutes of silence on a big
// matrix; a part each is a line of progress, for the price of one more process (or container)
// start a part.
const (
	checkBatches  = 10
	checkBatchMin = 8
)

// checkServer plays the recorded sessions of the cells cached to the live server (replaySessions),
// in parts, and says on the log how far it is, with the elapsed time and an ETA, so that a
// check of minutes is not silent. It returns the live answers by session key.
func (o Options) checkServer(ctx context.Context, cells int, sessions map[string]cache.Session) (map[string]cache.Live, error) {
	log := o.Cache.Log
	keys := slices.Sorted(maps.Keys(sessions))
	fmt.Fprintf(log, "cell cache: checking the live server against %d cached %s: %d recorded %s to play, one after the other\n",
		cells, report.Plural(cells, "cell", "cells"), len(keys), report.Plural(len(keys), "session", "sessions"))
	start := time.Now()
	step := max(checkBatchMin, (len(keys)+checkBatches-1)/checkBatches)
	live := map[string]cache.Live{}
	for from := 0; from < len(keys); from += step {
		part := keys[from:min(from+step, len(keys))]
		got, err := o.replaySessions(ctx, sessions, part)
		if err != nil {
			return nil, err
		}
		maps.Copy(live, got)
		done, took := from+len(part), time.Since(start)
		if done < len(keys) {
			fmt.Fprintf(log, "cell cache: [%d/%d sessions, %s elapsed, ETA %s] checking the server\n",
				done, len(keys), clock(took), clock(took/time.Duration(done)*time.Duration(len(keys)-done)))
		}
	}
	fmt.Fprintf(log, "cell cache: the server checked in %s\n", clock(time.Since(start)))
	return live, nil
}

// clock writes d as minutes and seconds, as the sweep's progress does.
func clock(d time.Duration) string {
	d = d.Round(time.Second)
	return fmt.Sprintf("%d:%02d", int(d.Minutes()), int(d.Seconds())%60)
}

// missed is a cell the cache holds no entry of under its key: its index, its cell key, and
// what its key is made of.
type missed struct {
	index  int
	cell   string
	inputs json.RawMessage
}

// keyWords say, for each input of a cell's key (keyInputs, by its JSON name), what changed when
// it differs from the cell's last entry.
var keyWords = []struct{ field, words string }{
	{"build", "toolscore is another build"},
	{"format", "the cell cache's format changed"},
	{"grader", "toolscore grades runs differently (another grader version)"},
	{"fingerprint", "what the client runs changed (its files, its image or its built adapter)"},
	{"client", "the manifest's entry of the client changed"},
	{"tool", "the manifest's entry of the tool changed"},
	{"fault", "the fault or its options changed"},
	{"runs", "the runs per cell changed"},
	{"timeout", "the timeout changed"},
	{"sandbox", "the sandbox changed"},
	{"backend", "another backend runs them"},
	{"transport", "the transport changed"},
	{"slice", "the shard's slice of their runs changed"},
}

// whyNotCached counts the cells the cache holds no entry of under their key into res, by why:
// what differs between their inputs and those of the cell's last entry in the cache (the same
// cell of the matrix stored under another key), or that it holds none. It says so on the log.
func (o Options) whyNotCached(res *tally.Results, misses []missed) {
	if len(misses) == 0 {
		return
	}
	metas, _ := o.Cache.Store.List() // oldest first: the last of a cell's is its latest
	last := map[string]cache.Meta{}
	for _, m := range metas {
		last[m.Cell] = m
	}
	before := len(res.CacheMisses)
	for _, m := range misses {
		kind, why := tally.MissNew, "the cell cache holds no entry of them"
		if prev, ok := last[m.cell]; ok {
			kind, why = tally.MissInputs, inputsChanged(prev.Inputs, m.inputs)
		}
		res.AddCacheMiss(kind, why, res.Cells[m.index].Coordinates())
	}
	for _, cm := range res.CacheMisses[before:] {
		if cm.Kind == tally.MissInputs {
			fmt.Fprintf(o.Cache.Log, "cell cache: %d %s run again: %s since %s last entry (first: %s)\n",
				cm.Cells, report.Plural(cm.Cells, "cell is", "cells are"), report.Plain(cm.Why), report.Plural(cm.Cells, "its", "their"), report.Plain(cm.First))
		}
	}
}

// inputsChanged says which inputs of a cell's key differ between an entry's (was) and now.
func inputsChanged(was, now json.RawMessage) string {
	var a, b map[string]json.RawMessage
	_ = json.Unmarshal(was, &a)
	_ = json.Unmarshal(now, &b)
	var what []string
	files := filesChanged(a["client_files"], b["client_files"])
	if files != "" {
		what = append(what, files)
	}
	for _, k := range keyWords {
		// Changed files change the install's key: the files say more.
		if !sameJSON(a[k.field], b[k.field]) && (k.field != "fingerprint" || files == "") {
			what = append(what, k.words)
		}
	}
	if len(what) == 0 {
		return "what their keys are made of changed"
	}
	return strings.Join(what, "; ")
}

// filesChanged says which of a defined client's files changed between an entry's key (was) and
// now, at most three by name: "the client's files changed (notes.log added)"; "" when none did,
// or the entry's key did not list them (an older toolscore's).
func filesChanged(was, now json.RawMessage) string {
	var a, b map[string]string
	if json.Unmarshal(was, &a) != nil || a == nil {
		return ""
	}
	_ = json.Unmarshal(now, &b)
	var what []string
	for _, f := range slices.Sorted(maps.Keys(b)) {
		switch old, had := a[f]; {
		case !had:
			what = append(what, f+" added")
		case old != b[f]:
			what = append(what, f+" changed")
		}
	}
	for _, f := range slices.Sorted(maps.Keys(a)) {
		if _, has := b[f]; !has {
			what = append(what, f+" removed")
		}
	}
	if len(what) == 0 {
		return ""
	}
	if len(what) > 3 {
		what = append(what[:3], fmt.Sprintf("%d more", len(what)-3))
	}
	return "the client's files changed (" + strings.Join(what, ", ") + ")"
}

// sameJSON says whether two JSON values are the same text once compacted (absent is null).
func sameJSON(a, b json.RawMessage) bool {
	compact := func(r json.RawMessage) string {
		var buf bytes.Buffer
		if len(r) == 0 || json.Compact(&buf, r) != nil {
			return string(r)
		}
		return buf.String()
	}
	return compact(a) == compact(b)
}

// replaySessions plays the sessions of keys to a fresh server each where the runs execute,
// through toolscore cache-replay and a clean proxy, and returns the live answers by session key.
func (o Options) replaySessions(ctx context.Context, sessions map[string]cache.Session, keys []string) (map[string]cache.Live, error) {
	dir, err := os.MkdirTemp(o.Out, ".cache-check-")
	if err == nil {
		dir, err = filepath.Abs(dir)
	}
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	server, env, ok := o.PreflightServer(dir)
	if !ok {
		return nil, errors.New("its source cannot be started through a stdio proxy")
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	for _, k := range keys {
		_ = enc.Encode(sessions[k])
	}
	if err := os.WriteFile(filepath.Join(dir, "sessions.jsonl"), []byte(b.String()), 0o644); err != nil {
		return nil, err
	}
	work := o.Backend.WorkDir(dir)
	// Each session is replayed with the cell's own timeout: what comes later than that, a client
	// of the cell would not see either.
	timeout := o.Scenario.Timeout.Std()
	command := append([]string{o.Backend.Self(), cacheReplayCommand, "--in", filepath.Join(work, "sessions.jsonl"), "--wait", timeout.String(), "--"}, server...)
	client := ""
	for _, c := range o.Scenario.Clients {
		if _, out := o.Unavailable[c.ID()]; !out {
			client = c.ID()
			break
		}
	}
	// A replay waits up to the timeout before each message and once more for the answers at its
	// end: this bounds a server that is slow at every step.
	var steps time.Duration
	for _, k := range keys {
		steps += time.Duration(len(sessions[k].Sent)+1) * timeout
	}
	// On docker the replay runs in the client's cell image: built for the checks already
	// (Choice.ReadyForChecks), unless the sweep did not check the server (a replay's).
	if err := o.Installs.ForChecks(ctx, client); err != nil {
		return nil, err
	}
	res := o.Backend.Run(ctx, backend.Spec{Dir: dir, Client: client, Cell: "cache check", Command: command, Env: env, Timeout: 2*time.Minute + steps})
	switch {
	case res.Err != nil:
		return nil, res.Err
	case res.Cancelled:
		return nil, ctx.Err()
	case res.ExitCode != 0 || res.TimedOut:
		return nil, fmt.Errorf("the replay exited %d: %s", res.ExitCode, lastLine(res.Stderr))
	}
	f, err := record.Open(res.Stdout)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	live := map[string]cache.Live{}
	d := json.NewDecoder(bufio.NewReader(f))
	for {
		var l cache.Live
		if err := d.Decode(&l); err == io.EOF {
			break
		} else if err != nil {
			return nil, fmt.Errorf("reading the live answers: %w", err)
		}
		live[l.Key] = l
	}
	return live, nil
}

func lastLine(b []byte) string {
	s := strings.TrimSpace(string(b))
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return s
}

// reuseCell puts the runs of a cell the cache holds into the output as if they had run: their
// directories copied, their records given to take (the sink, which writes and counts them).
// false: the entry could not be copied (removed or edited since it was checked), and the cell
// runs.
func (o Options) reuseCell(i int, c *tally.Cell, take func(*record.Run) error) (bool, error) {
	if !o.cachedCell(i) {
		return false, nil
	}
	h := o.Cache.hits[i]
	from := h.entry.Meta.Sweep
	var recs []*record.Run
	for _, r := range h.runs {
		var rec record.Run
		if err := json.Unmarshal(r.Line, &rec); err != nil {
			return o.cannotReuse(c, err), nil
		}
		if err := h.entry.Copy(o.Out, r); err != nil {
			return o.cannotReuse(c, err), nil
		}
		// Its line in runs.jsonl says where it came from, so a resumed sweep counts it reused.
		rec.ReusedFrom, rec.CacheKey = &from, h.key
		recs = append(recs, &rec)
	}
	for _, rec := range recs {
		if err := take(rec); err != nil {
			return true, err
		}
	}
	return true, nil
}

// cachedCell says whether the cache gives cell i (cacheHits found it).
func (o Options) cachedCell(i int) bool {
	return o.Cache != nil && o.Cache.hits[i] != nil
}

func (o Options) cannotReuse(c *tally.Cell, err error) bool {
	fmt.Fprintf(o.Cache.Log, "cell cache: %s: %s; the cell runs\n", report.Plain(c.Key()), report.Plain(err.Error()))
	return false
}

// ranRun notes the record of a run that ended, for its cell's entry.
func (o Options) ranRun(j Job, line []byte) {
	if o.Cache == nil || j.Alone {
		return
	}
	cc := o.Cache
	cc.mu.Lock()
	defer cc.mu.Unlock()
	cc.ran[j.Index] = append(cc.ran[j.Index], cache.Run{Number: j.Run, Line: append([]byte(nil), line[:len(line)-1]...), Dir: j.Dir()})
}

// suspectCell is a cell whose runs are over, kept until its run alone: the outcome its runs
// had that load may make.
type suspectCell struct {
	first   Job
	slice   []int
	runs    []cache.Run
	outcome record.Outcome
	stale   bool
}

// keepCell stores cell c in the cache once its runs are over: only a cell this sweep ran every
// run of (all of the cell's, or all of its shard's slice, kept under a key of that slice). A
// cell with an outcome the machine's load may have made (hung, crashed...) waits for its run
// alone (keepConfirmed). A cell with a run toolscore did not observe whole (unobserved) is
// never stored, whatever its run alone has: its counts hold toolscore's failure, which no live
// run is bound to repeat. A cache that cannot be written is said once, and the sweep goes on
// without storing.
func (o Options) keepCell(ctx context.Context, c cellRuns, started time.Time) {
	cc := o.Cache
	if cc == nil || ctx.Err() != nil {
		return
	}
	first := c.First
	cc.mu.Lock()
	runs := cc.ran[first.Index]
	delete(cc.ran, first.Index)
	stale := cc.stale[first.Index]
	cc.mu.Unlock()
	slice := o.sliceOf(c)
	if len(runs) != cmp.Or(len(slice), o.Scenario.Runs) {
		return
	}
	var suspect record.Outcome
	for _, r := range runs {
		var rec struct {
			Outcome record.Outcome `json:"outcome"`
		}
		if json.Unmarshal(r.Line, &rec) != nil || rec.Outcome == record.Unobserved {
			return
		}
		if loadMayMake(rec.Outcome) {
			if suspect != "" && suspect != rec.Outcome {
				return // two such outcomes: nothing one run alone can confirm
			}
			suspect = rec.Outcome
		}
	}
	if suspect != "" {
		cc.mu.Lock()
		if cc.suspect == nil {
			cc.suspect = map[int]suspectCell{}
		}
		cc.suspect[first.Index] = suspectCell{first, slice, runs, suspect, stale}
		cc.mu.Unlock()
		return
	}
	o.storeCell(ctx, first, slice, runs, stale, started)
}

// aloneRan notes the outcome of a cell's run alone.
func (o Options) aloneRan(j Job, outcome record.Outcome) {
	if o.Cache == nil {
		return
	}
	cc := o.Cache
	cc.mu.Lock()
	defer cc.mu.Unlock()
	if cc.alone == nil {
		cc.alone = map[int]record.Outcome{}
	}
	cc.alone[j.Index] = outcome
}

// keepConfirmed stores, once the runs alone are over, the cells whose run alone had the outcome
// their runs had: that outcome is the client's, not the load's, and worth keeping as any other.
func (o Options) keepConfirmed(ctx context.Context, started time.Time) {
	cc := o.Cache
	if cc == nil || ctx.Err() != nil {
		return
	}
	cc.mu.Lock()
	var keep []suspectCell
	for i, s := range cc.suspect {
		if cc.alone[i] == s.outcome {
			keep = append(keep, s)
		}
	}
	cc.suspect = nil
	cc.mu.Unlock()
	for _, s := range keep {
		o.storeCell(ctx, s.first, s.slice, s.runs, s.stale, started)
	}
}

// storeCell puts a cell's runs (of its shard's slice, when not all) into the cache.
func (o Options) storeCell(ctx context.Context, first Job, slice []int, runs []cache.Run, stale bool, started time.Time) {
	cc := o.Cache
	cc.mu.Lock()
	off := cc.cannotWrite
	cc.mu.Unlock()
	if off || o.cacheUnusable() != "" {
		return
	}
	slices.SortFunc(runs, func(a, b cache.Run) int { return a.Number - b.Number })
	for k, n := range slice {
		if runs[k].Number != n {
			return // not the slice's runs (a resumed sweep's): its key would lie
		}
	}
	key, inputs := o.cellKey(first, slice)
	meta := cache.Meta{Key: key, Cell: first.Cell.Key(), Sweep: started, Stored: time.Now().UTC(), Toolscore: o.Version, Inputs: inputs}
	if err := cc.Store.Put(ctx, meta, o.Out, runs, stale); err != nil {
		cc.mu.Lock()
		defer cc.mu.Unlock()
		if !cc.cannotWrite {
			cc.cannotWrite = true
			why := err.Error()
			if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EROFS) || errors.Is(err, syscall.EACCES) || errors.Is(err, syscall.EDQUOT) {
				why = "it is full or read-only: " + why
			}
			fmt.Fprintf(cc.Log, "warning: cell cache: cannot store cells in %s (%s); the sweep goes on without storing\n", cc.Store.Dir, report.Plain(why))
		}
	}
}

// Reused says how many of the sweep's cells were taken from the cache.
func (cc *CellCache) Reused() int {
	if cc == nil {
		return 0
	}
	return len(cc.hits)
}
