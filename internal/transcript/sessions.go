package transcript

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
)

// maxSessions bounds the transcripts one run's proxies leave beside each other: a client that
// restarts the server in a loop records its first sessions, and the proxy fails after that.
const maxSessions = 32

// SessionPath is where the nth proxy session given the transcript path path writes: path itself
// for the first, then tee.2.jsonl, tee.3.jsonl, ... beside it.
func SessionPath(path string, n int) string {
	if n <= 1 {
		return path
	}
	dot := strings.LastIndexByte(path, '.')
	if dot <= strings.LastIndexAny(path, `/\`) {
		return fmt.Sprintf("%s.%d", path, n)
	}
	return fmt.Sprintf("%s.%d%s", path[:dot], n, path[dot:])
}

// CreateSession creates the transcript of a new proxy session at the first of path's session
// paths that does not exist yet. A client that starts the server more than once in a run (a
// probe before the real session, a reconnect after a crash, two at once) gets a transcript per
// session: none overwrites or interleaves with another's.
func CreateSession(path string) (*os.File, error) {
	for n := 1; n <= maxSessions; n++ {
		f, err := os.OpenFile(SessionPath(path, n), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if !errors.Is(err, fs.ErrExist) {
			return f, err
		}
	}
	return nil, fmt.Errorf("%s and its %d session transcripts beside it exist already: the server was started %d times", path, maxSessions-1, maxSessions)
}

// GradedSession is the transcript of path's sessions that a run is graded on: the last session
// that carried a call of the target tool, as the client's result comes from its last attempt;
// without one, the last session. It is path itself when there is one session, or none.
func GradedSession(path string) string {
	sessions := Sessions(path)
	if len(sessions) <= 1 {
		return path
	}
	for i := len(sessions) - 1; i >= 0; i-- {
		if calledTarget(sessions[i]) {
			return sessions[i]
		}
	}
	return sessions[len(sessions)-1]
}

// Sessions are the transcripts of path's sessions that exist, in the order they were made.
func Sessions(path string) []string {
	var sessions []string
	for n := 1; n <= maxSessions; n++ {
		p := SessionPath(path, n)
		if _, err := os.Lstat(p); err != nil {
			break
		}
		sessions = append(sessions, p)
	}
	return sessions
}

// calledTarget says whether the transcript at path holds a call of the target tool.
func calledTarget(path string) bool {
	t := &reading{path: path}
	var called bool
	_ = t.scan(func(e *Entry) { called = called || (e.Dir == ClientToServer && e.Match != nil) })
	return called
}
