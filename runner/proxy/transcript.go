package proxy

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"sort"
)

// Entry is one transcript record as read back, with the wire bytes decoded.
type Entry struct {
	Record
	WireText     *string `json:"wire"`
	WireBase64   *string `json:"wire_base64"`
	OriginalText *string `json:"original"`
}

// ReadTranscript reads a tee file back, sorted by time (the order things happened).
func ReadTranscript(r io.Reader) ([]Entry, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<30)
	var out []Entry
	for n := 1; sc.Scan(); n++ {
		var e Entry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return out, fmt.Errorf("transcript line %d: %w", n, err)
		}
		switch {
		case e.WireText != nil:
			e.Wire = []byte(*e.WireText)
		case e.WireBase64 != nil:
			e.Wire, _ = base64.StdEncoding.DecodeString(*e.WireBase64)
		}
		if e.OriginalText != nil {
			e.Original = []byte(*e.OriginalText)
		}
		out = append(out, e)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Time.Before(out[j].Time) })
	return out, sc.Err()
}

// TargetAnswer finds the last target tools/call the client made and the answer the proxy sent
// for it; answer is nil when none came (the server died, or hung).
func TargetAnswer(entries []Entry) (request, answer *Entry) {
	for i := range entries {
		e := &entries[i]
		if e.Dir == ClientToServer && e.Match != nil {
			request, answer = e, nil
		}
		if request != nil && answer == nil && e.Dir == ServerToClient {
			if env, ok := parseEnvelope(e.Wire); ok && env.Method == "" {
				if req, _ := parseEnvelope(request.Wire); idKey(req.ID) == idKey(env.ID) {
					answer = e
				}
			}
		}
	}
	return request, answer
}
