package model

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// sseWriter writes a response as server-sent events, each flushed as soon as it is written so
// the agent reads the stream as a real one arrives.
type sseWriter struct {
	w       http.ResponseWriter
	flusher http.Flusher
}

// startSSE sends the headers of an event stream.
func startSSE(w http.ResponseWriter) *sseWriter {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	return &sseWriter{w: w, flusher: flusher}
}

// event sends one named event with data as its JSON.
func (s *sseWriter) event(name string, data any) {
	b, _ := json.Marshal(data)
	fmt.Fprintf(s.w, "event: %s\ndata: %s\n\n", name, b)
	s.flush()
}

// data sends one unnamed event with data as its JSON, ended by CRLFs as the Gemini API ends
// its events.
func (s *sseWriter) data(data any) {
	b, _ := json.Marshal(data)
	fmt.Fprintf(s.w, "data: %s\r\n\r\n", b)
	s.flush()
}

func (s *sseWriter) flush() {
	if s.flusher != nil {
		s.flusher.Flush()
	}
}

// halves splits s in two at a rune boundary (one piece when it is too short to split): a
// stream's deltas come in two pieces, as a real stream splits them, so the agent's
// accumulation is exercised.
func halves(s string) []string {
	r := []rune(s)
	if len(r) < 2 {
		return []string{s}
	}
	return []string{string(r[:len(r)/2]), string(r[len(r)/2:])}
}
