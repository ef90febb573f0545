package execute

import (
	"bufio"
	"bytes"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/toolscore/toolscore/internal/backend"
)

// redact replaces every secret (empty ones aside) wherever it appears in a run's output and in
// the files of its directory (the adapter's stdout among them).
func redact(dir string, res *backend.Result, secrets []string) {
	var olds [][]byte
	for _, s := range secrets {
		if s != "" {
			olds = append(olds, []byte(s))
		}
	}
	if len(olds) == 0 {
		return
	}
	// The longest first, so a secret that holds a shorter one is masked whole.
	slices.SortFunc(olds, func(a, b []byte) int { return len(b) - len(a) })
	mask := []byte("[masked]")
	replace := func(b []byte) ([]byte, bool) {
		changed := false
		for _, old := range olds {
			if bytes.Contains(b, old) {
				b, changed = bytes.ReplaceAll(b, old, mask), true
			}
		}
		return b, changed
	}
	res.Stderr, _ = replace(res.Stderr)
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		redactFile(path, olds, mask)
		return nil
	})
}

// redactChunk is how much of a file redactFile reads at a time: a run's files (its transcript
// above all) can be as large as what the server sent, so they are never read whole.
var redactChunk = 1 << 20

// redactFile replaces every secret of olds (longest first) in the file at path with mask. It
// reads the file once to find one, and rewrites it (into a new file renamed over it) only then.
func redactFile(path string, olds [][]byte, mask []byte) {
	f, err := os.Open(path)
	if err != nil {
		return
	}
	defer f.Close()
	if found, err := replaceAll(f, io.Discard, olds, mask); err != nil || !found {
		return
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return
	}
	info, err := f.Stat()
	if err != nil {
		return
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".redact-*")
	if err != nil {
		return
	}
	w := bufio.NewWriterSize(tmp, 64<<10)
	_, err = replaceAll(f, w, olds, mask)
	if err == nil {
		err = w.Flush()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), info.Mode().Perm())
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
}

// replaceAll copies r to w with every secret of olds (sorted longest first) replaced by mask,
// reading redactChunk bytes at a time; where two start at one byte, the longest is replaced. It
// says whether it replaced any.
func replaceAll(r io.Reader, w io.Writer, olds [][]byte, mask []byte) (found bool, err error) {
	// A secret cut by the end of what was read starts in its last keep bytes: they are held over.
	keep := len(olds[0]) - 1
	buf := make([]byte, 0, redactChunk+keep)
	write := func(b []byte) {
		if err == nil {
			_, err = w.Write(b)
		}
	}
	for {
		n, rerr := io.ReadFull(r, buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		eof := rerr == io.EOF || rerr == io.ErrUnexpectedEOF
		if rerr != nil && !eof {
			return found, rerr
		}
		// A secret that starts before safe lies whole in buf.
		safe := len(buf) - keep
		if eof {
			safe = len(buf)
		}
		i := 0
		for i < safe {
			at, s := firstSecret(buf[i:], olds)
			if at < 0 || i+at >= safe {
				break
			}
			write(buf[i : i+at])
			write(mask)
			found, i = true, i+at+len(s)
		}
		if i < safe {
			write(buf[i:safe])
			i = safe
		}
		if eof || err != nil {
			return found, err
		}
		buf = buf[:copy(buf, buf[i:])]
	}
}

// firstSecret finds the secret of olds that starts first in b, the longest of those that start
// there; at is -1 when none does.
func firstSecret(b []byte, olds [][]byte) (at int, secret []byte) {
	at = -1
	for _, s := range olds {
		if i := bytes.Index(b, s); i >= 0 && (at < 0 || i < at) {
			at, secret = i, s
		}
	}
	return at, secret
}
