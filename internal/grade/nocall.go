package grade

import "github.com/toolscore/toolscore/internal/transcript"

// noCall begins the evidence of a run whose adapter reported a raised error that nothing on the
// wire explains: an adapter that claims an error is not a library that raised one.
const noCall = "the adapter reported an error but never called the tool (the wire holds no tools/call, nor anything from the server the client could have raised on)"

// quiet are the proxy's events that say nothing about the server or the wire (its own start and
// stop, the client leaving): a run that holds only these never spoke to the server.
var quiet = map[string]bool{
	"start": true, "proxy-stopped": true, "no-server-exit": true, "client-closed": true,
	"client-left": true, "client-stdout-closed": true, "session-end": true, "schema-ref-listening": true,
}

// wireExplains says whether the transcript holds anything a client could have raised on before
// calling the tool: a message either way (a request left unanswered, an answer it refused), a
// frame that is not JSON-RPC, or an event of the server's or the wire's (an exit, a closed
// stream, a transport fault); any event not known to be quiet counts, so a new one errs on the
// side of the client.
func wireExplains(entries []transcript.Entry) bool {
	for i := range entries {
		e := &entries[i]
		switch e.Dir {
		case transcript.ClientToServer, transcript.ServerToClient:
			return true
		case transcript.Event:
			if e.Event == "server-exit" {
				if d, _ := e.Detail.(map[string]any); d["client_closed_first"] == true {
					continue // the client was gone first: the server's exit followed it
				}
			}
			if !quiet[e.Event] {
				return true
			}
		}
	}
	return false
}
