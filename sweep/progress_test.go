package sweep

import (
	"bytes"
	"fmt"
	"regexp"
	"testing"
	"time"

	"github.com/toolscore/toolscore/record"
	"github.com/toolscore/toolscore/scenario"
	"github.com/toolscore/toolscore/tally"
)

// TestProgressLinesInALog: in a CI log (no terminal) each finished cell's line carries the
// sweep's elapsed time and ETA (issue 52, item 5), as the live line does on a terminal.
func TestProgressLinesInALog(t *testing.T) {
	var b bytes.Buffer
	p := newProgress(&b, 2)
	p.Started(2, 0)
	for i, f := range []string{"clean", "type-swap"} {
		c := &tally.Cell{Cell: record.Cell{Client: "raw", Fault: f, Schema: "hidden", Protocol: "as-is", Transport: "stdio"}, Planned: 1, Runs: 1, Outcome: map[string]int{"passed": 1}}
		p.RunStarted(scenario.Cell{}, i+1)
		p.RunDone(scenario.Cell{}, i+1, record.Outcome("passed"), true, c)
	}
	p.finish()
	want := regexp.MustCompile(`^\[1/2, 0:00 elapsed, ETA 0:00\] raw × clean × hidden[^\n]*: passed 1/1\n\[2/2, 0:00 elapsed, ETA 0:00\] raw × type-swap × hidden[^\n]*: passed 1/1\n$`)
	if !want.MatchString(b.String()) {
		t.Errorf("the log's lines:\n%s", b.String())
	}
}

// TestProgressOfRunsAlone: the runs run again alone once the sweep's are over (each up to the
// timeout, minutes of silence before) are announced, and each says how far they are (issue
// 52, item 5).
func TestProgressOfRunsAlone(t *testing.T) {
	var b bytes.Buffer
	p := newProgress(&b, 2)
	p.Started(2, 0)
	p.AloneStarted(2, 30*time.Second)
	for _, f := range []string{"clean", "error"} {
		c := &tally.Cell{Cell: record.Cell{Client: "raw", Fault: f, Schema: "hidden", Protocol: "as-is", Transport: "stdio"}, Planned: 1, Runs: 1,
			Outcome: map[string]int{"hung": 1}, Alone: map[string]int{"passed": 1}}
		p.AloneDone(c, record.Outcome("passed"))
	}
	p.finish()
	want := regexp.MustCompile(`^2 runs run again alone, one after the other \(each up to 30s\): their outcomes are ones the machine's load may have made\n` +
		`\[alone 1/2, 0:00 elapsed, ETA 0:00\] raw × clean × hidden[^\n]*: hung 1/1, alone: passed\n` +
		`\[alone 2/2, 0:00 elapsed, ETA 0:00\] raw × error × hidden[^\n]*: hung 1/1, alone: passed\n$`)
	if !want.MatchString(b.String()) {
		t.Errorf("the log's lines:\n%s", b.String())
	}
}

// TestProgressLogAboveTheLiveLine: on a terminal, a line of the sweep's log written while the
// live line shows (the cell cache's check) clears it first and has it drawn again below, never
// running into it.
func TestProgressLogAboveTheLiveLine(t *testing.T) {
	var b bytes.Buffer
	p := &progress{w: &b, live: true, cells: 2, start: time.Now(), stop: make(chan struct{})}
	p.draw()
	fmt.Fprintln(p, "cell cache: checking the live server")
	want := regexp.MustCompile(`^\r\033\[K  cells 0/2 [^\n]*\r\033\[Kcell cache: checking the live server\n\r\033\[K  cells 0/2 [^\n]*$`)
	if !want.MatchString(b.String()) {
		t.Errorf("the terminal got %q", b.String())
	}
}
