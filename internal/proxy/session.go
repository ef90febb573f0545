package proxy

import (
	"fmt"
	"strings"
	"time"

	"github.com/toolscore/toolscore/internal/proc"
)

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
		key := idKey(env.ID)
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
			asked[idKey(env.ID)] = true
		case e.Dir == ServerToClient && env.Method == "" && asked[idKey(env.ID)]:
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
			asked[idKey(env.ID)] = true
		case e.Dir == ServerToClient && env.Method == "" && asked[idKey(env.ID)]:
			return e.Time
		}
	}
	return time.Time{}
}
