package transcript

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/toolscore/toolscore/internal/jsonrpc"
	"github.com/toolscore/toolscore/internal/proc"
)

// TargetAnswer finds the last target tools/call the client made and the answer the proxy sent
// for it; answer is nil when none came (the server died, or hung).
func TargetAnswer(entries []Entry) (request, answer *Entry) {
	for i := range entries {
		e := &entries[i]
		if e.Dir == ClientToServer && e.Match != nil {
			request, answer = e, nil
		}
		if request != nil && answer == nil && e.Dir == ServerToClient {
			if env, ok := e.envelope(); ok && env.Method == "" {
				if req, _ := request.envelope(); jsonrpc.IDKey(req.ID) == jsonrpc.IDKey(env.ID) {
					answer = e
				}
			}
		}
	}
	return request, answer
}

// Waited is a request of the client that the server never answered, as a transcript shows it.
type Waited struct {
	Method string
	ID     string
}

// FirstUnanswered finds the first request the client sent the server that the server never
// answered (the one the client was stuck on), or nil when every one was answered.
func FirstUnanswered(entries []Entry) *Waited {
	var order []Waited
	asked := map[string]int{}
	for i := range entries {
		e := &entries[i]
		if e.Dir != ClientToServer && e.Dir != ServerToClient {
			continue
		}
		env, ok := e.envelope()
		key := jsonrpc.IDKey(env.ID)
		if !ok || key == "" {
			continue
		}
		switch {
		case e.Dir == ClientToServer && env.Method != "":
			asked[key] = len(order)
			order = append(order, Waited{Method: env.Method, ID: key})
		case e.Dir == ServerToClient && env.Method == "":
			if n, ok := asked[key]; ok {
				order[n].Method = "" // answered
				delete(asked, key)
			}
		}
	}
	for _, w := range order {
		if w.Method != "" {
			return &w
		}
	}
	return nil
}

// HandshakeExit says how the server went, when it exited before it answered the client's
// initialize (or server/discover) while the client still waited (it had not closed its end, the proxy was not
// stopped): its exit status and its last line on stderr. "" when the server did not.
func HandshakeExit(entries []Entry) string {
	asked := map[string]bool{}
	var stderr []string // its last lines, which the line that says why is among
	for i := range entries {
		e := &entries[i]
		switch e.Dir {
		case ServerStderr:
			if s := strings.TrimSpace(string(e.Wire)); s != "" {
				stderr = append(stderr, s)
				if len(stderr) > 64 {
					stderr = stderr[1:]
				}
			}
			continue
		case Event:
			switch e.Event {
			case "proxy-stopped":
				return "" // the run's time ran out, or the sweep was stopped
			case "server-exit":
				d, _ := e.Detail.(map[string]any)
				if first, _ := d["client_closed_first"].(bool); first {
					return "" // the client gave up first
				}
				how := fmt.Sprintf("with status %v", d["status"])
				if sig, ok := d["signal"]; ok {
					how = fmt.Sprintf("on signal %v", sig)
				}
				s := "the server exited " + how + " before answering initialize"
				if len(stderr) > 0 {
					text := strings.Join(stderr, "\n")
					// The line that says why, which a package manager's notices often follow.
					if why := proc.Explaining(text, 300); why == proc.Explaining(lastOf(text), 300) {
						s += "; its last stderr: " + why
					} else {
						s += "; its stderr: " + why
					}
				}
				return s
			}
			continue
		}
		env, ok := e.envelope()
		if !ok {
			continue
		}
		switch {
		case e.Dir == ClientToServer && (env.Method == "initialize" || env.Method == "server/discover"):
			// A 2026-07-28 session may open with server/discover alone.
			asked[jsonrpc.IDKey(env.ID)] = true
		case e.Dir == ServerToClient && env.Method == "" && asked[jsonrpc.IDKey(env.ID)]:
			return "" // the handshake was answered
		}
	}
	return ""
}

// lastOf is the last line of text.
func lastOf(text string) string {
	return text[strings.LastIndexByte(text, '\n')+1:]
}

// ToolsListed is when the server first answered the client's tools/list, as a transcript shows
// it; the zero time when it never did.
func ToolsListed(entries []Entry) time.Time {
	asked := map[string]bool{}
	for i := range entries {
		e := &entries[i]
		if e.Dir != ClientToServer && e.Dir != ServerToClient {
			continue
		}
		env, ok := e.envelope()
		if !ok {
			continue
		}
		switch {
		case e.Dir == ClientToServer && env.Method == "tools/list":
			asked[jsonrpc.IDKey(env.ID)] = true
		case e.Dir == ServerToClient && env.Method == "" && asked[jsonrpc.IDKey(env.ID)]:
			return e.Time
		}
	}
	return time.Time{}
}

// TaskFollowed says how the client followed the task the target call was answered with, from
// the proxy's answers to its tasks requests: id is "" when the answer was no task handle; got
// is the last answer that carried the task's result (nil when none did); said is a line for
// the evidence.
func TaskFollowed(entries []Entry, answer *Entry) (id string, got *Entry, said string) {
	if answer == nil {
		return "", nil, ""
	}
	d, _ := answer.Detail.(map[string]any)
	id, _ = d["task"].(string)
	if id == "" {
		return "", nil, ""
	}
	var steps []string
	polls := 0
	for i := range entries {
		e := &entries[i]
		d, _ := e.Detail.(map[string]any)
		m, _ := d["method"].(string)
		if e.Dir != ServerToClient || m == "" || d["task"] != id || e.Time.Before(answer.Time) {
			continue
		}
		step := m
		if n, ok := d["poll"].(json.Number); ok {
			step = "tasks/get " + n.String()
			if v, err := n.Int64(); err == nil {
				polls = int(v)
			}
		}
		if s, _ := d["status"].(string); s != "" {
			step += " " + s
		}
		steps = append(steps, step)
		if d["result"] == true {
			got = e
		}
	}
	if len(steps) == 0 {
		return id, nil, fmt.Sprintf("the call was answered with task %s, which the client never asked about (no tasks/get, no tasks/result)", id)
	}
	said = fmt.Sprintf("the call was answered with task %s; the client polled it %d time(s): %s", id, polls, strings.Join(steps, ", "))
	if got == nil {
		said += "; the task's result never went to it"
	}
	return id, got, said
}
