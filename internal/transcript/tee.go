package transcript

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"io"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/toolscore/toolscore/fault"
	"github.com/toolscore/toolscore/internal/jsonstream"
)

// Directions a tee record can have.
const (
	ClientToServer = "to-server"
	ServerToClient = "to-client"
	ServerStderr   = "stderr"
	Event          = "event"
)

// RefFetch is the event of a request to the $ref listener of a schema-ref fault.
const RefFetch = "schema-ref-fetch"

// OffPath is the HTTP proxy's event for an MCP exchange that left the endpoint it records and
// faults; a run that has one is graded off-path.
const OffPath = "off-path"

// Record is one line of the transcript: a message on the wire, a line of the server's stderr,
// or an event the proxy saw (start, negotiation, a fault decision, the server's exit).
type Record struct {
	Time time.Time `json:"time"`
	Dir  string    `json:"dir"`
	// Wire is the exact bytes as sent, newline included; written as "wire" when it is UTF-8 and
	// as "wire_base64" when it is not, so nothing is lost either way.
	Wire    []byte `json:"-"`
	NotJSON bool   `json:"not_json,omitempty"`
	// Match says how the fault selector judged a target tools/call request.
	Match *Match `json:"match,omitempty"`
	// Fault names the fault applied to this message; Original is what the server had sent.
	Fault      string             `json:"fault,omitempty"`
	Original   []byte             `json:"-"`
	Introduced []fault.Introduced `json:"introduced,omitempty"`
	Note       string             `json:"note,omitempty"`
	Event      string             `json:"event,omitempty"`
	Detail     any                `json:"detail,omitempty"`
	// HTTP is how the message travelled over streamable HTTP; nil on stdio.
	HTTP *HTTPFacts `json:"http,omitempty"`
	// Excerpt stands for a message too large for the proxy to read, passed on unread: its first
	// bytes, size and sha256, in place of Wire.
	Excerpt *jsonstream.Excerpt `json:"excerpt,omitempty"`
}

// HTTPFacts are the HTTP exchange a record's message travelled in, credentials masked.
type HTTPFacts struct {
	Method string `json:"method,omitempty"`
	Path   string `json:"path,omitempty"`
	// Query is the request's query string as the client sent it, and Host its Host header: with
	// Method and Path, the request line; on a request's record.
	Query string `json:"query,omitempty"`
	Host  string `json:"host,omitempty"`
	// UpstreamHost is the Host the proxy sent upstream instead of the client's (a remote
	// server's own name), when it did.
	UpstreamHost string `json:"upstream_host,omitempty"`
	// Status is the response's status code; 0 on a request's record.
	Status int `json:"status,omitempty"`
	// Header is the request's or response's headers, on the first record of each.
	Header map[string][]string `json:"header,omitempty"`
	// EventID is the id of the SSE event that carried the message.
	EventID string `json:"event_id,omitempty"`
}

// Match is the selector's decision for one target tools/call.
type Match struct {
	Tool  string `json:"tool"`
	N     int    `json:"n"`
	Fires bool   `json:"fires"`
	Why   string `json:"why,omitempty"`
}

// Tee writes records as JSON lines, safe for concurrent use. Records are encoded as they come,
// in order, into a buffer that a background flusher writes out every few milliseconds, so the
// relay never waits on a disk write and the file is current to within FlushEvery. Wire bytes
// are streamed, never copied.
type Tee struct {
	mu    sync.Mutex
	w     *bufio.Writer
	err   error
	dirty bool
	stop  chan struct{}
	done  chan struct{}
}

// FlushEvery bounds how stale the transcript file can be while the proxy runs.
const FlushEvery = 5 * time.Millisecond

// NewTee writes to w; a nil w discards every record. Close it to flush the last records.
func NewTee(w io.Writer) *Tee {
	if w == nil {
		return nil
	}
	t := &Tee{w: bufio.NewWriterSize(w, 64<<10), stop: make(chan struct{}), done: make(chan struct{})}
	go t.flusher()
	return t
}

// Write records r now; a nil Tee discards it.
func (t *Tee) Write(r *Record) {
	if t == nil {
		return
	}
	if r.Time.IsZero() {
		r.Time = time.Now()
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.err == nil && t.w != nil {
		t.encode(r)
		t.dirty = true
	}
}

// Sync writes out the records buffered so far, now. The proxy calls it before it passes a
// tools/call's answer on: a proxy killed right after (a starved machine's cell ending) leaves the
// call and its answer on file, so the run is graded on what happened instead of as cut short.
func (t *Tee) Sync() {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.dirty && t.err == nil && t.w != nil {
		t.err = t.w.Flush()
		t.dirty = false
	}
}

// Close flushes what is written and reports the first write error; later writes are dropped.
func (t *Tee) Close() error {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	if t.w != nil {
		close(t.stop)
	}
	t.mu.Unlock()
	<-t.done
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.w != nil && t.err == nil {
		t.err = t.w.Flush()
	}
	t.w = nil
	return t.err
}

func (t *Tee) flusher() {
	defer close(t.done)
	tick := time.NewTicker(FlushEvery)
	defer tick.Stop()
	for {
		select {
		case <-t.stop:
			return
		case <-tick.C:
			t.mu.Lock()
			if t.dirty && t.err == nil {
				t.err = t.w.Flush()
				t.dirty = false
			}
			t.mu.Unlock()
		}
	}
}

func (t *Tee) encode(r *Record) {
	w := t.w
	// The head of every record is written by hand: json.Marshal's reflection was a tenth of
	// the proxy's time per call. The rarer fields still go through json.Marshal.
	var head [64]byte
	w.WriteString(`{"time":"`)
	w.Write(r.Time.AppendFormat(head[:0], time.RFC3339Nano))
	w.WriteString(`","dir":"`)
	w.WriteString(r.Dir)
	w.WriteByte('"')
	if r.NotJSON {
		w.WriteString(`,"not_json":true`)
	}
	if r.Match != nil || r.Fault != "" || r.Introduced != nil || r.Note != "" || r.Event != "" || r.Detail != nil || r.HTTP != nil || r.Excerpt != nil {
		b, err := json.Marshal(restRecord{r.Match, r.Fault, r.Introduced, r.Note, r.Event, r.Detail, r.HTTP, r.Excerpt})
		if err != nil {
			b, _ = json.Marshal(map[string]string{"note": "unencodable record: " + err.Error()})
		}
		if len(b) > 2 {
			w.WriteByte(',')
			w.Write(b[1 : len(b)-1])
		}
	}
	writeBytesField(w, "wire", r.Wire)
	writeBytesField(w, "original", r.Original)
	w.WriteString("}\n")
}

// restRecord is a Record without the fields encode writes by hand.
type restRecord struct {
	Match      *Match              `json:"match,omitempty"`
	Fault      string              `json:"fault,omitempty"`
	Introduced []fault.Introduced  `json:"introduced,omitempty"`
	Note       string              `json:"note,omitempty"`
	Event      string              `json:"event,omitempty"`
	Detail     any                 `json:"detail,omitempty"`
	HTTP       *HTTPFacts          `json:"http,omitempty"`
	Excerpt    *jsonstream.Excerpt `json:"excerpt,omitempty"`
}

func writeBytesField(w *bufio.Writer, name string, b []byte) {
	if b == nil {
		return
	}
	if !utf8.Valid(b) {
		w.WriteString(`,"` + name + `_base64":"`)
		enc := base64.NewEncoder(base64.StdEncoding, w)
		enc.Write(b)
		enc.Close()
		w.WriteByte('"')
		return
	}
	w.WriteString(`,"` + name + `":`)
	writeJSONString(w, b)
}

const hexDigits = "0123456789abcdef"

// writeJSONString writes valid UTF-8 b as a JSON string, escaping only what JSON requires.
func writeJSONString(w *bufio.Writer, b []byte) {
	w.WriteByte('"')
	start := 0
	for i, c := range b {
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		w.Write(b[start:i])
		switch c {
		case '"', '\\':
			w.WriteByte('\\')
			w.WriteByte(c)
		case '\n':
			w.WriteString(`\n`)
		case '\r':
			w.WriteString(`\r`)
		case '\t':
			w.WriteString(`\t`)
		default:
			w.WriteString(`\u00`)
			w.WriteByte(hexDigits[c>>4])
			w.WriteByte(hexDigits[c&0xf])
		}
		start = i + 1
	}
	w.Write(b[start:])
	w.WriteByte('"')
}
