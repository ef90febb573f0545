package action

import (
	"encoding/json"
	"testing"
)

func TestPullNumber(t *testing.T) {
	for _, tc := range []struct {
		event string
		want  int
	}{
		{`{"number": 7, "pull_request": {"number": 7}}`, 7},
		{`{"pull_request": {"number": 9}}`, 9},
		{`{"number": 3, "pull_request": {}}`, 3},
		{`{"issue": {"number": 5}}`, 0},
		{`{"pull_request": {"number": 1.5}}`, 0},
		{`{}`, 0},
	} {
		var ev map[string]any
		json.Unmarshal([]byte(tc.event), &ev)
		if got := pullNumber(ev); got != tc.want {
			t.Errorf("pullNumber(%s) = %d, want %d", tc.event, got, tc.want)
		}
	}
}
