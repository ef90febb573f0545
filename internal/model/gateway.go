package model

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"time"
)

// StartGateway serves, on a random port of 127.0.0.1, a pass-through to the vendor's API at
// upstream (its base URL): every request the agent's CLI makes goes on unchanged but for its
// credentials, which are replaced by key, and the answer streams back as it comes. Every request
// is recorded exactly as the scripted model records them, so the model's view of a real run is
// read the same way. The key is never recorded: requests are recorded without their headers.
func StartGateway(v Vendor, upstream, key string, record io.Writer) (*Server, error) {
	up, err := url.Parse(upstream)
	if err != nil || (up.Scheme != "http" && up.Scheme != "https") || up.Host == "" {
		return nil, fmt.Errorf("the model's url must be an http or https base URL, got %q", upstream)
	}
	if key == "" {
		return nil, errors.New("no API key for the real model")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("the model gateway cannot listen on 127.0.0.1: %w", err)
	}
	s := &Server{URL: "http://" + ln.Addr().String(), ln: ln, record: record}
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(up)
			pr.Out.Host = up.Host
			v.authorize(pr.Out.Header, key)
		},
		// Stream every event to the CLI as soon as the vendor sends it.
		FlushInterval: -1,
		ErrorLog:      log.New(io.Discard, "", 0),
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			// The error names the upstream, never the key (it is only in a header).
			http.Error(w, "toolscore model gateway: the model API at "+up.Host+" did not answer: "+err.Error(), http.StatusBadGateway)
		},
	}
	s.srv = &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(io.LimitReader(r.Body, 256<<20))
			r.Body = io.NopCloser(bytes.NewReader(body))
			r.ContentLength = int64(len(body))
			sw := &statusWriter{ResponseWriter: w}
			rp.ServeHTTP(sw, r)
			s.note(r, body, "passed through: "+strconv.Itoa(sw.status()))
		}),
		ReadHeaderTimeout: 10 * time.Second,
	}
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

// statusWriter remembers the status the upstream answered with, and still flushes.
type statusWriter struct {
	http.ResponseWriter
	code int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *statusWriter) status() int {
	if w.code == 0 {
		return http.StatusBadGateway
	}
	return w.code
}
