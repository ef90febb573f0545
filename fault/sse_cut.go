package fault

// SSECut ends the call's SSE stream before the event that carries its response. With event_id
// (the default) the events with an id before it (a 2025-11-25 server's priming event) reach the
// client, which can resume with Last-Event-ID; without it the stream ends before any of them.
type SSECut struct {
	passResult
	EventID bool `json:"event_id"`
}

func init() { Register("sse-cut", &SSECut{EventID: true}) }

func (f *SSECut) HTTP() *HTTPEffect { return &HTTPEffect{Cut: true, EventIDFirst: f.EventID} }
