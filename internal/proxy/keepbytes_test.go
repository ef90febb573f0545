package proxy

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"testing"
	"unicode/utf8"
)

// FuzzKeepBytes: on valid UTF-8, decodeKeeping decodes as encoding/json does (with UseNumber)
// and encodeKeeping encodes as marshal does, so the faulted answer of a server that sends
// invalid UTF-8 differs from an ordinary one only in the bytes kept; on any input, what
// decodeKeeping reads encodeKeeping writes back to a value that decodes the same.
func FuzzKeepBytes(f *testing.F) {
	for _, s := range []string{
		`{"a":1,"b":[true,false,null,"x"],"c":{"d":1.5e3,"e":"\u00e9\ud83d\ude00\ud800x\n\t\"\\\/"}}`,
		`{"content":[{"type":"text","text":"bad \xff\xfe bytes"}],"structuredContent":{"k\xc3":"v\xe2\x82"}}`,
		`{"big":12345678901234567890123,"huge":1e400,"dup":1,"dup":2}`,
		"{\"bom\":\"\ufeffx\",\"crlf\":\"a\\r\\nb\",\"sep\":\"\u2028\u2029\",\"ctl\":\"\\u0001\\u001f\\u007f\"}",
		`{}`, `[]`, `{"a":}`, `{"a":"\ud800\udc00\udc00"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := decodeKeeping(b)
		if utf8.Valid(b) {
			var want map[string]any
			dec := json.NewDecoder(bytes.NewReader(b))
			dec.UseNumber()
			werr := dec.Decode(&want)
			if werr == nil && len(bytes.TrimLeft(b[dec.InputOffset():], " \t\r\n")) > 0 {
				werr = errors.New("data after the value")
			}
			if wantOK := werr == nil && want != nil; (err == nil) != wantOK {
				t.Fatalf("decodeKeeping: %v; encoding/json: %v, %v; of %q", err, want, werr, b)
			}
			if err == nil && !reflect.DeepEqual(got, want) {
				t.Fatalf("decodeKeeping gives %#v, encoding/json %#v, of %q", got, want, b)
			}
			if err == nil {
				enc, err1 := encodeKeeping(got)
				m, err2 := marshal(got)
				if (err1 == nil) != (err2 == nil) || !bytes.Equal(enc, m) {
					t.Fatalf("encodeKeeping gives %q (%v), marshal %q (%v)", enc, err1, m, err2)
				}
			}
		}
		if err != nil {
			return
		}
		enc, err := encodeKeeping(got)
		if err != nil {
			return // a number encoding/json refuses to write, as it would
		}
		again, err := decodeKeeping(enc)
		if err != nil || !reflect.DeepEqual(again, got) {
			t.Fatalf("%q encodes to %q, which decodes to %#v (%v)", b, enc, again, err)
		}
	})
}

// TestKeepBytes: a string's bytes that are not UTF-8 survive decodeKeeping and encodeKeeping,
// where encoding/json makes each U+FFFD.
func TestKeepBytes(t *testing.T) {
	in := "{\"a\":\"x\xff\xfey \xe2\x82 \\u00e9\",\"b\":[\"\xc3\"]}"
	v, err := decodeKeeping([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if v["a"] != "x\xff\xfey \xe2\x82 \u00e9" || v["b"].([]any)[0] != "\xc3" {
		t.Errorf("decoded %q", v)
	}
	out, err := encodeKeeping(v)
	if want := "{\"a\":\"x\xff\xfey \xe2\x82 \u00e9\",\"b\":[\"\xc3\"]}\n"; err != nil || string(out) != want {
		t.Errorf("encoded %q (%v), want %q", out, err, want)
	}
}
