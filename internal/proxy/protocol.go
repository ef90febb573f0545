package proxy

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/toolscore/toolscore/fault"
	"github.com/toolscore/toolscore/internal/jsonrpc"
	"github.com/toolscore/toolscore/internal/transcript"
)

// Protocol is the newest MCP revision the proxy lets the server show the client, or AsIsProtocol.
type Protocol string

// AsIsProtocol leaves every handshake as server and client make it.
const AsIsProtocol Protocol = "as-is"

// modern is the first revision without the initialize handshake: a client may ask the server
// what it speaks with server/discover, and every request carries its version in _meta.
const modern = "2026-07-28"

// Revisions are the MCP revisions a cap can name, newest first.
var Revisions = []string{modern, "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// ParseProtocol checks a protocol cap's name.
func ParseProtocol(s string) (Protocol, error) {
	if s == string(AsIsProtocol) || slices.Contains(Revisions, s) {
		return Protocol(s), nil
	}
	return "", fmt.Errorf("unknown protocol %q (known: as-is, %s)", s, strings.Join(Revisions, ", "))
}

// capped says whether the proxy enforces a cap at all.
func (v Protocol) capped() bool { return v != "" && v != AsIsProtocol }

// legacy says whether the cap is below the modern revision: the server then shows a 2025-era face.
func (v Protocol) legacy() bool { return v.capped() && string(v) < modern }

// modernOnly are the requests a server of a revision before 2026-07-28 does not know.
var modernOnly = map[string]bool{"server/discover": true, "subscriptions/listen": true}

// metaVersion is the per-request _meta key of a modern request's revision.
const metaVersion = "io.modelcontextprotocol/protocolVersion"

// methodNotFound is the answer a 2025-era server gives a method it does not know, as the
// TypeScript and Python SDKs word it.
var methodNotFound = map[string]any{"code": -32601, "message": "Method not found"}

// capRequest applies the cap to one client request before it is forwarded. It returns the frame
// to forward, or nil and the proxy's own answer when a server under the cap would not know the
// method at all. c is the request's pending call, filled with the revision it asks for.
func (p *Proxy) capRequest(env jsonrpc.Message, frame []byte, rec *transcript.Record, c *call) (forward, own []byte, ownRec *transcript.Record) {
	newest := string(p.cfg.Protocol)
	switch {
	case p.cfg.Protocol.legacy() && modernOnly[env.Method] && json.Valid(frame):
		// A frame that is not JSON goes on as it is: the server answers it as it answers garbage.
		// Written by hand, in the order the SDKs of that era write it.
		own = []byte(`{"jsonrpc":"2.0","id":` + string(env.ID) + `,"error":{"code":-32601,"message":"Method not found"}}` + "\n")
		rec.Note = fmt.Sprintf("answered by the proxy, not forwarded: a server offering up to %s does not know %s", newest, env.Method)
		ownRec = &transcript.Record{Dir: transcript.ServerToClient, Wire: own, Note: "made up by the proxy: " + env.Method + " under protocol " + newest,
			Introduced: []fault.Introduced{{Path: "error", Value: methodNotFound}}}
		if env.Method == "server/discover" {
			p.record(&transcript.Record{Dir: transcript.Event, Event: "negotiated", Detail: map[string]any{
				"method": env.Method, "client_asked": metaString(env.Params), "negotiated": "",
				"refused": "-32601 Method not found", "by_proxy": true, "protocol": newest,
			}})
		}
		return nil, own, ownRec
	case env.Method == "server/discover":
		c.asked = metaString(env.Params)
		c.sent = c.asked
	case env.Method == "initialize":
		var params struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		_ = json.Unmarshal(env.Params, &params)
		c.asked, c.sent = params.ProtocolVersion, params.ProtocolVersion
		if !p.cfg.Protocol.capped() || c.asked <= newest || !json.Valid(frame) {
			break
		}
		// The server is asked for the cap itself, so that server and client agree on it: only
		// rewriting the answer would leave the server speaking a newer revision than the client.
		if out, ok := jsonrpc.WithMember(frame, quote(newest), "params", "protocolVersion"); ok {
			rec.Wire, rec.Original = out, frame
			rec.Introduced = []fault.Introduced{{Path: "params.protocolVersion", Value: newest, Was: c.asked}}
			rec.Note = "protocol " + newest + ": the client asked for " + c.asked + ", the server is asked for " + newest
			c.sent, frame = newest, out
		}
	}
	return frame, nil, nil
}

// initializeAnswer records what an initialize settled, and applies the cap to the answer of a
// server that chose a newer revision than it was asked for; it returns the new frame, or nil.
func (p *Proxy) initializeAnswer(c *call, frame []byte, rec *transcript.Record) []byte {
	var msg struct {
		Result *struct {
			ProtocolVersion string `json:"protocolVersion"`
			ServerInfo      any    `json:"serverInfo"`
		} `json:"result"`
		Error *rpcError `json:"error"`
	}
	_ = json.Unmarshal(frame, &msg)
	newest := string(p.cfg.Protocol)
	detail := map[string]any{"method": "initialize", "client_asked": c.asked, "protocol": p.cfg.Protocol.name()}
	if c.sent != c.asked {
		detail["server_asked"] = c.sent
	}
	var out []byte
	if msg.Result == nil {
		detail["negotiated"] = ""
		if msg.Error != nil {
			detail["refused"] = msg.Error.String()
		}
		p.record(&transcript.Record{Dir: transcript.Event, Event: "negotiated", Detail: detail})
		return nil
	}
	chose := msg.Result.ProtocolVersion
	got := chose
	if p.cfg.Protocol.capped() && chose > newest {
		// A server that ignores the version it was asked for: the client is told what a server
		// whose newest is the cap would have said.
		want := newest
		if slices.Contains(Revisions, c.sent) && c.sent <= newest {
			want = c.sent
		}
		if b, ok := jsonrpc.WithMember(frame, quote(want), "result", "protocolVersion"); ok {
			out, got = b, want
			rec.Wire, rec.Original = out, frame
			rec.Introduced = []fault.Introduced{{Path: "result.protocolVersion", Value: want, Was: chose}}
			rec.Note = "protocol " + newest + ": the server chose " + chose + ", newer than the cap"
		}
	}
	detail["server_chose"], detail["negotiated"], detail["server_info"] = chose, got, msg.Result.ServerInfo
	p.mu.Lock()
	p.revision = got
	p.mu.Unlock()
	p.record(&transcript.Record{Dir: transcript.Event, Event: "negotiated", Detail: detail})
	if p.cfg.Protocol.capped() && c.sent < modern && chose < c.sent {
		p.unavailable(fmt.Sprintf("asked for %s with initialize, the server chose %s: it offers less than protocol %s", c.sent, chose, newest),
			map[string]any{"method": "initialize", "asked": c.sent, "server_chose": chose})
	}
	return out
}

// discoverAnswer records what a server/discover settled, which the proxy only ever forwards
// under a modern cap or none.
func (p *Proxy) discoverAnswer(c *call, frame []byte) {
	var msg struct {
		Result *struct {
			SupportedVersions []string       `json:"supportedVersions"`
			Meta              map[string]any `json:"_meta"`
		} `json:"result"`
		Error *rpcError `json:"error"`
	}
	_ = json.Unmarshal(frame, &msg)
	detail := map[string]any{"method": "server/discover", "client_asked": c.asked, "protocol": p.cfg.Protocol.name(), "negotiated": ""}
	why := ""
	switch {
	case msg.Result != nil:
		detail["server_offered"] = msg.Result.SupportedVersions
		detail["server_info"] = msg.Result.Meta["io.modelcontextprotocol/serverInfo"]
		if slices.Contains(msg.Result.SupportedVersions, c.asked) {
			detail["negotiated"] = c.asked // the client's own revision is on offer: it keeps it
			p.mu.Lock()
			p.revision = c.asked
			p.mu.Unlock()
		}
		if !slices.Contains(msg.Result.SupportedVersions, modern) {
			why = fmt.Sprintf("the server's server/discover offers %v, not %s", msg.Result.SupportedVersions, modern)
		}
	case msg.Error != nil:
		detail["refused"] = msg.Error.String()
		why = "the server refused server/discover (" + msg.Error.String() + "): it offers no " + modern
	default:
		why = "the server answered server/discover with neither a result nor an error"
	}
	p.record(&transcript.Record{Dir: transcript.Event, Event: "negotiated", Detail: detail})
	if string(p.cfg.Protocol) == modern && why != "" {
		p.unavailable(why, map[string]any{"method": "server/discover", "asked": c.asked})
	}
}

// unavailable records that the server cannot offer the protocol asked for: the run measures a
// client against a server that offers less, which the runner must not count as the cap's.
func (p *Proxy) unavailable(why string, detail map[string]any) {
	detail["protocol"] = string(p.cfg.Protocol)
	p.record(&transcript.Record{Dir: transcript.Event, Event: "protocol-unavailable", Note: why, Detail: detail})
}

// name is the cap as the transcript records it: "" is as-is.
func (v Protocol) name() string {
	if !v.capped() {
		return string(AsIsProtocol)
	}
	return string(v)
}

// rpcError is a JSON-RPC error object, as far as a transcript note needs it.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *rpcError) String() string { return fmt.Sprintf("%d %s", e.Code, e.Message) }

// metaString is the revision a modern request's params._meta names, or "".
func metaString(params json.RawMessage) string {
	var p struct {
		Meta map[string]any `json:"_meta"`
	}
	_ = json.Unmarshal(params, &p)
	s, _ := p.Meta[metaVersion].(string)
	return s
}

func quote(s string) []byte {
	b, _ := json.Marshal(s)
	return b
}
