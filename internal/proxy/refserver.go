package proxy

import (
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/toolscore/toolscore/internal/transcript"
)

// refServer is the loopback HTTP listener a fault of the listing (schema-ref) points a network
// $ref at: it serves the documents the fault gave it and records every request as a
// "schema-ref-fetch" event, so a client that dereferences the $ref is seen doing it. It lives in
// the proxy's process, opened at the first document and closed with the session (Proxy.end).
type refServer struct {
	base string
	srv  *http.Server
	mu   sync.Mutex
	docs map[string][]byte
}

// serveRef serves doc at path on the session's $ref listener, opening it first if need be, and
// returns its URL.
func (p *Proxy) serveRef(path string, doc any) (string, error) {
	b, err := marshal(doc)
	if err != nil {
		return "", err
	}
	p.refMu.Lock()
	defer p.refMu.Unlock()
	if p.refs == nil {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return "", err
		}
		rs := &refServer{base: "http://" + l.Addr().String(), docs: map[string][]byte{}}
		rs.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { p.fetched(rs, w, r) }), ReadHeaderTimeout: 10 * time.Second}
		go func() { _ = rs.srv.Serve(l) }()
		p.refs = rs
		p.record(&transcript.Record{Dir: transcript.Event, Event: "schema-ref-listening", Note: "the proxy serves the $ref of " + p.cfg.FaultName + " at " + rs.base + ", and records every request to it", Detail: map[string]any{"url": rs.base}})
	}
	p.refs.mu.Lock()
	p.refs.docs[path] = b
	p.refs.mu.Unlock()
	return p.refs.base + path, nil
}

// fetched records one request to the $ref listener (its request line and headers) and answers
// the document at its path, or 404.
func (p *Proxy) fetched(rs *refServer, w http.ResponseWriter, r *http.Request) {
	rs.mu.Lock()
	doc, ok := rs.docs[r.URL.Path]
	rs.mu.Unlock()
	status := http.StatusOK
	if !ok {
		status = http.StatusNotFound
	}
	p.record(&transcript.Record{Dir: transcript.Event, Event: transcript.RefFetch,
		Note:   "the client fetched the network $ref that " + p.cfg.FaultName + " published",
		HTTP:   &transcript.HTTPFacts{Method: r.Method, Path: r.URL.RequestURI(), Status: status, Header: p.maskHeader(r.Header)},
		Detail: map[string]any{"request": r.Method + " " + r.RequestURI + " " + r.Proto, "host": r.Host, "remote": r.RemoteAddr},
	})
	if !ok {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/schema+json")
	_, _ = w.Write(doc)
}

// closeRefs closes the $ref listener, if the session opened one.
func (p *Proxy) closeRefs() {
	p.refMu.Lock()
	defer p.refMu.Unlock()
	if p.refs != nil {
		_ = p.refs.srv.Close()
	}
}
