package model

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// Request is one request the model received, as recorded.
type Request struct {
	Time   time.Time `json:"time"`
	Method string    `json:"method"`
	Path   string    `json:"path"`
	// Body is the request body: JSON when it was JSON, else a string.
	Body json.RawMessage `json:"body,omitempty"`
	// Reply says what the script did with it (e.g. "call mcp__scenario__get_account_balance").
	Reply string `json:"reply,omitempty"`
}

// Server is a running scripted model.
type Server struct {
	URL    string
	script Script
	ln     net.Listener
	srv    *http.Server

	mu       sync.Mutex
	requests []Request
	record   io.Writer
	recErr   error
}

// Vendor is the API a scripted model speaks: a handler for its routes, and where its key goes
// when the gateway passes a request on to the real API.
type Vendor interface {
	// handle answers one request with the script's step, and says what it did.
	handle(s *Server, w http.ResponseWriter, r *http.Request, body []byte) string
	// authorize puts key in h where the vendor expects it, after taking out every credential
	// the agent's CLI sent (a placeholder).
	authorize(h http.Header, key string)
}

// Start serves vendor's API with the script on a random port of 127.0.0.1. Every request is
// appended to record (one JSON line each) as it arrives, when record is not nil.
func Start(v Vendor, script Script, record io.Writer) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("the scripted model cannot listen on 127.0.0.1: %w", err)
	}
	s := &Server{URL: "http://" + ln.Addr().String(), script: script, ln: ln, record: record}
	s.srv = &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(io.LimitReader(r.Body, 256<<20))
			reply := v.handle(s, w, r, body)
			s.note(r, body, reply)
		}),
		ReadHeaderTimeout: 10 * time.Second,
	}
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

// note records one request.
func (s *Server) note(r *http.Request, body []byte, reply string) {
	rec := Request{Time: time.Now().UTC(), Method: r.Method, Path: r.URL.RequestURI(), Reply: reply}
	if len(body) > 0 {
		if json.Valid(body) {
			rec.Body = body
		} else {
			rec.Body, _ = json.Marshal(string(body))
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, rec)
	if s.record != nil && s.recErr == nil {
		line, _ := json.Marshal(rec)
		_, s.recErr = s.record.Write(append(line, '\n'))
	}
}

// Requests returns every request received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Close stops the server; it returns the first error recording a request met, if any.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := s.srv.Shutdown(ctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		_ = s.srv.Close()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.recErr
}

// ReadRequests reads a recording back.
func ReadRequests(r io.Reader) ([]Request, error) {
	dec := json.NewDecoder(r)
	var out []Request
	for {
		var rec Request
		if err := dec.Decode(&rec); err == io.EOF {
			return out, nil
		} else if err != nil {
			return out, err
		}
		out = append(out, rec)
	}
}

// msgSeq numbers the responses whose ids the Messages and Gemini APIs give.
var msgSeq atomic.Int64

func tokens(body []byte) int { return len(body)/4 + 1 }

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}
