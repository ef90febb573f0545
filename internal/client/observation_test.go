package client

import (
	"strings"
	"testing"

	"github.com/toolscore/toolscore/record"
)

// TestLacksCountsHanded: a framework adapter's handed value is an outcome the grader grades, so
// check-client does not call its line incomplete; a line with no outcome at all still is.
func TestLacksCountsHanded(t *testing.T) {
	handed := &record.Observation{Client: "ai-sdk/schemas", Library: "@ai-sdk/mcp 2.0.99", Handed: &record.ModelView{Kind: "structured", Excerpt: "{}"}}
	if got := Lacks(handed, false); len(got) != 0 {
		t.Errorf("a handed observation lacks %v", got)
	}
	bare := &record.Observation{Client: "x", Library: "y"}
	if got := Lacks(bare, false); len(got) != 1 || !strings.Contains(got[0], `"handed"`) {
		t.Errorf("an observation with no outcome lacks %v, want the outcome named", got)
	}
}
