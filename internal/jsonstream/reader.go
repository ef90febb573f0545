package jsonstream

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"io"
	"math/bits"
	"unicode/utf16"
	"unicode/utf8"
)

// MaxDepth is how deeply arrays and objects may nest, as in encoding/json: deeper is an error.
const MaxDepth = 10000

// Reader reads JSON values from a stream, one after another (whitespace between them, as in
// JSON lines). It holds 64 KiB of the stream at a time, whatever the size of a value.
type Reader struct {
	r        io.Reader
	buf      []byte
	pos, end int
	off      int64 // stream offset of buf[0]
	rerr     error // what r returned last, once the buffer is drained
	depth    int
	tee      []io.Writer // everything consumed is also written here (see Capture)
	scratch  []byte      // for decoding strings
}

// NewReader reads from r.
func NewReader(r io.Reader) *Reader {
	return &Reader{r: r, buf: make([]byte, 64<<10)}
}

// ErrTooLarge is returned by Raw for a value over its limit (the value is consumed).
var ErrTooLarge = errors.New("the value is too large to keep")

// SyntaxError is JSON that is not well formed, at a stream offset.
type SyntaxError struct {
	Offset int64
	Msg    string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("offset %d: %s", e.Offset, e.Msg) }

func (d *Reader) syntax(format string, args ...any) error {
	return &SyntaxError{Offset: d.off + int64(d.pos), Msg: fmt.Sprintf(format, args...)}
}

// fill makes at least n bytes available (n ≤ 64 KiB), short only at the end of the stream.
func (d *Reader) fill(n int) {
	for d.end-d.pos < n && d.rerr == nil {
		if d.pos > 0 {
			copy(d.buf, d.buf[d.pos:d.end])
			d.off += int64(d.pos)
			d.end -= d.pos
			d.pos = 0
		}
		m, err := d.r.Read(d.buf[d.end:])
		d.end += m
		if err != nil {
			d.rerr = err
		}
	}
}

// eof says why no byte is left: a syntax error at the end, or the reader's own error.
func (d *Reader) eof() error {
	if d.rerr != nil && d.rerr != io.EOF {
		return d.rerr
	}
	return d.syntax("unexpected end of JSON")
}

// advance consumes n buffered bytes, writing them to the captures.
func (d *Reader) advance(n int) {
	for _, w := range d.tee {
		w.Write(d.buf[d.pos : d.pos+n])
	}
	d.pos += n
}

func (d *Reader) skipSpace() {
	for {
		i := d.pos
		for i < d.end && (d.buf[i] == ' ' || d.buf[i] == '\t' || d.buf[i] == '\n' || d.buf[i] == '\r') {
			i++
		}
		if i > d.pos {
			d.advance(i - d.pos) // captured when inside a value, as it is part of it
		}
		if d.pos < d.end {
			return
		}
		if d.fill(1); d.pos == d.end {
			return
		}
	}
}

// Peek returns the first byte of the next value ('{', '[', '"', 't', 'f', 'n', or a number's
// first byte) without consuming it; io.EOF when the stream has no more values.
func (d *Reader) Peek() (byte, error) {
	d.skipSpace()
	if d.pos == d.end {
		if d.rerr != nil && d.rerr != io.EOF {
			return 0, d.rerr
		}
		return 0, io.EOF
	}
	return d.buf[d.pos], nil
}

// Offset is the stream offset of the next value (after any whitespace).
func (d *Reader) Offset() int64 {
	d.skipSpace()
	return d.off + int64(d.pos)
}

// Capture reads the next value with fn (which must consume exactly that value), writing every
// byte of it to w as well.
func (d *Reader) Capture(w io.Writer, fn func() error) error {
	d.skipSpace()
	d.tee = append(d.tee, w)
	err := fn()
	d.tee = d.tee[:len(d.tee)-1]
	return err
}

// Raw returns the next value's bytes as they are, or ErrTooLarge once they pass limit.
func (d *Reader) Raw(limit int) ([]byte, error) {
	w := &limited{limit: limit}
	if err := d.Capture(w, d.Skip); err != nil {
		return nil, err
	}
	if w.over {
		return nil, ErrTooLarge
	}
	return w.b, nil
}

type limited struct {
	b     []byte
	limit int
	over  bool
}

func (w *limited) Write(p []byte) (int, error) {
	if len(w.b)+len(p) > w.limit {
		w.over, w.b = true, nil
	}
	if !w.over {
		w.b = append(w.b, p...)
	}
	return len(p), nil
}

// Skip consumes the next value, checking that it is well formed.
func (d *Reader) Skip() error {
	c, err := d.peekValue()
	if err != nil {
		return err
	}
	switch {
	case c == '{':
		return d.members(false, func([]byte, [32]byte) error { return d.Skip() })
	case c == '[':
		return d.elements(d.Skip)
	case c == '"':
		return d.str(nil)
	case c == 't':
		return d.literal("true")
	case c == 'f':
		return d.literal("false")
	case c == 'n':
		return d.literal("null")
	}
	return d.number(nil)
}

// peekValue returns the first byte of the next value, which must be there.
func (d *Reader) peekValue() (byte, error) {
	c, err := d.Peek()
	if err == io.EOF {
		return 0, d.eof()
	}
	if err != nil {
		return 0, err
	}
	switch c {
	case '{', '[', '"', 't', 'f', 'n', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return c, nil
	}
	return 0, d.syntax("invalid character %q looking for the beginning of a value", c)
}

func (d *Reader) literal(word string) error {
	if d.fill(len(word)); d.end-d.pos < len(word) || string(d.buf[d.pos:d.pos+len(word)]) != word {
		return d.syntax("invalid literal, expected %s", word)
	}
	d.advance(len(word))
	return nil
}

func (d *Reader) enter() error {
	if d.depth++; d.depth > MaxDepth {
		return d.syntax("exceeded max depth %d", MaxDepth)
	}
	return nil
}

func (d *Reader) elements(element func() error) error {
	if err := d.enter(); err != nil {
		return err
	}
	defer func() { d.depth-- }()
	d.advance(1)
	if c, err := d.Peek(); err == nil && c == ']' {
		d.advance(1)
		return nil
	}
	for {
		if err := element(); err != nil {
			return err
		}
		c, err := d.Peek()
		switch {
		case err != nil:
			return d.eof()
		case c == ',':
			d.advance(1)
		case c == ']':
			d.advance(1)
			return nil
		default:
			return d.syntax("invalid character %q after an array element", c)
		}
	}
}

// Object reads the next value, which must be an object, calling member with each key (decoded;
// a key over 1 KiB never equals a name, being cut) with the reader at the member's value, which
// member must consume.
func (d *Reader) Object(member func(key string) error) error {
	c, err := d.peekValue()
	if err != nil {
		return err
	}
	if c != '{' {
		return d.syntax("expected an object, got %s", kindName(c))
	}
	return d.members(false, func(key []byte, _ [32]byte) error { return member(string(key)) })
}

// members reads an object's members, giving member each key and, when digest, the digest of the
// whole key (a hash per key is most of the cost of reading a small object).
func (d *Reader) members(digest bool, member func(key []byte, keySum [32]byte) error) error {
	if err := d.enter(); err != nil {
		return err
	}
	defer func() { d.depth-- }()
	d.advance(1)
	if c, err := d.Peek(); err == nil && c == '}' {
		d.advance(1)
		return nil
	}
	for {
		c, err := d.Peek()
		if err != nil {
			return d.eof()
		}
		if c != '"' {
			return d.syntax("invalid character %q looking for an object key", c)
		}
		key := &limited{limit: 1 << 10}
		var to io.Writer = key
		var h hash.Hash
		if digest {
			h = newStringDigest()
			to = io.MultiWriter(key, h)
		}
		if err := d.str(to); err != nil {
			return err
		}
		if c, err := d.Peek(); err != nil || c != ':' {
			return d.syntax("expected a colon after an object key")
		}
		d.advance(1)
		k := key.b
		if key.over {
			k = append(key.b[:0], "\x00 a key over 1 KiB"...)
		}
		var keySum [32]byte
		if digest {
			keySum = sum(h)
		}
		if err := member(k, keySum); err != nil {
			return err
		}
		c, err = d.Peek()
		switch {
		case err != nil:
			return d.eof()
		case c == ',':
			d.advance(1)
		case c == '}':
			d.advance(1)
			return nil
		default:
			return d.syntax("invalid character %q after an object member", c)
		}
	}
}

func kindName(c byte) string {
	switch {
	case c == '[':
		return "an array"
	case c == '"':
		return "a string"
	case c == 't' || c == 'f':
		return "a boolean"
	case c == 'n':
		return "null"
	case c == '-' || (c >= '0' && c <= '9'):
		return "a number"
	}
	return fmt.Sprintf("%q", c)
}

// number consumes a number, writing its text to w (when not nil) as it goes.
func (d *Reader) number(w io.Writer) error {
	// The grammar: -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?
	state := 0
	for {
		if d.pos == d.end {
			if d.fill(1); d.pos == d.end {
				break
			}
		}
		c := d.buf[d.pos]
		next := -1
		switch state {
		case 0: // start
			switch {
			case c == '-':
				next = 1
			case c == '0':
				next = 2
			case c >= '1' && c <= '9':
				next = 3
			}
		case 1: // after -
			switch {
			case c == '0':
				next = 2
			case c >= '1' && c <= '9':
				next = 3
			}
		case 2, 3: // integer part done (2: it was 0)
			switch {
			case state == 3 && c >= '0' && c <= '9':
				next = 3
			case c == '.':
				next = 4
			case c == 'e' || c == 'E':
				next = 6
			}
		case 4, 5: // fraction (5: has a digit)
			switch {
			case c >= '0' && c <= '9':
				next = 5
			case state == 5 && (c == 'e' || c == 'E'):
				next = 6
			}
		case 6, 7, 8: // exponent (7: after sign, 8: has a digit)
			switch {
			case c >= '0' && c <= '9':
				next = 8
			case state == 6 && (c == '+' || c == '-'):
				next = 7
			}
		}
		if next < 0 {
			break
		}
		if w != nil {
			w.Write(d.buf[d.pos : d.pos+1])
		}
		d.advance(1)
		state = next
	}
	if state != 2 && state != 3 && state != 5 && state != 8 {
		return d.syntax("invalid number")
	}
	return nil
}

// String reads the next value, which must be a string, writing it decoded to w.
func (d *Reader) String(w io.Writer) error {
	c, err := d.peekValue()
	if err != nil {
		return err
	}
	if c != '"' {
		return d.syntax("expected a string, got %s", kindName(c))
	}
	return d.str(w)
}

// StringReader reads the next value, which must be a string, as a stream of its decoded bytes.
// Nothing else may be read from d until the returned reader has returned io.EOF.
func (d *Reader) StringReader() (io.Reader, error) {
	c, err := d.peekValue()
	if err != nil {
		return nil, err
	}
	if c != '"' {
		return nil, d.syntax("expected a string, got %s", kindName(c))
	}
	d.advance(1)
	return &stringReader{d: d}, nil
}

type stringReader struct {
	d       *Reader
	done    bool
	err     error
	rest    []byte // decoded bytes that did not fit the caller's buffer
	scratch [64]byte
}

func (s *stringReader) Read(p []byte) (int, error) {
	if len(s.rest) > 0 {
		n := copy(p, s.rest)
		s.rest = s.rest[n:]
		return n, nil
	}
	switch {
	case len(p) == 0:
		return 0, nil
	case s.err != nil:
		return 0, s.err
	case s.done:
		return 0, io.EOF
	}
	dst := p[:0:len(p)]
	if len(p) < len(s.scratch) {
		dst = s.scratch[:0]
	}
	var chunk []byte
	chunk, s.done, s.err = s.d.strChunk(dst)
	n := len(chunk)
	if len(p) < len(s.scratch) {
		n = copy(p, chunk)
		s.rest = chunk[n:]
	}
	if n == 0 && s.err != nil {
		return 0, s.err
	}
	if n == 0 && s.done {
		return 0, io.EOF
	}
	return n, nil
}

// str consumes a string, writing it decoded to w (when not nil).
func (d *Reader) str(w io.Writer) error {
	d.advance(1) // the opening quote
	if d.scratch == nil {
		d.scratch = make([]byte, 0, 8<<10)
	}
	for {
		chunk, done, err := d.strChunk(d.scratch[:0])
		if err != nil {
			return err
		}
		if w != nil && len(chunk) > 0 {
			w.Write(chunk)
		}
		if done {
			return nil
		}
	}
}

// strChunk decodes the string being read into dst, up to its capacity (less a rune), as
// encoding/json does: escapes resolved, invalid UTF-8 and lone surrogates replaced by U+FFFD.
// done is true once the closing quote is consumed.
func (d *Reader) strChunk(dst []byte) (out []byte, done bool, err error) {
	for len(dst)+utf8.UTFMax <= cap(dst) {
		if d.end-d.pos < 12 {
			d.fill(12) // the longest unit: a surrogate pair of escapes
		}
		if d.pos == d.end {
			return dst, false, d.eof()
		}
		// A run of plain ASCII is copied whole.
		i, room := d.pos, d.pos+cap(dst)-len(dst)-utf8.UTFMax
		if room <= d.pos {
			return dst, false, nil
		}
		seg := d.buf[d.pos:min(d.end, room)]
		n := plain(seg)
		// Text that is not ASCII: valid runes are copied as they are.
		for n < len(seg) && seg[n] >= utf8.RuneSelf {
			r, size := utf8.DecodeRune(seg[n:])
			if r == utf8.RuneError && size == 1 {
				break // invalid, or a rune cut by the end of the buffer: one at a time, below
			}
			n += size
			n += plain(seg[n:])
		}
		i += n
		if i > d.pos {
			dst = append(dst, d.buf[d.pos:i]...)
			d.advance(i - d.pos)
			continue
		}
		c := d.buf[d.pos]
		switch {
		case c == '"':
			d.advance(1)
			return dst, true, nil
		case c < 0x20:
			return dst, false, d.syntax("invalid control character %q in string", c)
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRune(d.buf[d.pos:d.end])
			if r == utf8.RuneError && size == 1 {
				dst = utf8.AppendRune(dst, utf8.RuneError)
			} else {
				dst = append(dst, d.buf[d.pos:d.pos+size]...)
			}
			d.advance(size)
		case c == '\\':
			if d.end-d.pos < 2 {
				return dst, false, d.eof()
			}
			e := d.buf[d.pos+1]
			if r := unescape[e]; r != 0 {
				dst = append(dst, r)
				d.advance(2)
				continue
			}
			if e != 'u' {
				return dst, false, d.syntax("invalid escape \\%c in string", e)
			}
			r := hex4(d.buf[d.pos:d.end])
			if r < 0 {
				return dst, false, d.syntax("invalid \\u escape in string")
			}
			n := 6
			if utf16.IsSurrogate(r) {
				r2 := hex4(d.buf[d.pos+6 : d.end])
				if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
					r, n = dec, 12
				} else {
					r = utf8.RuneError
				}
			}
			dst = utf8.AppendRune(dst, r)
			d.advance(n)
		}
	}
	return dst, false, nil
}

// unescape is what each one-letter escape stands for; 0 for none.
var unescape = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// plain is the length of b's leading run of bytes a string holds as they are: ASCII, and not
// a control character, a quote or a backslash. It looks at 8 bytes at a time, as strings here
// can be tens of MiB.
func plain(b []byte) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; i+8 <= len(b); i += 8 {
		w := binary.LittleEndian.Uint64(b[i:])
		q, bs := w^(ones*'"'), w^(ones*'\\')
		// The lowest flagged byte of each term is exact: a control byte, a quote, a backslash,
		// or a byte with its high bit set.
		m := ((w - ones*0x20) & ^w) | ((q - ones) & ^q) | ((bs - ones) & ^bs) | w
		if m &= highs; m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for ; i < len(b); i++ {
		if c := b[i]; c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf {
			break
		}
	}
	return i
}

// hex4 reads a \uXXXX escape at the start of b, or returns -1.
func hex4(b []byte) rune {
	if len(b) < 6 || b[0] != '\\' || b[1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range b[2:6] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}
