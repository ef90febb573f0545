package tally

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"
)

// Merge adds up several sweeps of one scenario, e.g. shards run on different machines or a
// sweep run again for more runs per cell. The inputs are not changed.
//
// Cells with the same Key are summed (runs, planned runs, outcome counts) and keep the first
// example of each outcome; cells keep the order in which they first appear. The merged sweep
// started with the earliest input and finished with the latest, and was interrupted if any
// input was. An expectation (the same manifest line) is unmet if it was in any input, else held
// if it held in one, else unchecked, and its misses are all the inputs' misses: it cannot be
// checked again here, because that needs the manifest.
func Merge(rs ...*Results) (*Results, error) {
	if len(rs) == 0 {
		return nil, errors.New("nothing to merge: no results given")
	}
	for i, r := range rs {
		if r == nil {
			return nil, fmt.Errorf("results %d of %d is missing", i+1, len(rs))
		}
		if r.Scenario != rs[0].Scenario {
			return nil, fmt.Errorf("cannot merge results of different scenarios: %q (results 1) and %q (results %d)", rs[0].Scenario, r.Scenario, i+1)
		}
	}

	m := &Results{Scenario: rs[0].Scenario, Cells: []*Cell{}}
	var toolscores, backends, whys []string
	cells := map[string]*Cell{}
	expects := map[int]int{} // manifest line -> index in m.Expectations
	unavailable := map[Unavailable]bool{}
	for _, r := range rs {
		toolscores = appendDistinct(toolscores, r.Toolscore)
		backends = appendDistinct(backends, r.Backend)
		whys = appendDistinct(whys, r.BackendWhy)
		if !r.Started.IsZero() && (m.Started.IsZero() || r.Started.Before(m.Started)) {
			m.Started = r.Started
		}
		if r.Finished.After(m.Finished) {
			m.Finished = r.Finished
		}
		m.Interrupted = m.Interrupted || r.Interrupted
		m.RunsExecuted += r.RunsExecuted
		m.RunsReused += r.RunsReused
		for _, c := range r.Installed {
			m.Installed = appendDistinct(m.Installed, c)
		}
		for _, c := range r.NotInstalled {
			m.NotInstalled = appendDistinct(m.NotInstalled, c)
		}
		for _, cm := range r.CacheMisses {
			i := slices.IndexFunc(m.CacheMisses, func(o CacheMiss) bool { return o.Kind == cm.Kind && o.Why == cm.Why })
			if i < 0 {
				m.CacheMisses = append(m.CacheMisses, cm)
				continue
			}
			m.CacheMisses[i].Cells += cm.Cells
		}

		for _, c := range r.Cells {
			if c == nil {
				continue
			}
			mc, ok := cells[c.Key()]
			if !ok {
				mc = &Cell{Cell: c.Cell, Outcome: map[string]int{}}
				cells[c.Key()] = mc
				m.Cells = append(m.Cells, mc)
			}
			mc.addCell(c)
		}

		for _, e := range r.Expectations {
			i, ok := expects[e.Line]
			if !ok {
				expects[e.Line] = len(m.Expectations)
				e.setStatus(e.State())
				e.Misses = append([]string(nil), e.Misses...)
				m.Expectations = append(m.Expectations, e)
				continue
			}
			me := &m.Expectations[i]
			switch {
			case me.State() == Unmet || e.State() == Unmet:
				me.setStatus(Unmet)
			case me.State() == Held || e.State() == Held:
				me.setStatus(Held)
			}
			if me.Status != Unchecked {
				me.Unchecked = ""
			}
			me.Misses = append(me.Misses, e.Misses...)
		}

		for _, u := range r.Unavailable {
			if !unavailable[u] {
				unavailable[u] = true
				m.Unavailable = append(m.Unavailable, u)
			}
		}
		for _, n := range r.NotApplicable {
			if !slices.ContainsFunc(m.NotApplicable, func(o NotApplicable) bool { return o.Tool == n.Tool }) {
				m.NotApplicable = append(m.NotApplicable, n)
			}
		}
	}
	// Inputs normally agree on these; when they do not, every value stays visible.
	m.Toolscore = strings.Join(toolscores, ", ")
	m.Backend = strings.Join(backends, ", ")
	m.BackendWhy = strings.Join(whys, "; ")
	return m, nil
}

// addCell adds the counts, examples and durations of c (a cell with the same key) to mc.
func (mc *Cell) addCell(c *Cell) {
	// The merged cell keeps where each input's reused runs came from: a shard that reused its
	// slice beside one that ran its own leaves the cell partly reused (RunsReused < Runs), never
	// wholly, and never run by this sweep alone.
	if n := c.Reused(); n > 0 {
		if c.ReusedFrom != nil && (mc.ReusedFrom == nil || c.ReusedFrom.Before(*mc.ReusedFrom)) {
			mc.ReusedFrom = c.ReusedFrom
		}
		var keys []string
		if mc.CacheKey != "" {
			keys = strings.Split(mc.CacheKey, ", ")
		}
		mc.CacheKey = strings.Join(appendDistinct(keys, c.CacheKey), ", ")
		mc.RunsReused += n
	}
	mc.Runs += c.Runs
	mc.Planned += c.Planned
	for o, n := range c.Outcome {
		mc.Outcome[o] += n
	}
	mc.AloneNotRun = mc.AloneNotRun || c.AloneNotRun
	for o, n := range c.Alone {
		if mc.Alone == nil {
			mc.Alone = map[string]int{}
		}
		mc.Alone[o] += n
	}
	for o, n := range c.AloneFor {
		if mc.AloneFor == nil {
			mc.AloneFor = map[string]int{}
		}
		mc.AloneFor[o] += n
	}
	mc.Mixed = mc.IsMixed()
	for v, n := range c.Negotiated {
		if mc.Negotiated == nil {
			mc.Negotiated = map[string]int{}
		}
		mc.Negotiated[v] += n
	}
	for k, n := range c.Calls {
		if mc.Calls == nil {
			mc.Calls = map[string]int{}
		}
		mc.Calls[k] += n
	}
	mc.Cancelled += c.Cancelled
	mc.Duplicate += c.Duplicate
	// An agent cell's model views and answers are counts too.
	for v, n := range c.ModelView {
		if mc.ModelView == nil {
			mc.ModelView = map[string]int{}
		}
		mc.ModelView[v] += n
	}
	for a, n := range c.Answer {
		if mc.Answer == nil {
			mc.Answer = map[string]int{}
		}
		mc.Answer[a] += n
	}
	for o, ex := range c.Examples {
		if mc.Examples == nil {
			mc.Examples = map[string]Example{}
		}
		if _, ok := mc.Examples[o]; !ok {
			mc.Examples[o] = ex
		}
	}
	var libs []string
	if mc.Library != "" {
		libs = strings.Split(mc.Library, ", ")
	}
	mc.Library = strings.Join(appendDistinct(libs, c.Library), ", ")
	// A cell read back from results.json has lost its run durations; its median, once per
	// run, is the best stand-in, and keeps the merged median close to the true one.
	d := c.durations
	if len(d) != c.Runs {
		d = make([]time.Duration, c.Runs)
		for i := range d {
			d[i] = time.Duration(c.MedianMillis) * time.Millisecond
		}
	}
	mc.durations = append(mc.durations, d...)
	if len(mc.durations) > 0 {
		s := append([]time.Duration(nil), mc.durations...)
		sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
		mc.MedianMillis = s[len(s)/2].Milliseconds()
	}
}

// appendDistinct appends s to list unless it is empty or already there.
func appendDistinct(list []string, s string) []string {
	if s == "" {
		return list
	}
	for _, v := range list {
		if v == s {
			return list
		}
	}
	return append(list, s)
}
