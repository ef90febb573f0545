package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/toolscore/toolscore/fault"
	"github.com/toolscore/toolscore/internal/jsonrpc"
	"github.com/toolscore/toolscore/internal/transcript"
)

// Config is what the proxy does to the traffic.
type Config struct {
	Fault     fault.Fault
	FaultName string
	// Tool is the target tool; empty targets every tool.
	Tool string
	// Probability is the chance a matching call is faulted; Nth, when above 0, faults only the
	// Nth matching call. Seed decides both draws and every value a fault makes up.
	Probability float64
	Nth         int
	Seed        uint64
	Schema      SchemaMode
	// Protocol is the newest MCP revision the server may show the client; "" is AsIsProtocol.
	Protocol Protocol
	// OutputSchema is published for the target tool when the server declares none.
	OutputSchema json.RawMessage
	// Fetch calls the target tool on a fresh server instance, for faults that want a real
	// neighbouring record; nil when there is no server command to start.
	Fetch func(ctx context.Context, tool string, args json.RawMessage) (map[string]any, error)
	// Schemas asks the server (a fresh instance on stdio, a session of the proxy's own over
	// HTTP) for every tool's outputSchema, by name, for the faults that pick from it; nil when
	// the proxy cannot ask (then the session's tools/list stands in).
	Schemas func(ctx context.Context) (map[string]map[string]any, error)
	// MaxMessage is the largest message from the server the proxy reads whole, over stdio or
	// HTTP (to apply the schema mode and the fault); a larger one is passed on as it comes,
	// unread. 0 is DefaultMaxMessage.
	MaxMessage int
}

// DefaultMaxMessage bounds what the proxy holds of one message from a server: a server
// that streams one without end costs the proxy this much, not all it sends.
const DefaultMaxMessage = 64 << 20

// DefaultMaxLine bounds what the proxy holds of one stdio line from a server: more than an HTTP
// message, as stdio has always carried a 64 MiB result whole, with its envelope; a line without
// end costs the proxy this much, not all the server sends.
const DefaultMaxLine = 128 << 20

func (p *Proxy) maxLine() int {
	if p.cfg.MaxMessage > 0 {
		return p.cfg.MaxMessage
	}
	return DefaultMaxLine
}

func (p *Proxy) maxMessage() int {
	if p.cfg.MaxMessage > 0 {
		return p.cfg.MaxMessage
	}
	return DefaultMaxMessage
}

// Proxy holds the state of one proxied session.
type Proxy struct {
	cfg Config
	tee *transcript.Tee
	// order keeps each HTTP session's GET stream ahead of the requests sent after it.
	order streamOrder

	mu      sync.Mutex
	pending map[string]*call // requests awaiting an answer, by id
	schemas map[string]map[string]any
	decide  *rand.Rand
	matched int
	// schemaMu is held while the schema the schema faults pick from is looked up: published is
	// what the server said when the proxy asked it (once), listErr why it could not be asked.
	schemaMu  sync.Mutex
	published map[string]map[string]any
	listErr   error
	// answered keeps the calls already answered, by key, where an answer can come again: an
	// SSE stream resumed with Last-Event-ID replays events the client never got.
	answered map[string]*call
	// expired holds the session ids a session-expired fault ended: every later request is 404.
	expired map[string]bool
	// revoked is what every later request gets once a fault revoked the client's credential.
	revoked *fault.HTTPEffect
	// drift is the schema drift a schema-drift fault started, nil before.
	drift *drift
	// masked names the headers, beyond the usual credentials, whose values the transcript hides.
	masked []string
	// revision is the MCP revision the last handshake gave the client, "" before one did.
	revision string
	// tasks are the tasks a task-handle fault answered calls with, which the proxy serves.
	tasks map[string]*servedTask
	// resourceOrigin is, by the proxy's origin a client reached it at, the server's origin as
	// its protected-resource metadata spelled it in the resource the proxy rewrote (see
	// resourceBack).
	resourceOrigin map[string]string
	// fronts are the authorization servers of other origins the proxy relays (see authFront),
	// by origin and the host name clients reached the proxy by.
	fronts map[string]*authFront

	// clientMu is held to write to the client, which the proxy does from both directions: the
	// server's answers, and its own to requests a server under the protocol cap would not know.
	clientMu  sync.Mutex
	clientErr error

	// refMu is held to open the listener a schema-ref fault's $ref points at (refs, once open).
	refMu sync.Mutex
	refs  *refServer

	// endMu is held to write a record, and taken whole to write the last one: the session's
	// end (the server's exit) is the transcript's last record.
	endMu sync.RWMutex
	ended bool
}

// call is a request the proxy waits to see answered.
type call struct {
	method string
	// asked and sent are the protocol revision of a handshake: as the client asked, as forwarded.
	asked, sent string
	tool        string
	args        json.RawMessage
	n           int
	fires       bool
}

// New returns a proxy for one session; tee may be nil.
func New(cfg Config, tee *transcript.Tee) *Proxy {
	if cfg.Fault == nil {
		cfg.Fault, cfg.FaultName = &fault.Clean{}, "clean"
	}
	if cfg.Schema == "" {
		cfg.Schema = Hidden
	}
	return &Proxy{
		cfg:     cfg,
		tee:     tee,
		pending: map[string]*call{},
		schemas: map[string]map[string]any{},
		// Stream 0 decides which calls fire; stream n perturbs the n-th matching call.
		decide: rand.New(rand.NewPCG(cfg.Seed, 0)),
	}
}

// record writes r to the transcript, unless the session has ended.
func (p *Proxy) record(r *transcript.Record) {
	p.endMu.RLock()
	defer p.endMu.RUnlock()
	if !p.ended {
		p.tee.Write(r)
	}
}

// end writes the session's last record, once the $ref listener (if any) and the authorization
// servers' fronts are closed.
func (p *Proxy) end(r *transcript.Record) {
	p.closeRefs()
	p.closeFronts()
	p.endMu.Lock()
	defer p.endMu.Unlock()
	p.tee.Write(r)
	p.ended = true
}

// send writes a frame to its peer and records it. The record never waits on the write, which
// may block for good (a peer that stops reading, and the proxy killed in it); a small frame is
// recorded first, a large one (whose record goes to the disk at once) while it is written, so
// the peer does not wait on the disk. Both are done before the next frame, which keeps the
// records in order.
func (p *Proxy) send(to io.Writer, frame []byte, rec *transcript.Record) error {
	if len(frame) < 64<<10 {
		p.record(rec)
		_, err := to.Write(frame)
		return err
	}
	recorded := make(chan struct{})
	go func() {
		p.record(rec)
		close(recorded)
	}()
	_, err := to.Write(frame)
	<-recorded
	return err
}

// ClientToServer relays the client's frames to the server until the client's end closes,
// noting the requests whose answers the proxy must look at. A request that a server under the
// protocol cap would not know is answered to toClient by the proxy, and not forwarded.
func (p *Proxy) ClientToServer(ctx context.Context, from io.Reader, to, toClient io.Writer) error {
	lr := newLineReader(from)
	var werr error
	for {
		frame, err := lr.next()
		if len(frame) > 0 {
			rec := &transcript.Record{Time: time.Now(), Dir: transcript.ClientToServer, Wire: frame}
			out, own, ownRec := p.noteRequest("", frame, rec)
			if own != nil {
				p.record(rec)
				p.sendClient(toClient, own, ownRec, false)
			} else if werr != nil {
				p.record(rec)
			} else if werr = p.send(to, out, rec); werr != nil {
				p.record(&transcript.Record{Dir: transcript.Event, Event: "server-stdin-closed", Note: "the server stopped reading its stdin: " + werr.Error()})
			}
			if notice, nrec, d := p.dueNotice(); notice != nil {
				p.sendClient(toClient, notice, nrec, false)
				d.announce()
			}
		}
		if err != nil {
			if err == io.EOF {
				return nil
			}
			return fmt.Errorf("reading the client: %w", err)
		}
	}
}

// noteRequest notes one client frame and returns the frame to forward, or the proxy's own
// answer to send the client instead. scope tells apart sessions that may reuse ids (an HTTP
// session id); stdio has one session, "".
func (p *Proxy) noteRequest(scope string, frame []byte, rec *transcript.Record) (forward, own []byte, ownRec *transcript.Record) {
	env, ok := jsonrpc.ParseMessage(frame)
	if !ok {
		rec.NotJSON = !json.Valid(frame)
		return frame, nil, nil
	}
	key := scopedKey(scope, env.ID)
	if key == "" || env.Method == "" {
		return frame, nil, nil // a notification or a response to the server's own request
	}
	c := &call{method: env.Method}
	if frame, own, ownRec = p.capRequest(env, frame, rec, c); own != nil {
		return nil, own, ownRec
	}
	if own, ownRec = p.taskRequest(env, rec); own != nil {
		return nil, own, ownRec
	}
	p.mu.Lock()
	p.pending[key] = c
	p.mu.Unlock()
	switch env.Method {
	case "tools/call":
		var name string
		var args json.RawMessage
		jsonrpc.Members(env.Params, func(key, v []byte) bool {
			switch string(key) {
			case `"name"`:
				name, _ = jsonrpc.Unquote(v)
			case `"arguments"`:
				args = v
			}
			return true
		})
		if p.cfg.Tool != "" && name != p.cfg.Tool {
			return frame, nil, nil
		}
		p.mu.Lock()
		p.matched++
		c := &call{method: env.Method, tool: name, args: args, n: p.matched, asked: metaString(env.Params)}
		roll := p.decide.Float64()
		spare, why := fault.Spared(p.cfg.Fault, c.n)
		switch {
		case spare:
		case p.cfg.Nth > 0 && c.n != p.cfg.Nth:
			why = fmt.Sprintf("only call %d is faulted", p.cfg.Nth)
		case p.cfg.Probability < 1 && roll >= p.cfg.Probability:
			why = fmt.Sprintf("drew %.4f, not below probability %g", roll, p.cfg.Probability)
		default:
			why, c.fires = "", true
		}
		p.pending[key] = c
		p.mu.Unlock()
		rec.Match = &transcript.Match{Tool: c.tool, N: c.n, Fires: c.fires, Why: why}
		p.startDrift(c)
	}
	return frame, nil, nil
}

// ServerToClient relays the server's frames to the client until the server's end closes,
// applying the schema mode and the fault on the way. Once the client's end is closed, the
// server's output is still read and recorded, so the server never blocks on us.
func (p *Proxy) ServerToClient(ctx context.Context, from io.Reader, to io.Writer) error {
	lr := newLineReader(from)
	for {
		frame, cut, err := lr.nextUpTo(p.maxLine())
		if cut {
			// A line past the cap is passed on as it comes: the proxy holds no more of it.
			err = p.passLine(lr, frame, err, to)
			frame = nil
		}
		if len(frame) > 0 {
			out, rec := p.answer(ctx, "", frame)
			if rec.hold != nil {
				// The answer waits for the client to list again, which it reads from this stream.
				go func() {
					p.holdAnswer(ctx, rec)
					p.sendClient(to, out, rec.Record, rec.call)
				}()
			} else {
				p.sendClient(to, out, rec.Record, rec.call)
				p.sent(rec)
			}
		}
		if err != nil {
			if err == io.EOF {
				return nil
			}
			return fmt.Errorf("reading the server: %w", err)
		}
	}
}

// sendClient writes a frame to the client and records it; once a write has failed, it only
// records. sync writes the transcript out before the frame goes (a tools/call's answer).
func (p *Proxy) sendClient(to io.Writer, frame []byte, rec *transcript.Record, sync bool) {
	p.clientMu.Lock()
	defer p.clientMu.Unlock()
	if sync {
		p.record(rec)
		p.tee.Sync()
		if p.clientErr == nil {
			if _, p.clientErr = to.Write(frame); p.clientErr != nil {
				p.record(&transcript.Record{Dir: transcript.Event, Event: "client-stdout-closed", Note: "the client stopped reading: " + p.clientErr.Error()})
			}
		}
		return
	}
	if p.clientErr != nil {
		p.record(rec)
	} else if p.clientErr = p.send(to, frame, rec); p.clientErr != nil {
		p.record(&transcript.Record{Dir: transcript.Event, Event: "client-stdout-closed", Note: "the client stopped reading: " + p.clientErr.Error()})
	}
}

// errServerClosed is why nothing more goes to the client once the server closed its stdout.
var errServerClosed = errors.New("the server closed its stdout")

// closeClient closes the client's end (when it can be closed) as the server closed its own
// stdout, so the client sees the EOF it would see without the proxy; running says the server
// had not exited, which the transcript notes with the requests left waiting.
func (p *Proxy) closeClient(to io.Writer, running bool) {
	p.clientMu.Lock()
	defer p.clientMu.Unlock()
	if running {
		note := "the server closed its stdout but is still running; the proxy closed the client's end in turn"
		if w := p.waiting(); len(w) > 0 {
			note += ", with " + strings.Join(w, ", ") + " unanswered"
		}
		p.record(&transcript.Record{Dir: transcript.Event, Event: "server-stdout-closed", Note: note})
	}
	if c, ok := to.(io.Closer); ok && p.clientErr == nil {
		_ = c.Close()
	}
	if p.clientErr == nil {
		p.clientErr = errServerClosed
	}
}

// waiting names the requests the server has not answered yet, by method and id, in id order.
func (p *Proxy) waiting() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	keys := make([]string, 0, len(p.pending))
	for k := range p.pending {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for i, k := range keys {
		keys[i] = p.pending[k].method + " (id " + k + ")"
	}
	return keys
}

// answered is the record of one server frame, with the schema drift it waits on (hold) or whose
// wait its delivery ends (relist): the proxy's own, never written to the transcript.
type answered struct {
	*transcript.Record
	hold, relist *drift
	// call says it answers a tools/call: its record goes to the file before the client has it.
	call bool
}

// answer makes the record of one server frame and returns what goes to the client in its place;
// scope is the session the request was noted in.
func (p *Proxy) answer(ctx context.Context, scope string, frame []byte) ([]byte, *answered) {
	rec := &answered{Record: &transcript.Record{Time: time.Now(), Dir: transcript.ServerToClient, Wire: frame}}
	env, ok := jsonrpc.ParseMessage(frame)
	if !ok {
		rec.NotJSON = !json.Valid(frame)
		return frame, rec
	}
	key := scopedKey(scope, env.ID)
	if key == "" || env.Method != "" {
		return frame, rec // a notification or the server's own request: sampling, roots, ping...
	}
	p.mu.Lock()
	c := p.pending[key]
	delete(p.pending, key)
	if c == nil {
		c = p.answered[key]
	} else if p.answered != nil {
		p.answered[key] = c
	}
	p.mu.Unlock()
	if c == nil {
		return frame, rec
	}
	switch c.method {
	case "initialize":
		if out := p.initializeAnswer(c, frame, rec.Record); out != nil {
			return out, rec
		}
	case "server/discover":
		p.discoverAnswer(c, frame)
	case "tools/list":
		schemas, out, err := p.rewriteToolsList(ctx, frame, rec.Record)
		p.mu.Lock()
		for name, s := range schemas {
			p.schemas[name] = s
		}
		p.mu.Unlock()
		if err != nil {
			rec.Note = "tools/list left as sent: " + err.Error()
		}
		rec.relist = p.activeDrift()
		if out != nil {
			rec.Wire, rec.Original = out, frame
			return out, rec
		}
	case "tools/call":
		rec.call = true
		if _, clean := p.cfg.Fault.(*fault.Clean); c.fires && clean {
			rec.Fault = p.cfg.FaultName // the server's bytes go as they are: nothing to decode
		} else if c.fires {
			p.mu.Lock()
			if d := p.drift; d != nil && d.tool == c.tool {
				rec.hold = d
			}
			p.mu.Unlock()
			if out := p.applyFault(ctx, c, env.ID, frame, rec.Record); out != nil {
				return out, rec
			}
		}
	}
	return frame, rec
}

// applyFault runs the fault on one answer; it returns the frame to send, or nil to send the
// server's own bytes.
func (p *Proxy) applyFault(ctx context.Context, c *call, id json.RawMessage, frame []byte, rec *transcript.Record) []byte {
	rec.Fault = p.cfg.FaultName
	var msg struct {
		Result json.RawMessage `json:"result"`
	}
	_ = json.Unmarshal(frame, &msg)
	// Bytes that are not UTF-8 are kept wherever the fault leaves them (see keepbytes.go).
	keep := !utf8.Valid(msg.Result)
	var result map[string]any
	var derr error
	if keep {
		result, derr = decodeKeeping(msg.Result)
	} else {
		dec := json.NewDecoder(bytes.NewReader(msg.Result))
		dec.UseNumber()
		derr = dec.Decode(&result)
	}
	if len(msg.Result) == 0 || derr != nil || result == nil {
		rec.Note = "the server answered without a result object; the fault had nothing to change"
		return nil
	}
	fc := &fault.Call{
		Tool: c.tool, Arguments: c.args, Result: result,
		Rand:     rand.New(rand.NewPCG(p.cfg.Seed, uint64(c.n))),
		Protocol: c.asked,
	}
	if fc.Protocol == "" {
		p.mu.Lock()
		fc.Protocol = p.revision
		p.mu.Unlock()
	}
	if fault.UsesSchema(p.cfg.Fault) {
		fc.Schema, fc.SchemaFrom = p.faultSchema(ctx, c.tool)
		if why := schemaTooLarge(fc.Schema); why != "" {
			rec.Note = fmt.Sprintf("the fault could not be applied, the server's answer was sent: the outputSchema of %s it picks from (%s) is too large for the proxy to work on: %s", c.tool, fc.SchemaFrom, why)
			return nil
		}
	}
	if p.cfg.Fetch != nil {
		fc.Fetch = func(ctx context.Context, args json.RawMessage) (map[string]any, error) {
			return p.cfg.Fetch(ctx, c.tool, args)
		}
	}
	eff, err := p.cfg.Fault.Apply(ctx, fc)
	if err != nil {
		rec.Note = "the fault could not be applied, the server's answer was sent: " + err.Error()
		return nil
	}
	rec.Introduced, rec.Note = eff.Introduced, eff.Note
	if eff.Delay > 0 {
		t := time.NewTimer(eff.Delay)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
		}
	}
	var out []byte
	switch {
	case eff.RPCError != nil:
		out, err = marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": eff.RPCError})
	case eff.Result != nil && keep:
		out, err = encodeKeeping(map[string]any{"jsonrpc": "2.0", "id": id, "result": keepEnvelope(result, eff)})
	case eff.Result != nil:
		out, err = marshal(map[string]any{"jsonrpc": "2.0", "id": id, "result": keepEnvelope(result, eff)})
	default:
		return nil
	}
	if err != nil {
		rec.Note = "the faulted answer could not be encoded, the server's answer was sent: " + err.Error()
		return nil
	}
	rec.Wire, rec.Original = out, frame
	if eff.Task != nil {
		p.serveTask(eff.Task, msg.Result, rec)
	}
	return out
}

// scopedKey is a request's key in pending: its id, and the session it belongs to if any.
func scopedKey(scope string, id json.RawMessage) string {
	key := idKey(id)
	if key == "" || scope == "" {
		return key
	}
	return key + " in session " + scope
}

// Unanswered lists the ids of requests the server never answered, for the exit record.
func (p *Proxy) Unanswered() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	ids := make([]string, 0, len(p.pending))
	for id := range p.pending {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// keepEnvelope gives a fault's new result the members that belong to the protocol rather than to
// the tool (a 2026-07-28 result's resultType and _meta), where the fault made a result without
// them: a fault changes what the tool said, never what the server is, unless it says so (a
// member it lists as introduced, as result-type removes resultType, is left as it made it).
func keepEnvelope(server map[string]any, eff *fault.Effect) map[string]any {
	faulted := eff.Result
	var out map[string]any
	for _, k := range []string{"resultType", "_meta"} {
		v, had := server[k]
		if _, has := faulted[k]; !had || has || slices.ContainsFunc(eff.Introduced, func(in fault.Introduced) bool { return in.Path == k }) {
			continue
		}
		if out == nil {
			out = make(map[string]any, len(faulted)+2)
			for fk, fv := range faulted {
				out[fk] = fv
			}
		}
		out[k] = v
	}
	if out == nil {
		return faulted
	}
	return out
}
