package record

import "testing"

// TestCallsSaid: the evidence names the calls only past one call sent and not cancelled.
func TestCallsSaid(t *testing.T) {
	for _, c := range []struct {
		calls *Calls
		want  string
	}{
		{nil, ""},
		{&Calls{Sent: 1, IDs: []string{"2"}}, ""},
		{&Calls{Sent: 1, IDs: []string{"1"}, Cancelled: []string{"1"}}, "the client sent the call once (id 1); it cancelled id 1"},
		{&Calls{Sent: 2, IDs: []string{"2", "3"}, WaitsMillis: []int64{2692}, SideEffects: "destructiveHint: true", Duplicate: true},
			"the client sent the call 2 times (ids 2, 3), waiting 2.692s before the tries after the first; duplicate: the tool has side effects (destructiveHint: true)"},
		{&Calls{Sent: 20, IDs: []string{"1", "2"}}, "the client sent the call 20 times (ids 1, 2, ...)"},
	} {
		if got := c.calls.Said(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.calls, got, c.want)
		}
	}
}
