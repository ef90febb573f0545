package proxy

import (
	"context"
	"encoding/json"
	"sync"
	"time"
)

// getWait bounds how long a request waits for the session's GET stream: for a GET on its way to
// the server to be answered, or for the GET a client that can be asked opens after
// notifications/initialized to come at all (a variable only so that a test need not wait it).
var getWait = 5 * time.Second

// streamOrder keeps the order a client established between its GET stream and its requests: a
// client opens the GET stream right after notifications/initialized and sends its next request
// at once, on another connection; directly the server has the stream before the request's
// handler runs, but through the proxy the request can overtake it, and a server request
// (sampling, elicitation, roots) sent on a stream the server does not have yet is lost, the
// call waiting on it hanging.
//
// The order is kept by what the proxy sees, not by a time window: on a loaded machine the
// server took 163 ms to answer notifications/initialized, and a request sent after a window
// counted from it had passed overtook the GET stream. So in a session whose client said in
// initialize that it can be asked (sampling, elicitation or roots), every request after
// notifications/initialized waits until a GET of the session has its answer's headers back
// (the server stores the stream before it answers), getWait at most; once that bound expired
// without a GET, none of the session's requests waits for one again. A client that cannot be
// asked is not held for a GET that may never come.
type streamOrder struct {
	mu       sync.Mutex
	sessions map[string]*streams
}

// streams is one session's GET streams as the ordering needs them.
type streams struct {
	asked       bool          // the client's initialize declared it can be sent server requests
	initialized bool          // the client's notifications/initialized went on
	sawGet      bool          // the client opened a GET stream in this session
	gaveUp      bool          // a request waited getWait for a GET that never came
	opening     int           // GETs forwarded whose answer's headers have not come back
	changed     chan struct{} // closed and replaced on every change
}

func (o *streamOrder) session(sid string) *streams {
	if o.sessions == nil {
		o.sessions = map[string]*streams{}
	}
	s := o.sessions[sid]
	if s == nil {
		s = &streams{changed: make(chan struct{})}
		o.sessions[sid] = s
	}
	return s
}

func (s *streams) notify() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// canBeAsked says whether an initialize request's params declare a capability the server
// answers with requests of its own: those go on the GET stream when no request of the client's
// is theirs.
func canBeAsked(params json.RawMessage) bool {
	var p struct {
		Capabilities map[string]json.RawMessage `json:"capabilities"`
	}
	if json.Unmarshal(params, &p) != nil {
		return false
	}
	for _, name := range []string{"sampling", "elicitation", "roots"} {
		if v, ok := p.Capabilities[name]; ok && string(v) != "null" {
			return true
		}
	}
	return false
}

// asked notes that the client of session sid (the id the server's answer to its initialize
// gave it) can be sent server requests.
func (o *streamOrder) asked(sid string) {
	if sid == "" {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.session(sid).asked = true
}

// initialized notes the session's notifications/initialized, after which its GET stream comes.
func (o *streamOrder) initialized(sid string) {
	if sid == "" {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	s := o.session(sid)
	s.initialized = true
	s.notify()
}

// getSent notes a GET of the session on its way to the server; done says its answer's headers
// came back (or it failed), and may be called more than once.
func (o *streamOrder) getSent(sid string) (done func()) {
	if sid == "" {
		return func() {}
	}
	o.mu.Lock()
	s := o.session(sid)
	s.sawGet = true
	s.opening++
	s.notify()
	o.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			o.mu.Lock()
			s.opening--
			s.notify()
			o.mu.Unlock()
		})
	}
}

// hold is what a request's wait for the GET stream came to.
type hold struct {
	held    time.Duration
	got     bool // a GET stream of the session had its headers back, or was on its way
	expired bool // it waited getWait, the bound, and went on
}

// wait holds a request of the session while a GET stream the client opened is on its way to
// the server, and, in a session whose client can be asked, after notifications/initialized
// until the client's GET stream is open; getWait at most.
func (o *streamOrder) wait(ctx context.Context, sid string) hold {
	if sid == "" {
		return hold{}
	}
	start := time.Now()
	deadline := time.NewTimer(getWait)
	defer deadline.Stop()
	for {
		o.mu.Lock()
		s := o.sessions[sid]
		if s == nil {
			o.mu.Unlock()
			return hold{}
		}
		switch {
		case s.opening > 0:
		case s.asked && s.initialized && !s.sawGet && !s.gaveUp:
		default:
			o.mu.Unlock()
			return hold{held: time.Since(start), got: s.sawGet}
		}
		changed := s.changed
		o.mu.Unlock()
		select {
		case <-changed:
		case <-deadline.C:
			o.mu.Lock()
			defer o.mu.Unlock()
			if !s.sawGet && !s.gaveUp {
				s.gaveUp = true
				s.notify() // the session's other requests waiting for a GET go on too
			}
			return hold{held: time.Since(start), got: s.sawGet, expired: true}
		case <-ctx.Done():
			return hold{held: time.Since(start), got: s.sawGet}
		}
	}
}
