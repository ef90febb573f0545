package jsonstream

import (
	"io"
	"strings"
	"testing"
)

func BenchmarkDigestString(b *testing.B) {
	s := `{"content":[{"type":"text","text":"` + strings.Repeat("0123456789abcdef", 1<<20) + `"}]}`
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		if _, err := NewReader(strings.NewReader(s)).Digest(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkStringReader(b *testing.B) {
	s := `"` + strings.Repeat(`{\"a\":\"0123456789abcdef\"}`, 1<<19) + `"`
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		r, _ := NewReader(strings.NewReader(s)).StringReader()
		io.Copy(io.Discard, r)
	}
}
