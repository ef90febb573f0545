package model

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"
)

// TestRequestLineStartsWithItsTime: the grader reads only the head of each line of
// model-requests.jsonl for its time (a line may be a request of any size), so the time must
// come first.
func TestRequestLineStartsWithItsTime(t *testing.T) {
	b, err := json.Marshal(Request{Time: time.Unix(1, 0).UTC(), Method: "POST", Path: "/v1/responses", Body: json.RawMessage(`{}`)})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b, []byte(`{"time":"1970-01-01T00:00:01Z"`)) {
		t.Errorf("a request's line starts %.40s, want its time first", b)
	}
}
