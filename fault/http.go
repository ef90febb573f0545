package fault

import (
	"context"
	"net/http"
	"time"
)

// HTTPFault is a fault of the HTTP exchange that carries the target tools/call rather than of
// its result, so it has a meaning on the streamable HTTP transport only.
type HTTPFault interface {
	HTTP() *HTTPEffect
}

// HTTPEffect is what the proxy does to the HTTP exchange of one target tools/call.
type HTTPEffect struct {
	// Status, when set, is answered instead of forwarding the request, with Header and Body of
	// ContentType, or a plain text body naming the status when Body is nil.
	Status      int
	Header      http.Header
	Body        []byte
	ContentType string
	// RequestID puts the JSON-RPC id of the request in place of the body's "id":null.
	RequestID bool
	// ExpireSession answers Status to every later request of the same session too: the session
	// is gone for good, as on a server that forgot it.
	ExpireSession bool
	// Revoke answers Status and Header to every later request of the client, in any session or
	// none: its credential is dead, as a token is once it expired.
	Revoke bool
	// After lets this many target calls through as they are before the effect starts.
	After int
	// HeaderDelay holds the answer's headers back this long; a client that leaves ends the wait.
	HeaderDelay time.Duration
	// Cut ends an SSE answer before the event that carries the response; with EventIDFirst the
	// events with an id before it go to the client first, so it can resume with Last-Event-ID,
	// and without it the stream ends before the first event with an id.
	Cut          bool
	EventIDFirst bool
}

// Origin stands in a Header value for the scheme and host the client reached the proxy at,
// which the proxy puts in its place.
const Origin = "{origin}"

// Transport says whether the named fault is a fault of the HTTP transport, which a stdio
// session cannot carry (the manifest loader refuses it for stdio cells).
func Transport(name string) bool {
	_, ok := registry[name].(HTTPFault)
	return ok
}

// passResult is the Apply of a transport fault: the result goes as the server sent it, since
// the fault is in the exchange around it.
type passResult struct{}

func (passResult) Apply(context.Context, *Call) (*Effect, error) { return &Effect{}, nil }
