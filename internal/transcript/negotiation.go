package transcript

import "github.com/toolscore/toolscore/internal/jsonrpc"

// Negotiation is what a session's handshakes settled, as its transcript records it.
type Negotiation struct {
	// Protocol is the cap the proxy enforced: a revision, or as-is.
	Protocol string
	// Method is the handshake that settled the revision (initialize or server/discover), or the
	// last one tried when none did; "" when the client made none.
	Method      string
	ClientAsked string
	// Version is the revision the client was given; "" when no handshake settled one.
	Version string
	// Unavailable says why the server could not offer Protocol; "" when nothing showed it.
	Unavailable string
	// Refused is the JSON-RPC error the server itself (not the proxy's cap) answered the last
	// handshake with, when no handshake settled a revision: "-32602 Unsupported protocol version".
	Refused string
}

// Negotiated reads what the handshakes of a transcript settled: the last one that gave the
// client a revision, as a 2026-07-28 client that falls back to initialize makes two.
func Negotiated(entries []Entry) Negotiation {
	// "as-is" is how the proxy names no cap (proxy.AsIsProtocol), for a transcript that names none.
	n := Negotiation{Protocol: "as-is"}
	str := func(d map[string]any, k string) string {
		s, _ := d[k].(string)
		return s
	}
	for _, e := range entries {
		d, _ := e.Detail.(map[string]any)
		switch e.Event {
		case "start":
			if p := str(d, "protocol"); p != "" {
				n.Protocol = p
			}
		case "negotiated":
			method, got := str(d, "method"), str(d, "negotiated")
			if method == "" { // a transcript from before server/discover was recorded
				method, got = "initialize", str(d, "server_chose")
			}
			if got != "" || n.Version == "" {
				n.Method, n.ClientAsked, n.Version = method, str(d, "client_asked"), got
				n.Refused = ""
				if byProxy, _ := d["by_proxy"].(bool); got == "" && !byProxy {
					n.Refused = str(d, "refused")
				}
			}
		case "protocol-unavailable":
			if n.Unavailable == "" {
				n.Unavailable = e.Note
			}
		}
	}
	return n
}

// WentOn says whether the client sent the server anything after the answer to its last
// handshake (initialize or server/discover): notifications/initialized, a listing, a call. A
// client that got an answer it could not use (a revision it does not speak, a refusal) and
// stopped there sends nothing more.
func WentOn(entries []Entry) bool {
	handshake := map[string]bool{}
	answered := false
	for i := range entries {
		e := &entries[i]
		if e.Dir != ClientToServer && e.Dir != ServerToClient {
			continue
		}
		env, ok := e.envelope()
		switch {
		case !ok:
			if e.Dir == ClientToServer && answered {
				return true // a frame that is not JSON-RPC is still something the client sent
			}
		case e.Dir == ClientToServer && (env.Method == "initialize" || env.Method == "server/discover"):
			handshake[jsonrpc.IDKey(env.ID)], answered = true, false
		case e.Dir == ServerToClient && env.Method == "" && handshake[jsonrpc.IDKey(env.ID)]:
			answered = true
		case e.Dir == ClientToServer && answered:
			return true
		}
	}
	return false
}
