// Package frame is the framing of several byte streams over one connection: each frame is a
// kind byte, the payload's length (4 bytes, big-endian) and the payload. The stdio bridge
// (package bridge) and a held cell's first process (package backend) speak it.
package frame

import (
	"encoding/binary"
	"fmt"
	"io"
)

// Write writes one frame.
func Write(w io.Writer, kind byte, p []byte) error {
	var head [5]byte
	head[0] = kind
	binary.BigEndian.PutUint32(head[1:], uint32(len(p)))
	if _, err := w.Write(head[:]); err != nil {
		return err
	}
	_, err := w.Write(p)
	return err
}

// Read reads one frame into buf (reused when it is big enough) and returns its kind and
// payload; a payload over limit bytes is an error, so a reader of hostile frames never
// allocates more.
func Read(r io.Reader, buf []byte, limit int) (byte, []byte, error) {
	var head [5]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return 0, nil, err
	}
	n := int(binary.BigEndian.Uint32(head[1:]))
	if n > limit {
		return 0, nil, fmt.Errorf("a frame of %d bytes, over the limit of %d", n, limit)
	}
	if cap(buf) < n {
		buf = make([]byte, n)
	}
	buf = buf[:n]
	_, err := io.ReadFull(r, buf)
	return head[0], buf, err
}
