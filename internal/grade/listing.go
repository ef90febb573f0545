package grade

import (
	"fmt"
	"strings"
	"time"

	"github.com/toolscore/toolscore/internal/transcript"
)

// refNote says whether the client fetched the network $ref a schema-ref fault published: the
// proxy records every request to the $ref's listener, which it opens only when it rewrites a
// listing the client asked for. "" when the transcript shows no such $ref.
func refNote(entries []transcript.Entry) string {
	published := false
	var fetches []*transcript.Entry
	for i := range entries {
		switch e := &entries[i]; e.Event {
		case "schema-ref-listening":
			published = true
		case transcript.RefFetch:
			fetches = append(fetches, e)
		}
	}
	switch {
	case len(fetches) > 0:
		first := fetches[0]
		d, _ := first.Detail.(map[string]any)
		line, _ := d["request"].(string)
		s := fmt.Sprintf("the client fetched the network $ref %d time(s), first %q", len(fetches), line)
		if first.HTTP != nil {
			if ua := first.HTTP.Header["User-Agent"]; len(ua) > 0 {
				s += fmt.Sprintf(" (User-Agent %q)", strings.Join(ua, ", "))
			}
		}
		return s
	case published:
		return "the client never fetched the network $ref in the listing it got"
	}
	return ""
}

// cpuNote says how much CPU time the run's processes used, where the backend could tell.
func cpuNote(cpu time.Duration) string {
	if cpu <= 0 {
		return ""
	}
	return fmt.Sprintf("; it used %s of CPU", cpu.Round(10*time.Millisecond))
}

// withNote adds a note to evidence, after a semicolon.
func withNote(evidence, note string) string {
	if note == "" {
		return evidence
	}
	return strings.TrimPrefix(evidence+"; "+note, "; ")
}
