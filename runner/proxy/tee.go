package proxy

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"io"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/toolscore/toolscore/runner/fault"
)

// Directions a tee record can have.
const (
	ClientToServer = "to-server"
	ServerToClient = "to-client"
	ServerStderr   = "stderr"
	Event          = "event"
)

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
}

// Match is the selector's decision for one target tools/call.
type Match struct {
	Tool  string `json:"tool"`
	N     int    `json:"n"`
	Fires bool   `json:"fires"`
	Why   string `json:"why,omitempty"`
}

// Tee writes records as JSON lines, safe for concurrent use, streaming the wire bytes so a
// 64 MiB line costs no extra copy.
type Tee struct {
	mu  sync.Mutex
	w   *bufio.Writer
	err error
}

// NewTee writes to w; a nil w discards every record.
func NewTee(w io.Writer) *Tee {
	if w == nil {
		return &Tee{}
	}
	return &Tee{w: bufio.NewWriterSize(w, 64<<10)}
}

// Write records r and flushes, so a transcript is complete up to the moment anything dies.
func (t *Tee) Write(r *Record) {
	if t == nil || t.w == nil {
		return
	}
	if r.Time.IsZero() {
		r.Time = time.Now()
	}
	head, err := json.Marshal(r)
	if err != nil {
		head, _ = json.Marshal(&Record{Time: r.Time, Dir: r.Dir, Note: "unencodable record: " + err.Error()})
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.err != nil {
		return
	}
	w := t.w
	w.Write(head[:len(head)-1])
	writeBytesField(w, "wire", r.Wire)
	writeBytesField(w, "original", r.Original)
	w.WriteString("}\n")
	t.err = w.Flush()
}

// Err reports the first write error, for a caller that wants to say the transcript is short.
func (t *Tee) Err() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.err
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
