package jsonstream

import (
	"crypto/sha256"
	"encoding/binary"
	"hash"
	"math/bits"
)

// maxTracked bounds how many object keys a Digest remembers to find duplicates, so memory
// stays bounded for an object of millions of members; past it, a duplicate key counts twice.
const maxTracked = 64 << 10

// Digest reads the next value and returns a digest of what it means rather than how it is
// written: two values get the same digest when encoding/json, decoding them into an any with
// UseNumber, gives reflect.DeepEqual results (members in any order, the last of duplicate keys
// winning, strings after escapes and with invalid UTF-8 replaced, numbers as written). It holds
// no more of the value than the path to where it is reading.
func (d *Reader) Digest() ([32]byte, error) {
	tracked := 0
	return d.digest(&tracked)
}

func (d *Reader) digest(tracked *int) ([32]byte, error) {
	c, err := d.peekValue()
	if err != nil {
		return [32]byte{}, err
	}
	h := sha256.New()
	switch {
	case c == '{':
		// Members are summed, not sorted, so the digest of an object costs no memory per
		// member; a duplicate key takes its earlier member out of the sum.
		var acc [4]uint64
		seen := map[[32]byte][32]byte{}
		err = d.members(true, func(_ []byte, key [32]byte) error {
			v, err := d.digest(tracked)
			if err != nil {
				return err
			}
			m := memberSum(key, v)
			if old, dup := seen[key]; dup {
				sub(&acc, old)
			} else if *tracked < maxTracked {
				*tracked++
			} else {
				add(&acc, m)
				return nil
			}
			seen[key] = m
			add(&acc, m)
			return nil
		})
		h.Write([]byte{'{'})
		for _, w := range acc {
			h.Write(binary.BigEndian.AppendUint64(nil, w))
		}
	case c == '[':
		h.Write([]byte{'['})
		err = d.elements(func() error {
			v, err := d.digest(tracked)
			h.Write(v[:])
			return err
		})
	case c == '"':
		h = newStringDigest()
		err = d.str(h)
	case c == 't' || c == 'f' || c == 'n':
		word := map[byte]string{'t': "true", 'f': "false", 'n': "null"}[c]
		h.Write([]byte(word))
		err = d.literal(word)
	default:
		h.Write([]byte{'#'})
		err = d.number(h)
	}
	return sum(h), err
}

// newStringDigest starts the digest of a string; its decoded bytes follow.
func newStringDigest() hash.Hash {
	h := sha256.New()
	h.Write([]byte{'"'})
	return h
}

func sum(h hash.Hash) (s [32]byte) {
	h.Sum(s[:0])
	return s
}

func memberSum(key, value [32]byte) [32]byte {
	return sha256.Sum256(append(key[:], value[:]...))
}

// add and sub work modulo 2^256 on acc, big-endian limbs.
func add(acc *[4]uint64, v [32]byte) {
	var carry uint64
	for i := 3; i >= 0; i-- {
		acc[i], carry = bits.Add64(acc[i], binary.BigEndian.Uint64(v[i*8:]), carry)
	}
}

func sub(acc *[4]uint64, v [32]byte) {
	var borrow uint64
	for i := 3; i >= 0; i-- {
		acc[i], borrow = bits.Sub64(acc[i], binary.BigEndian.Uint64(v[i*8:]), borrow)
	}
}
