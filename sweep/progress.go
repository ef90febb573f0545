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
	stop        chan struct{}
	stopped     sync.WaitGroup
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

func (p *progress) draw() {
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
