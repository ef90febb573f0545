package jsonstream

import (
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"unicode/utf8"

	"github.com/toolscore/toolscore/record"
)

// Sizes for values kept in records (runs.jsonl): a value up to KeepLimit is kept whole; a
// larger one is stood for by an Excerpt of its first PrefixLen bytes.
const (
	KeepLimit = 64 << 10
	PrefixLen = 1 << 10
)

// Excerpt stands for a value too large to copy into every record (record.Excerpt): its first
// bytes, its size and its SHA-256.
type Excerpt = record.Excerpt

// Keeper is an io.Writer that keeps the first limit bytes written to it and counts and hashes
// them all, so a value of any size passed through it can be kept whole or stood for.
type Keeper struct {
	head  []byte
	n     int64
	h     hash.Hash
	limit int
}

// NewKeeper keeps up to limit bytes.
func NewKeeper(limit int) *Keeper {
	return &Keeper{h: sha256.New(), limit: limit}
}

func (k *Keeper) Write(p []byte) (int, error) {
	k.h.Write(p)
	k.n += int64(len(p))
	if room := k.limit - len(k.head); room > 0 {
		k.head = append(k.head, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

// Whole returns the bytes written when all of them were kept.
func (k *Keeper) Whole() ([]byte, bool) {
	if k.n > int64(len(k.head)) {
		return nil, false
	}
	return k.head, true
}

// Len is how many bytes were written.
func (k *Keeper) Len() int64 { return k.n }

// Head is the first n bytes written (fewer when fewer were), less a rune cut in two at the end.
func (k *Keeper) Head(n int) string {
	b := k.head[:min(n, len(k.head))]
	if int64(len(b)) == k.n {
		return string(b)
	}
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				b = b[:i]
			}
			break
		}
	}
	return string(b)
}

// Excerpt stands for what was written.
func (k *Keeper) Excerpt() *Excerpt {
	return &Excerpt{Prefix: k.Head(PrefixLen), Bytes: k.n, SHA256: hex.EncodeToString(k.h.Sum(nil))}
}
