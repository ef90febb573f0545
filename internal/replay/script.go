package replay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/toolscore/toolscore/internal/jsonrpc"
	"github.com/toolscore/toolscore/internal/transcript"
)

// Kinds of a recorded message.
const (
	request      = "request"
	notification = "notification"
	response     = "response"
	notJSON      = "not-json"
	// httpStatus is the proxy's own HTTP answer to a request (a fault of the HTTP exchange):
	// a status and headers, no message.
	httpStatus = "http-status"
	// sseID is an SSE event with an id and no message, which a client resumes a stream from.
	sseID = "sse-id"
	// streamCut is the end of an SSE stream before the answer it was to carry.
	streamCut = "stream-cut"
)

// httpOnly says the step is a fact of the HTTP exchange, with no message to send on stdio.
func (st *step) httpOnly() bool {
	return st.kind == httpStatus || st.kind == sseID || st.kind == streamCut
}

// step is one recorded message, or the server's exit, in the order the proxy saw it.
type step struct {
	n    int    // the transcript record's number among the steps, from 1
	dir  string // transcript.ClientToServer, transcript.ServerToClient, or exitStep
	kind string
	at   time.Time
	wire []byte
	msg  jsonrpc.Message
	key  string // a client message's match key
	// answers is the index of the request step a response answers; -1 for none.
	answers int
	// lastIn is the index of the last client step recorded before this outgoing step; -1 none.
	lastIn int
	status int // the server's exit status, for an exit step
	// http is how the message travelled over streamable HTTP; nil on stdio.
	http *transcript.HTTPFacts

	matched   bool      // a client step: the live client sent it
	matchedAt time.Time // when it did
	liveID    json.RawMessage
	from      any // where the answers to the live message go
}

// exitStep is the direction of the server's own exit, when it exited before the client closed.
const exitStep = "exit"

// Script is a recorded run, ready to be played to a client.
type Script struct {
	steps []*step
	// byKey lists the client steps of each match key, in the recorded order.
	byKey map[string][]int
	// getRefused is the status the recorded server answered the client's first GET with when
	// it opened no stream (405 from a server without one); 0 otherwise.
	getRefused int
	// session is the Mcp-Session-Id the recorded server gave, if it gave one.
	session string
	// resumed counts the GET streams the recorded client opened to resume one from an event id.
	resumed int
}

// Load reads the transcript at path into a script. A transcript with records that cannot be
// read (a run cut short) loads with what could be read, and warn says so.
func Load(path string) (s *Script, warn error, err error) {
	entries, bad := transcript.Read(path)
	if entries == nil && bad != nil {
		return nil, nil, fmt.Errorf("reading the transcript %s: %w", path, bad)
	}
	s = &Script{byKey: map[string][]int{}}
	answered := map[int]bool{}
	clientClosed, gotGet, overHTTP := false, false, false
	lastIn := -1
	for i := range entries {
		e := &entries[i]
		overHTTP = overHTTP || e.HTTP != nil
		switch e.Dir {
		case transcript.ClientToServer, transcript.ServerToClient:
		case transcript.Event:
			// Over HTTP the proxy is stopped, the client never closes a pipe: a server that
			// exits after that was stopped with it.
			if e.Event == "client-closed" || e.Event == "proxy-stopped" && overHTTP {
				clientClosed = true
			}
			if e.Event == "http-response" && e.HTTP != nil && e.HTTP.Method == "GET" && !gotGet {
				gotGet = true
				if e.HTTP.Status != 200 && validStatus(e.HTTP.Status) {
					s.getRefused = e.HTTP.Status
				}
			}
			if e.HTTP != nil && s.session == "" && e.HTTP.Status != 0 {
				s.session = http.Header(e.HTTP.Header).Get("Mcp-Session-Id")
			}
			if e.Event == "http-request" && e.HTTP != nil && e.HTTP.Method == http.MethodGet && http.Header(e.HTTP.Header).Get("Last-Event-ID") != "" {
				s.resumed++
			}
			if st := s.httpStep(e, answered, lastIn); st != nil {
				s.steps = append(s.steps, st)
			}
			if e.Event == "server-exit" && !clientClosed {
				status := 0
				if d, ok := e.Detail.(map[string]any); ok {
					if n, ok := d["status"].(json.Number); ok {
						if i, err := n.Int64(); err == nil {
							status = int(i)
						}
					}
				}
				s.steps = append(s.steps, &step{n: len(s.steps) + 1, dir: exitStep, at: e.Time, answers: -1, lastIn: lastIn, status: status})
			}
			continue
		default:
			continue // the server's stderr is not played back: see docs/replay.md
		}
		wire, err := readWire(e)
		if err != nil {
			return nil, nil, fmt.Errorf("reading the transcript %s: %w", path, err)
		}
		if e.HTTP != nil && s.session == "" && e.HTTP.Status != 0 {
			s.session = http.Header(e.HTTP.Header).Get("Mcp-Session-Id")
		}
		st := &step{n: len(s.steps) + 1, dir: e.Dir, at: e.Time, wire: wire, answers: -1, lastIn: lastIn, http: e.HTTP}
		var ok bool
		st.msg, ok = jsonrpc.ParseMessage(wire)
		switch {
		case !ok:
			st.kind = notJSON
		case st.msg.Method != "" && jsonrpc.IDKey(st.msg.ID) != "":
			st.kind = request
		case st.msg.Method != "":
			st.kind = notification
		default:
			st.kind = response
		}
		if e.Dir == transcript.ClientToServer {
			st.key = matchKey(st.msg, st.kind, wire)
			lastIn = len(s.steps)
			s.byKey[st.key] = append(s.byKey[st.key], lastIn)
		} else if st.kind == response {
			st.answers = s.requestOf(st.msg.ID, answered)
			answered[st.answers] = true
		}
		s.steps = append(s.steps, st)
	}
	return s, bad, nil
}

// requestOf is the last recorded client request with id, if it has no answer yet; -1 for none.
func (s *Script) requestOf(id json.RawMessage, answered map[int]bool) int {
	key := jsonrpc.IDKey(id)
	for i := len(s.steps) - 1; i >= 0; i-- {
		st := s.steps[i]
		if st.dir == transcript.ClientToServer && st.kind == request && jsonrpc.IDKey(st.msg.ID) == key {
			if answered[i] {
				return -1
			}
			return i
		}
	}
	return -1
}

// httpStep is the step a recorded event of the HTTP exchange plays as, if any: a fault's
// status answering the request before it, an event id a client may resume from, or a stream
// cut before the answer it was to carry.
func (s *Script) httpStep(e *transcript.Entry, answered map[int]bool, lastIn int) *step {
	if e.HTTP == nil {
		return nil
	}
	st := &step{n: len(s.steps) + 1, dir: transcript.ServerToClient, at: e.Time, answers: -1, lastIn: lastIn, http: e.HTTP}
	switch {
	case e.Event == "http-fault" && validStatus(e.HTTP.Status):
		st.kind = httpStatus
	case e.Event == "sse-event" && e.HTTP.EventID != "":
		st.kind = sseID
		return st
	case e.Event == "sse-cut":
		st.kind = streamCut
		if e.HTTP.Method != http.MethodPost {
			return st
		}
	default:
		return nil
	}
	st.answers = s.lastUnanswered(answered)
	if st.answers < 0 {
		return nil
	}
	answered[st.answers] = true
	return st
}

// validStatus says a recorded status can be sent again: a transcript is text from a run that
// may have been edited, and net/http refuses codes outside these.
func validStatus(code int) bool {
	return code >= 200 && code <= 599
}

// lastUnanswered is the last recorded client request with no answer yet; -1 for none.
func (s *Script) lastUnanswered(answered map[int]bool) int {
	for i := len(s.steps) - 1; i >= 0; i-- {
		if st := s.steps[i]; st.dir == transcript.ClientToServer && st.kind == request && !answered[i] {
			return i
		}
	}
	return -1
}

func readWire(e *transcript.Entry) ([]byte, error) {
	if e.Large == nil {
		return e.Wire, nil
	}
	r, err := e.OpenWire()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(r)
}

// matchKey is what a client message is matched by: its kind, method and parameters, without
// the id, _meta (progress tokens live there) or the ids a cancellation names. A handshake
// (initialize, server/discover) is matched by its method alone: its parameters name the client
// and its version, and one session has one.
func matchKey(m jsonrpc.Message, kind string, wire []byte) string {
	switch kind {
	case notJSON:
		return kind + " " + string(wire)
	case response:
		return kind + " " + jsonrpc.IDKey(m.ID)
	}
	if m.Method == "initialize" || m.Method == "server/discover" {
		return kind + " " + m.Method
	}
	return kind + " " + m.Method + " " + canonicalParams(m.Params, m.Method == "notifications/cancelled")
}

// canonicalParams renders params with sorted keys and without _meta, so the same parameters
// written another way (or with another progress token) give the same text; absent and empty
// parameters are the same.
func canonicalParams(params json.RawMessage, dropRequestID bool) string {
	if len(params) == 0 {
		return ""
	}
	d := json.NewDecoder(bytes.NewReader(params))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return string(params)
	}
	if obj, ok := v.(map[string]any); ok {
		delete(obj, "_meta")
		if dropRequestID {
			delete(obj, "requestId")
		}
		if len(obj) == 0 {
			return ""
		}
	}
	b, err := json.Marshal(v)
	if err != nil {
		return string(params)
	}
	return string(b)
}
