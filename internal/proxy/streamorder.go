package proxy

import (
	"context"
	"sync"
	"time"
)

// Waits of the stream ordering: how long after a session's notifications/initialized a request
// waits for the GET stream a client opens then (a variable only so that a test on a loaded
// machine can give the GET time to come), and how long at most for the server's answer to a GET
// on its way.
var getGrace = 100 * time.Millisecond

const getWait = 5 * time.Second

// streamOrder keeps the order a client established between its GET stream and its requests: a
// client opens the GET stream right after notifications/initialized and sends its next request
// at once, on another connection; directly the server has the stream before the request's
// handler runs, but through the proxy the request can overtake it, and a server request
// (sampling, elicitation) sent on a stream the server does not have yet is lost.
type streamOrder struct {
	mu       sync.Mutex
	sessions map[string]*streams
}

// streams is one session's GET streams as the ordering needs them.
type streams struct {
	initialized time.Time     // when the client's notifications/initialized went on
	sawGet      bool          // the client opened a GET stream in this session
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

// initialized notes the session's notifications/initialized, after which its GET stream comes.
func (o *streamOrder) initialized(sid string) {
	if sid == "" {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.session(sid).initialized = time.Now()
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

// wait holds a request of the session while a GET stream the client opened is on its way to
// the server, or, just after notifications/initialized, until the GET stream a client opens then
// is on its way; it says how long it held the request and whether a GET stream came.
func (o *streamOrder) wait(ctx context.Context, sid string) (held time.Duration, got bool) {
	if sid == "" {
		return 0, false
	}
	start := time.Now()
	deadline := time.NewTimer(getWait)
	defer deadline.Stop()
	for {
		o.mu.Lock()
		s := o.sessions[sid]
		if s == nil {
			o.mu.Unlock()
			return 0, false
		}
		var grace <-chan time.Time
		switch {
		case s.opening > 0:
		case !s.sawGet && time.Since(s.initialized) < getGrace:
			t := time.NewTimer(getGrace - time.Since(s.initialized))
			defer t.Stop()
			grace = t.C
		default:
			o.mu.Unlock()
			return time.Since(start), s.sawGet
		}
		changed := s.changed
		o.mu.Unlock()
		select {
		case <-changed:
		case <-grace:
		case <-deadline.C:
			return time.Since(start), s.sawGet
		case <-ctx.Done():
			return time.Since(start), false
		}
	}
}
