package transcript

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/toolscore/toolscore/internal/jsonrpc"
	"github.com/toolscore/toolscore/internal/jsonstream"
	"github.com/toolscore/toolscore/record"
)

// What Read keeps in memory: a message up to keepMessage, while the kept ones add up
// to no more than keepTotal; any other is read from the file again when it is needed, so a
// 48 MiB answer (or a flood of messages) costs a buffer, not a copy.
const (
	keepMessage = 1 << 20
	keepTotal   = 8 << 20
)

// Entry is one transcript record as read back, with the wire bytes decoded. A message too large
// to keep has no Wire: Large stands for it, and OpenWire reads it from the file. Original (what
// a fault replaced) is not read back.
type Entry struct {
	Record
	Large *jsonstream.Excerpt
	env   jsonrpc.Message // of a large message, worked out as it was read
	envOK bool
	file  string // where a large message is: the string at offset at of file
	at    int64
	b64   bool
	lent  bool // Wire is the reader's buffer, until own copies it
}

// Read reads a tee file back, sorted by time (the order things happened). A record
// that cannot be read (one cut short when the proxy was killed in the middle of writing it) is
// passed over, from its start to the end of its line, and the first such is the error returned
// with every record that could be read.
func Read(path string) ([]Entry, error) {
	var out []Entry
	t := &reading{path: path}
	bad := t.scan(func(e *Entry) {
		t.own(e)
		out = append(out, *e)
	})
	sort.SliceStable(out, func(i, j int) bool { return out[i].Time.Before(out[j].Time) })
	return out, bad
}

// scan reads the records of the file in the order they were written, handing each to use. The
// wire bytes of a small message are lent (they are overwritten by the next record's): use calls
// own on what it keeps. Its error is the first record that could not be read.
func (t *reading) scan(use func(*Entry)) error {
	// Through record.Open: a pipe or a device something in the run put in the transcript's place
	// would stop the grader.
	f, err := record.Open(t.path)
	if err != nil {
		return err
	}
	defer f.Close()
	d := jsonstream.NewReader(f)
	var bad error
	for n := 1; ; n++ {
		if _, err = d.Peek(); err == io.EOF {
			break
		}
		start := t.base + d.Offset()
		if err == nil {
			err = t.entry(d)
		}
		var part *partError
		if err == nil || errors.As(err, &part) {
			use(&t.e) // used again for the next record: a flood of them costs no allocation each
		}
		if err != nil && bad == nil {
			bad = fmt.Errorf("transcript record %d: %w", n, err)
		}
		if err == nil || part != nil {
			continue // read to its end
		}
		// Records are one per line (JSON strings hold no raw newline): go on at the next line.
		next, ok := lineAfter(f, start)
		if !ok {
			break
		}
		if _, err := f.Seek(next, io.SeekStart); err != nil {
			break
		}
		t.base, d = next, jsonstream.NewReader(f)
	}
	return bad
}

// lineAfter is the offset just past the first newline at or after start in f, if there is one.
func lineAfter(f *os.File, start int64) (int64, bool) {
	buf := make([]byte, 64<<10)
	for at := start; ; at += int64(len(buf)) {
		n, err := f.ReadAt(buf, at)
		if i := bytes.IndexByte(buf[:n], '\n'); i >= 0 {
			return at + int64(i) + 1, true
		}
		if err != nil {
			return 0, false
		}
	}
}

// reading is the state of Read: how much it kept, and a buffer for each message's first
// bytes, grown as needed and used again.
type reading struct {
	path string
	base int64 // the file offset the reader started at
	kept int
	head []byte
	e    Entry  // the record being read
	rest []byte // its members but the wire, as JSON
	// spans and keys are where each member is in rest, and its name, used again per record.
	spans [][2]int
	keys  []string
}

// partError is a record read whole but for a member that does not decode: the record is kept
// (its wire bytes are what a grader needs) without that member.
type partError struct{ err error }

func (p *partError) Error() string { return p.err.Error() }
func (p *partError) Unwrap() error { return p.err }

// entry reads one record into t.e: the wire bytes as a stream, every other member as it is,
// decoded together at the end, numbers as json.Number (a value the server sent, such as 1e400,
// may be past what a float64 holds).
func (t *reading) entry(d *jsonstream.Reader) error {
	e := &t.e
	*e = Entry{}
	rest := append(t.rest[:0], '{')
	spans, keys := t.spans[:0], t.keys[:0]
	err := d.Object(func(key string) error {
		switch key {
		case "wire", "wire_base64":
			e.file, e.at, e.b64 = t.path, t.base+d.Offset(), key == "wire_base64"
			return t.wire(d, e)
		case "original":
			return d.Skip()
		}
		raw, err := d.Raw(keepMessage)
		if errors.Is(err, jsonstream.ErrTooLarge) {
			return nil // no member of a record but the wire is that large: not one of ours
		}
		if err != nil {
			return err
		}
		if len(rest) > 1 {
			rest = append(rest, ',')
		}
		k, _ := json.Marshal(key)
		start := len(rest)
		rest = append(append(append(rest, k...), ':'), raw...)
		spans = append(spans, [2]int{start, len(rest)})
		keys = append(keys, key)
		return nil
	})
	t.rest, t.spans, t.keys = append(rest, '}'), spans, keys
	if err != nil {
		return err
	}
	whole := decodeNumbers(t.rest, &e.Record) // Wire is json:"-": left as read
	defer t.excerpt(e)
	if whole == nil {
		return nil
	}
	// A member does not decode: the others still do, one by one.
	e.Record = Record{Wire: e.Wire}
	for i, sp := range spans {
		one := append(append([]byte{'{'}, rest[sp[0]:sp[1]]...), '}')
		if err := decodeNumbers(one, &e.Record); err != nil {
			whole = fmt.Errorf("its %q does not decode: %w", keys[i], err)
		}
	}
	return &partError{whole}
}

func decodeNumbers(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	return dec.Decode(v)
}

// wire reads the wire bytes of e: kept when small, else stood for by an excerpt and an envelope.
func (t *reading) wire(d *jsonstream.Reader, e *Entry) error {
	s, err := d.StringReader()
	if err != nil {
		return err
	}
	r := s
	if e.b64 {
		r = base64.NewDecoder(base64.StdEncoding, s)
	}
	n, err := t.readHead(r)
	if err != nil {
		return err
	}
	if n <= keepMessage {
		// Lent: own copies it when the entry is kept.
		e.Wire, e.lent = t.head[:n:n], true
		_, err = io.Copy(io.Discard, s) // the rest of the string: nothing, or base64 padding
		return err
	}
	k := jsonstream.NewKeeper(jsonstream.PrefixLen)
	all := io.TeeReader(io.MultiReader(bytes.NewReader(t.head[:n]), r), k)
	e.env, e.envOK = streamEnvelope(all)
	if _, err := io.Copy(io.Discard, all); err != nil {
		return err
	}
	_, err = io.Copy(io.Discard, s)
	e.Large = k.Excerpt()
	return err
}

// own makes the lent wire bytes of e its own: a copy while the kept ones add up to no more than
// keepTotal, else an excerpt standing for them, read from the file again when needed.
func (t *reading) own(e *Entry) {
	if !e.lent {
		return
	}
	e.lent = false
	if n := len(e.Wire); t.kept+n <= keepTotal {
		t.kept += n
		e.Wire = bytes.Clone(e.Wire)
		return
	}
	k := jsonstream.NewKeeper(jsonstream.PrefixLen)
	k.Write(e.Wire)
	e.env, e.envOK = streamEnvelope(bytes.NewReader(e.Wire))
	e.Wire, e.Large = nil, k.Excerpt()
}

// disown gives back to the budget of own the bytes of a kept entry that is dropped after all.
func (t *reading) disown(e *Entry) {
	if e.Large == nil {
		t.kept -= len(e.Wire)
	}
}

// readHead reads r into t.head up to keepMessage+1 bytes, so a message that fits is known to.
func (t *reading) readHead(r io.Reader) (int, error) {
	n := 0
	for {
		if n == len(t.head) {
			if n > keepMessage {
				return n, nil
			}
			grown := make([]byte, min(max(2*n, 64<<10), keepMessage+1))
			copy(grown, t.head[:n])
			t.head = grown
		}
		m, err := r.Read(t.head[n:])
		n += m
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}

// streamEnvelope is jsonrpc.ParseMessage for a message read as a stream: only the id and the
// method. Like ParseMessage it takes any object, keeping what it found before a part that is not
// JSON.
func streamEnvelope(r io.Reader) (env jsonrpc.Message, ok bool) {
	d := jsonstream.NewReader(r)
	c, err := d.Peek()
	if err != nil || c != '{' {
		return env, false
	}
	_ = d.Object(func(key string) error {
		switch key {
		case "id":
			id, err := d.Raw(1 << 10)
			env.ID = id
			if errors.Is(err, jsonstream.ErrTooLarge) {
				return nil
			}
			return err
		case "method":
			var m bytes.Buffer
			err := d.String(&m)
			env.Method = m.String()
			return err
		}
		return d.Skip()
	})
	return env, true
}

// excerpt makes a record of a message the proxy passed on unread stand for it as a large one
// does, with the envelope its first bytes show.
func (t *reading) excerpt(e *Entry) {
	if e.Excerpt != nil && e.Wire == nil && e.Large == nil {
		e.Large = e.Excerpt
		e.env, e.envOK = streamEnvelope(strings.NewReader(e.Excerpt.Prefix))
	}
}

// OpenWire reads the message's wire bytes, from memory or, for a large one, from the file.
func (e *Entry) OpenWire() (io.ReadCloser, error) {
	if e.Large == nil {
		return io.NopCloser(bytes.NewReader(e.Wire)), nil
	}
	if e.file == "" {
		return nil, fmt.Errorf("a message of %d bytes the proxy passed on unread: the transcript keeps only its first bytes", e.Large.Bytes)
	}
	f, err := os.Open(e.file)
	if err != nil {
		return nil, err
	}
	if _, err := f.Seek(e.at, io.SeekStart); err != nil {
		f.Close()
		return nil, err
	}
	s, err := jsonstream.NewReader(f).StringReader()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("reading a message back from %s: %w", e.file, err)
	}
	if e.b64 {
		s = base64.NewDecoder(base64.StdEncoding, s)
	}
	return struct {
		io.Reader
		io.Closer
	}{s, f}, nil
}

func (e *Entry) envelope() (jsonrpc.Message, bool) {
	if e.Large != nil {
		return e.env, e.envOK
	}
	return jsonrpc.ParseMessage(e.Wire)
}

// EndWithout appends to the transcript at path an event saying why it holds no record of the
// server's exit, when it holds none: the proxy, the only one to see the server exit, was gone
// first (killed outright, out of memory). why is the reason, as whoever ran the proxy knows it.
// A missing transcript stays missing. It says whether it appended.
func EndWithout(path, why string, detail map[string]any) (bool, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND, 0)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return false, err
	}
	// The session's end is among the last records, and small: the tail is enough to look in.
	tail := make([]byte, min(info.Size(), 64<<10))
	if _, err := f.ReadAt(tail, info.Size()-int64(len(tail))); err != nil {
		return false, err
	}
	for _, end := range []string{`"event":"server-exit"`, `"event":"server-start-failed"`, `"event":"session-end"`} {
		if bytes.Contains(tail, []byte(end)) {
			return false, nil
		}
	}
	if len(tail) > 0 && tail[len(tail)-1] != '\n' {
		// A record cut short: the event goes on a line of its own.
		if _, err := f.Write([]byte("\n")); err != nil {
			return false, err
		}
	}
	tee := NewTee(f)
	tee.Write(&Record{Dir: Event, Event: "no-server-exit", Note: why, Detail: detail})
	return true, tee.Close()
}
