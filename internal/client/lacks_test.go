package client

import "testing"

// TestLacksHanded: an observation whose outcome is what a framework handed its model satisfies
// the contract as returned and raised do (toolscore check-client says so), and one with no
// outcome at all does not.
func TestLacksHanded(t *testing.T) {
	handed := &Observation{Client: "f", Library: "f 1", Handed: &ModelView{Kind: ViewText, Excerpt: "x"}}
	if l := handed.Lacks(false); len(l) != 0 {
		t.Errorf("a handed observation lacks %q", l)
	}
	if l := (&Observation{Client: "f", Library: "f 1"}).Lacks(false); len(l) != 1 {
		t.Errorf("an observation without an outcome lacks %q, want one phrase", l)
	}
}
