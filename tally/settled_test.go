package tally

import (
	"reflect"
	"testing"
)

// TestSettled: each run re-run alone counts with its outcome alone in place of its first one;
// a cell whose run alone came out otherwise while another run like it was not re-run is the
// load's; results without alone_for settle at their counts.
func TestSettled(t *testing.T) {
	for _, c := range []struct {
		name                  string
		outcome, alone, first map[string]int
		want                  map[string]int
		ok                    bool
	}{
		{"no run alone", map[string]int{"passed": 2}, nil, nil, map[string]int{"passed": 2}, true},
		{"the load's", map[string]int{"hung": 1}, map[string]int{"passed": 1}, map[string]int{"hung": 1}, map[string]int{"passed": 1}, true},
		{"the client's", map[string]int{"hung": 1}, map[string]int{"hung": 1}, map[string]int{"hung": 1}, map[string]int{"hung": 1}, true},
		{"one of two", map[string]int{"hung": 1, "passed": 2}, map[string]int{"passed": 1}, map[string]int{"hung": 1}, map[string]int{"passed": 3}, true},
		{"decided by the load", map[string]int{"hung": 2}, map[string]int{"passed": 1}, map[string]int{"hung": 1}, map[string]int{"hung": 2}, false},
		{"confirmed, one not re-run", map[string]int{"hung": 2}, map[string]int{"hung": 1}, map[string]int{"hung": 1}, map[string]int{"hung": 2}, true},
		{"older results", map[string]int{"hung": 1}, map[string]int{"passed": 1}, nil, map[string]int{"hung": 1}, true},
	} {
		cell := &Cell{Outcome: c.outcome, Alone: c.alone, AloneFor: c.first}
		got, ok := cell.Settled()
		if !reflect.DeepEqual(got, c.want) || ok != c.ok {
			t.Errorf("%s: Settled() = %v, %v; want %v, %v", c.name, got, ok, c.want, c.ok)
		}
	}
}
