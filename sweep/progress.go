package sweep

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/toolscore/toolscore/record"
	"github.com/toolscore/toolscore/report"
	"github.com/toolscore/toolscore/scenario"
	"github.com/toolscore/toolscore/tally"
)

// progress shows the sweep as it goes: one live line on a terminal, plain lines (one per
// finished cell) in a CI log.
type progress struct {
	w           io.Writer
	live        bool
	mu          sync.Mutex
	start       time.Time
	total, done int
	running     int
	cells       int
	cellsDone   int
	// alone is how many runs run again alone once the sweep's are over, aloneDone how many
	// of them ended, since aloneStart.
	alone, aloneDone int
	aloneStart       time.Time
	stop             chan struct{}
	stopped          sync.WaitGroup
}

func newProgress(w io.Writer, cells int) *progress {
	p := &progress{w: w, cells: cells, start: time.Now(), stop: make(chan struct{})}
	if f, ok := w.(*os.File); ok && isTerminal(f) && os.Getenv("CI") == "" {
		p.live = true
		p.stopped.Add(1)
		go func() {
			defer p.stopped.Done()
			t := time.NewTicker(500 * time.Millisecond)
			defer t.Stop()
			for {
				select {
				case <-p.stop:
					return
				case <-t.C:
					p.mu.Lock()
					p.draw()
					p.mu.Unlock()
				}
			}
		}()
	}
	return p
}

func (p *progress) Started(total, cellsDone int) {
	p.mu.Lock()
	p.total, p.cellsDone = total, cellsDone
	p.mu.Unlock()
}

func (p *progress) RunStarted(scenario.Cell, int) { p.mu.Lock(); p.running++; p.mu.Unlock() }

func (p *progress) RunDone(cell scenario.Cell, run int, outcome record.Outcome, cellDone bool, c *tally.Cell) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.running--
	p.done++
	if cellDone {
		p.cellsDone++
		if !p.live {
			// A CI log has no live line: each line says how far the sweep is in time too.
			fmt.Fprintf(p.w, "[%d/%d, %s elapsed, ETA %s] %s: %s\n", p.cellsDone, p.cells, clock(time.Since(p.start)), p.eta(),
				report.Plain(c.Coordinates()), report.Plain(c.Shown()))
		}
	}
	if p.live {
		p.draw()
	}
}

// AloneStarted says, before the runs run again alone (one after the other, each up to a
// timeout: minutes for a client that hangs), how many there are and why.
func (p *progress) AloneStarted(runs int, timeout time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.alone, p.aloneStart = runs, time.Now()
	p.line(fmt.Sprintf("%d %s again alone, one after the other (each up to %s): %s the machine's load may have made",
		runs, report.Plural(runs, "run runs", "runs run"), timeout, report.Plural(runs, "its outcome is one", "their outcomes are ones")))
}

// AloneDone says a run alone ended: its cell, with the counts and what it had alone.
func (p *progress) AloneDone(c *tally.Cell, outcome record.Outcome) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.aloneDone++
	p.line(fmt.Sprintf("[alone %d/%d, %s elapsed, ETA %s] %s: %s", p.aloneDone, p.alone, clock(time.Since(p.start)), p.aloneETA(),
		report.Plain(c.Coordinates()), report.Plain(c.Shown())))
}

// aloneETA is how long the runs alone left will take at the pace of those done so far.
func (p *progress) aloneETA() string {
	if p.aloneDone == 0 {
		return "?"
	}
	return clock(time.Duration(float64(time.Since(p.aloneStart)) / float64(p.aloneDone) * float64(max(p.alone-p.aloneDone, 0))))
}

// Write writes lines of the sweep's log while the progress shows (the cell cache's): on a
// terminal above the live line, which would otherwise run into them, drawn again below them.
func (p *progress) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.live {
		return p.w.Write(b)
	}
	n, err := fmt.Fprintf(p.w, "\r\033[K%s", b)
	p.draw()
	return max(n-len("\r\033[K"), 0), err
}

// line writes a line of its own: on a terminal above the live line, drawn again below it.
func (p *progress) line(s string) {
	if !p.live {
		fmt.Fprintln(p.w, s)
		return
	}
	fmt.Fprintf(p.w, "\r\033[K%s\n", s)
	p.draw()
}

func (p *progress) draw() {
	if p.alone > 0 {
		fmt.Fprintf(p.w, "\r\033[K  runs alone %d/%d · %s elapsed · ETA %s", p.aloneDone, p.alone, clock(time.Since(p.start)), p.aloneETA())
		return
	}
	fmt.Fprintf(p.w, "\r\033[K  cells %d/%d · runs %d/%d · %d running · %s elapsed · ETA %s",
		p.cellsDone, p.cells, p.done, p.total, p.running, clock(time.Since(p.start)), p.eta())
}

// eta is how long the runs left will take at the pace of those done so far, "?" before any.
func (p *progress) eta() string {
	if p.done == 0 {
		return "?"
	}
	return clock(time.Duration(float64(time.Since(p.start)) / float64(p.done) * float64(max(p.total-p.done, 0))))
}

func (p *progress) finish() {
	close(p.stop)
	p.stopped.Wait()
	if p.live {
		p.mu.Lock()
		p.draw()
		fmt.Fprintln(p.w)
		p.mu.Unlock()
	}
}

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

func clock(d time.Duration) string {
	d = d.Round(time.Second)
	return fmt.Sprintf("%d:%02d", int(d.Minutes()), int(d.Seconds())%60)
}
