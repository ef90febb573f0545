package proxy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"unicode/utf16"
	"unicode/utf8"
)

// An answer whose strings hold bytes that are not UTF-8 is decoded and encoded by the two
// functions here rather than by encoding/json, which makes each such byte U+FFFD: a fault then
// changes what it changes, and every byte it does not touch reaches the client as the server
// sent it.

// decodeKeeping decodes the JSON object b as encoding/json does into a map[string]any with
// UseNumber (the last of duplicate keys winning, nesting past 10000 refused), except that a
// string keeps the bytes that are not UTF-8.
func decodeKeeping(b []byte) (map[string]any, error) {
	d := keepDecoder{b: b}
	d.space()
	v, err := d.value(0)
	if err != nil {
		return nil, err
	}
	if d.space(); d.i != len(d.b) {
		return nil, d.errorf("data after the value")
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, errors.New("not a JSON object")
	}
	return m, nil
}

type keepDecoder struct {
	b []byte
	i int
}

func (d *keepDecoder) errorf(format string, args ...any) error {
	return fmt.Errorf("offset %d: "+format, append([]any{d.i}, args...)...)
}

func (d *keepDecoder) space() {
	for d.i < len(d.b) && (d.b[d.i] == ' ' || d.b[d.i] == '\t' || d.b[d.i] == '\n' || d.b[d.i] == '\r') {
		d.i++
	}
}

func (d *keepDecoder) value(depth int) (any, error) {
	if depth > 10000 {
		return nil, d.errorf("nested too deeply")
	}
	if d.i >= len(d.b) {
		return nil, d.errorf("unexpected end")
	}
	switch c := d.b[d.i]; {
	case c == '{':
		d.i++
		m := map[string]any{}
		if d.space(); d.i < len(d.b) && d.b[d.i] == '}' {
			d.i++
			return m, nil
		}
		for {
			d.space()
			k, err := d.str()
			if err != nil {
				return nil, err
			}
			if d.space(); d.i >= len(d.b) || d.b[d.i] != ':' {
				return nil, d.errorf("want a colon")
			}
			d.i++
			d.space()
			if m[k], err = d.value(depth + 1); err != nil {
				return nil, err
			}
			d.space()
			if d.i < len(d.b) && d.b[d.i] == ',' {
				d.i++
				continue
			}
			if d.i < len(d.b) && d.b[d.i] == '}' {
				d.i++
				return m, nil
			}
			return nil, d.errorf("want a comma or a closing brace")
		}
	case c == '[':
		d.i++
		a := []any{}
		if d.space(); d.i < len(d.b) && d.b[d.i] == ']' {
			d.i++
			return a, nil
		}
		for {
			d.space()
			v, err := d.value(depth + 1)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
			d.space()
			if d.i < len(d.b) && d.b[d.i] == ',' {
				d.i++
				continue
			}
			if d.i < len(d.b) && d.b[d.i] == ']' {
				d.i++
				return a, nil
			}
			return nil, d.errorf("want a comma or a closing bracket")
		}
	case c == '"':
		return d.str()
	case c == 't' || c == 'f' || c == 'n':
		for _, lit := range []struct {
			s string
			v any
		}{{"true", true}, {"false", false}, {"null", nil}} {
			if bytes.HasPrefix(d.b[d.i:], []byte(lit.s)) {
				d.i += len(lit.s)
				return lit.v, nil
			}
		}
		return nil, d.errorf("invalid literal")
	default:
		start := d.i
		for d.i < len(d.b) && bytes.IndexByte([]byte("+-.0123456789eE"), d.b[d.i]) >= 0 {
			d.i++
		}
		n := d.b[start:d.i]
		var num json.Number
		if len(n) == 0 || json.Unmarshal(n, &num) != nil {
			return nil, d.errorf("invalid number %q", n)
		}
		return num, nil
	}
}

// str decodes a JSON string, keeping bytes that are not UTF-8; a lone UTF-16 surrogate in an
// escape is U+FFFD, as in encoding/json.
func (d *keepDecoder) str() (string, error) {
	if d.i >= len(d.b) || d.b[d.i] != '"' {
		return "", d.errorf("want a string")
	}
	d.i++
	var out []byte
	for d.i < len(d.b) {
		c := d.b[d.i]
		switch {
		case c == '"':
			d.i++
			return string(out), nil
		case c < 0x20:
			return "", d.errorf("a control character in a string")
		case c != '\\':
			out = append(out, c)
			d.i++
			continue
		}
		if d.i+1 >= len(d.b) {
			break
		}
		e := d.b[d.i+1]
		d.i += 2
		switch e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := d.hex4()
			if !ok {
				return "", d.errorf("an invalid \\u escape")
			}
			if utf16.IsSurrogate(r) {
				// A pair makes one rune; a lone half is U+FFFD, and what follows is read on its own.
				save, pair := d.i, utf8.RuneError
				if d.i+1 < len(d.b) && d.b[d.i] == '\\' && d.b[d.i+1] == 'u' {
					d.i += 2
					if r2, ok := d.hex4(); ok {
						pair = utf16.DecodeRune(r, r2)
					}
				}
				if r = pair; r == utf8.RuneError {
					d.i = save
				}
			}
			out = utf8.AppendRune(out, r)
		default:
			return "", d.errorf("an invalid escape")
		}
	}
	return "", d.errorf("unexpected end in a string")
}

// hex4 reads the four hex digits of a \u escape.
func (d *keepDecoder) hex4() (rune, bool) {
	if d.i+4 > len(d.b) {
		return 0, false
	}
	var r rune
	for _, c := range d.b[d.i : d.i+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	d.i += 4
	return r, true
}

// encodeKeeping encodes v as marshal does (map keys sorted, no HTML escaping, a newline at the
// end), except that a string keeps the bytes that are not UTF-8. Maps, lists and strings are
// walked; any other value (a fault's own) goes through encoding/json.
func encodeKeeping(v any) ([]byte, error) {
	b, err := appendKeeping(nil, v)
	return append(b, '\n'), err
}

func appendKeeping(b []byte, v any) ([]byte, error) {
	switch v := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendStringKeeping(b, k)
			b = append(b, ':')
			var err error
			if b, err = appendKeeping(b, v[k]); err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	case []any:
		b = append(b, '[')
		for i, x := range v {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendKeeping(b, x); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	case string:
		return appendStringKeeping(b, v), nil
	}
	m, err := marshal(v)
	if err != nil {
		return nil, err
	}
	return append(b, bytes.TrimSuffix(m, []byte{'\n'})...), nil
}

const hexDigits = "0123456789abcdef"

// appendStringKeeping writes s as encoding/json does with HTML escaping off, but a byte that
// is not UTF-8 is written as it is rather than as \ufffd.
func appendStringKeeping(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c >= 0x20:
				b = append(b, c)
			case c == '\b':
				b = append(b, `\b`...)
			case c == '\f':
				b = append(b, `\f`...)
			case c == '\n':
				b = append(b, `\n`...)
			case c == '\r':
				b = append(b, `\r`...)
			case c == '\t':
				b = append(b, `\t`...)
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '\u2028' || r == '\u2029':
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			b = append(b, s[i:i+size]...) // a rune, or one byte that is not UTF-8, as it came
		}
		i += size
	}
	return append(b, '"')
}
