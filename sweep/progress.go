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
			fmt.Fprintf(p.w, "[%d/%d] %s: %s\n", p.cellsDone, p.cells, report.Plain(c.Coordinates()), report.Plain(c.Shown()))
		}
	}
	if p.live {
		p.draw()
	}
}

func (p *progress) draw() {
	elapsed := time.Since(p.start)
	eta := "?"
	if p.done > 0 {
		eta = clock(time.Duration(float64(elapsed) / float64(p.done) * float64(p.total-p.done)))
	}
	fmt.Fprintf(p.w, "\r\033[K  cells %d/%d · runs %d/%d · %d running · %s elapsed · ETA %s",
		p.cellsDone, p.cells, p.done, p.total, p.running, clock(elapsed), eta)
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
