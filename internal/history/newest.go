package history

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/toolscore/toolscore/internal/outdir"
	"github.com/toolscore/toolscore/tally"
)

// Newest is one sweep of every client of the history at its newest release swept:
// each client's cells from that release's sweep (its directory relative to dir), their
// transcripts' paths made relative to dir; a client no release of which ran is unavailable,
// with why its newest would not install.
func Newest(dir string, h *tally.History) (*tally.Results, error) {
	var sweeps []*tally.Results
	var unavailable []tally.Unavailable
	for _, ch := range h.Clients {
		var newest *tally.Release
		why := ""
		for i := len(ch.Versions) - 1; i >= 0 && newest == nil; i-- {
			r := &ch.Versions[i]
			switch {
			case r.InstallFailed != "" && why == "":
				why = r.Version + ": " + firstNonBlank(r.InstallFailed)
			case r.Swept && r.Sweep != "" && r.InstallFailed == "":
				newest = r
			}
		}
		if newest == nil {
			reason := "no release in the history's range ran"
			if why != "" {
				reason += "; the newest that would not install, " + why
			}
			unavailable = append(unavailable, tally.Unavailable{Client: ch.Client, Reason: reason})
			continue
		}
		res, err := outdir.ReadResults(filepath.Join(dir, filepath.FromSlash(newest.Sweep)))
		if err != nil {
			return nil, fmt.Errorf("reading %s's newest release swept, %s: %w", ch.Client, newest.Version, err)
		}
		// A sweep may hold other clients: this client's cells alone, so none is counted twice.
		mine := *res
		mine.Scenario, mine.Cells, mine.Unavailable, mine.Expectations = h.Scenario, nil, nil, nil
		for _, c := range res.Cells {
			if c == nil || clientName(c.Client) != ch.Client {
				continue
			}
			cc := *c
			cc.Examples = map[string]tally.Example{}
			for o, ex := range c.Examples {
				if ex.Tee != "" && !filepath.IsAbs(ex.Tee) {
					ex.Tee = path.Join(filepath.ToSlash(newest.Sweep), ex.Tee)
				}
				cc.Examples[o] = ex
			}
			mine.Cells = append(mine.Cells, &cc)
		}
		for _, u := range res.Unavailable {
			if clientName(u.Client) == ch.Client {
				mine.Unavailable = append(mine.Unavailable, u)
			}
		}
		sweeps = append(sweeps, &mine)
	}
	if len(sweeps) == 0 {
		return &tally.Results{Scenario: h.Scenario, Toolscore: h.Toolscore, Backend: h.Backend, Started: h.Started, Finished: h.Finished, Unavailable: unavailable}, nil
	}
	res, err := tally.Merge(sweeps...)
	if err != nil {
		return nil, fmt.Errorf("putting the clients' newest releases on one page: %w", err)
	}
	res.Unavailable = append(res.Unavailable, unavailable...)
	return res, nil
}

// clientName is a cell's client without its version or model.
func clientName(id string) string {
	name, _, _ := strings.Cut(id, "@")
	name, _, _ = strings.Cut(name, ":")
	return name
}

// firstNonBlank is the first non-blank line of s.
func firstNonBlank(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return ""
}
