package proxy

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
)

// Entry is one transcript record as read back, with the wire bytes decoded.
type Entry struct {
	Record
	WireText     *string `json:"wire"`
	WireBase64   *string `json:"wire_base64"`
	OriginalText *string `json:"original"`
}

// ReadTranscript reads a tee file back, sorted by time (the order things happened). A line that
// is not a record (one cut short when the proxy was killed in the middle of writing it) is
// passed over, and the first such is the error.
func ReadTranscript(r io.Reader) ([]Entry, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<30)
	var out []Entry
	var bad error
	for n := 1; sc.Scan(); n++ {
		var e Entry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			if bad == nil {
				bad = fmt.Errorf("transcript line %d: %w", n, err)
			}
			continue
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
	if sc.Err() != nil {
		return out, sc.Err()
	}
	return out, bad
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

// EndWithout appends to the transcript at path an event saying why it holds no record of the
// server's exit, when it holds none: the proxy, the only one to see the server exit, was gone
// first (killed outright, out of memory). why is the reason, as whoever ran the proxy knows it.
// A missing transcript stays missing. It says whether it appended.
func EndWithout(path, why string, detail map[string]any) (bool, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND, 0)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return false, err
	}
	// The session's end is among the last records, and small: the tail is enough to look in.
	tail := make([]byte, min(info.Size(), 64<<10))
	if _, err := f.ReadAt(tail, info.Size()-int64(len(tail))); err != nil {
		return false, err
	}
	for _, end := range []string{`"event":"server-exit"`, `"event":"server-start-failed"`} {
		if bytes.Contains(tail, []byte(end)) {
			return false, nil
		}
	}
	if len(tail) > 0 && tail[len(tail)-1] != '\n' {
		// A record cut short: the event goes on a line of its own.
		if _, err := f.Write([]byte("\n")); err != nil {
			return false, err
		}
	}
	tee := NewTee(f)
	tee.Write(&Record{Dir: Event, Event: "no-server-exit", Note: why, Detail: detail})
	return true, tee.Close()
}
