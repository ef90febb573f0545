package cli

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/toolscore/toolscore/exitcode"
	"github.com/toolscore/toolscore/scenario"
	"github.com/toolscore/toolscore/sweep"
)

// TestFlags: the sweep's errors in Config's terms come out in toolscore run's flags, joined ones
// each, through the exit code's wrapper, which keeps its code.
func TestFlags(t *testing.T) {
	err := exitcode.UsageError(errors.Join(
		&sweep.ConfigError{Field: "Replay", Err: errors.New("out is a sweep of the scenario \"a\", not of \"b\"")},
		&sweep.TooBigError{What: "20 runs (2 cells × 10 runs)", Limit: 10, Need: 20, Tools: []scenario.Tool{{Name: "a"}, {Name: "b"}}},
		errors.New("something else"),
	))
	got := Flags(err)
	want := "--replay: out is a sweep of the scenario \"a\", not of \"b\"\n" +
		"the sweep would make 20 runs (2 cells × 10 runs), over the limit of 10 runs; narrow it with --tools NAME,... (the scenario calls 2 tools: a, b), --clients, --faults, --schema, --protocols, --runs or --shard, or raise the limit with --max-runs 20 (the action's input max-runs)\n" +
		"something else"
	if got.Error() != want || exitcode.Of(got) != exitcode.Usage {
		t.Errorf("Flags = %q (exit %d), want %q (exit 2)", got, exitcode.Of(got), want)
	}
	var b bytes.Buffer
	PrintSweepError(&b, "toolscore run", err, nil, "")
	if printed := "toolscore run: " + strings.ReplaceAll(want, "\n", "\ntoolscore run: ") + "\n"; b.String() != printed {
		t.Errorf("printed:\n%s\nwant:\n%s", b.String(), printed)
	}
	b.Reset()
	PrintSweepError(&b, "toolscore run", exitcode.UnmetError(fmt.Errorf("1 of 2 expectations did not hold")), nil, "")
	if b.Len() != 0 {
		t.Errorf("an unmet expectation printed %q; the report shows it", b.String())
	}
}
