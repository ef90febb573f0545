package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/toolscore/toolscore/fault"
	"github.com/toolscore/toolscore/internal/jsonrpc"
	"github.com/toolscore/toolscore/internal/jsonstream"
	"github.com/toolscore/toolscore/internal/transcript"
)

// Upstream is the streamable HTTP endpoint the proxy relays to.
type Upstream struct {
	URL *url.URL
	// Header is added to every request sent upstream (a credential from the proxy's
	// environment); its values are masked in the transcript.
	Header http.Header
}

// exchange is one HTTP request the proxy relays, as the response handling needs it.
type exchange struct {
	method, path string
	// scope is the request's session id: the requests it carries are noted in it.
	scope string
	// host is the Host header the request carries upstream (see upstreamHost).
	host string
	// credential says the operator's headers go with it (see carriesCredential).
	credential bool
	// body is the POST's body as it goes upstream, sent again where the endpoint redirects.
	body []byte
	// other says the request is not to the MCP endpoint: relayed, never parsed.
	other bool
	// opened says the answer's headers to a GET came back (see streamOrder); nil on others.
	opened func()
	// asked says the POST is an initialize whose client can be sent server requests: the
	// session its answer names is noted so (see streamOrder).
	asked bool
	// swap puts the proxy's origin in place of the server's in the answer; nil when they are one.
	swap *originSwap
	// local is the address the client reached the proxy at; empty on an authorization server's
	// front (see authFront).
	local string
	// front is the authorization server's front the request came to; nil on the proxy's own.
	front *authFront
	// call is the id of the request the POST carries, as idKey makes it.
	call string
	// fault is what a transport fault does to this exchange; nil for most.
	fault *fault.HTTPEffect
	// notice is a message of the proxy's own that goes to the client before the answer (a
	// schema drift's notification), with its record and the drift it announces.
	notice    []byte
	noticeRec *transcript.Record
	drift     *drift
}

type exchangeKey struct{}

// Handler relays streamable HTTP to up, applying the schema mode and the fault to the messages
// that travel in JSON bodies and SSE events of its MCP endpoint (up's path), and recording every
// message. Everything else (status, headers, the GET stream, DELETE, event ids, and every other
// path, such as OAuth's) passes as the server sent it, and reaches the server as the client sent
// it: Host, path, query and headers but the hop-by-hop ones.
func (p *Proxy) Handler(up Upstream) http.Handler {
	endpoint := up.URL.Path
	if endpoint == "" {
		endpoint = "/"
	}
	// Without compression asked for by the proxy, the server sees the client's Accept-Encoding
	// and the client gets the server's bytes.
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.DisableCompression = true
	follower := &endpointFollower{rt: transport, p: p, up: up.URL}
	rp := &httputil.ReverseProxy{
		Transport: follower,
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.Out.URL.Scheme, pr.Out.URL.Host = up.URL.Scheme, up.URL.Host
			ex, ok := pr.In.Context().Value(exchangeKey{}).(*exchange)
			if ok && ex.host != "" {
				pr.Out.Host = ex.host
			}
			// The reverse proxy drops these before Rewrite; they are the client's to send.
			for _, name := range []string{"Forwarded", "X-Forwarded-For", "X-Forwarded-Host", "X-Forwarded-Proto"} {
				if vs, ok := pr.In.Header[name]; ok {
					pr.Out.Header[name] = vs
				}
			}
			if pr.In.URL.Path == endpoint {
				if moved := follower.upstreamPath(); moved != "" {
					pr.Out.URL.Path, pr.Out.URL.RawPath = moved, ""
				}
				if pr.Out.URL.RawQuery == "" {
					pr.Out.URL.RawQuery = up.URL.RawQuery
				}
				// The proxy must read the messages: a compressed answer would hide them.
				pr.Out.Header.Del("Accept-Encoding")
			}
			if ok && ex.credential {
				for name, vs := range up.Header {
					pr.Out.Header[name] = vs
				}
			}
		},
		ModifyResponse: p.modifyResponse,
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			ex, _ := r.Context().Value(exchangeKey{}).(*exchange)
			facts := &transcript.HTTPFacts{Method: r.Method, Path: r.URL.Path, Status: http.StatusBadGateway}
			if ex != nil {
				facts.Method, facts.Path = ex.method, ex.path
			}
			if r.Context().Err() != nil {
				p.record(&transcript.Record{Dir: transcript.Event, Event: "client-left", Note: "the client left before its answer: " + err.Error(), HTTP: facts})
				return
			}
			p.record(&transcript.Record{Dir: transcript.Event, Event: "upstream-error", Note: err.Error(), HTTP: facts})
			w.WriteHeader(http.StatusBadGateway)
		},
	}
	origins := upstreamOrigins(up.URL)
	masked := make([]string, 0, len(up.Header))
	for name := range up.Header {
		masked = append(masked, name)
	}
	p.mu.Lock()
	p.masked, p.answered, p.expired = masked, map[string]*call{}, map[string]bool{}
	p.mu.Unlock()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
		ex := &exchange{method: r.Method, path: r.URL.Path, scope: r.Header.Get("Mcp-Session-Id"), host: upstreamHost(up.URL, r.Host), swap: newOriginSwap(origins, r.Host)}
		facts := &transcript.HTTPFacts{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Host: r.Host, Header: p.maskHeader(r.Header)}
		if ex.host != r.Host {
			facts.UpstreamHost = ex.host
		}
		ex.local = addrString(local)
		ex.credential = carriesCredential(up.URL, ex.local, r.Host, ex.host)
		if !ex.credential && len(up.Header) > 0 {
			p.record(&transcript.Record{Time: time.Now(), Dir: transcript.Event, Event: "credential-withheld",
				Note: "the client's Host names neither the proxy nor the upstream the operator named: the request goes with the client's Host but without the operator's headers (" + strings.Join(p.masked, ", ") + ")",
				HTTP: &transcript.HTTPFacts{Method: r.Method, Path: r.URL.Path, Host: r.Host}})
		}
		if r.URL.Path != endpoint {
			// Not MCP (OAuth's documents and endpoints, anything): relayed to the same path,
			// recorded without its body (it may carry a credential), never faulted; only a
			// revoked credential (http-401) still answers it.
			ex.other, ex.scope = true, ""
			p.record(&transcript.Record{Time: time.Now(), Dir: transcript.Event, Event: "http-request", HTTP: facts})
			if looksMCP(r) {
				p.record(&transcript.Record{Time: time.Now(), Dir: transcript.Event, Event: transcript.OffPath,
					Note: fmt.Sprintf("the client sent MCP (%s with %s) to %s, not to the MCP endpoint %s the proxy records and faults: relayed unrecorded and unfaulted, so the run measured neither the client nor the server", r.Method, mcpSign(r), r.URL.Path, endpoint),
					HTTP: &transcript.HTTPFacts{Method: r.Method, Path: r.URL.Path}})
			}
			if ex.fault, _ = p.exchangeFault(ex, nil); ex.fault != nil && ex.fault.Status != 0 {
				p.answerStatus(w, r, ex, false)
				return
			}
			p.resourceBack(r, ex)
			rp.ServeHTTP(&headerFlusher{ResponseWriter: w}, r.WithContext(context.WithValue(r.Context(), exchangeKey{}, ex)))
			return
		}
		var body []byte
		var req *transcript.Record
		if r.Method == http.MethodPost {
			var err error
			// One message per POST, read up to the cap that bounds the server's: a client that
			// sends one without end costs the proxy this much, not all it sends.
			body, err = io.ReadAll(io.LimitReader(r.Body, int64(p.maxMessage())+1))
			r.Body.Close()
			if err != nil {
				p.record(&transcript.Record{Dir: transcript.Event, Event: "client-closed", Note: "reading the request: " + err.Error(), HTTP: facts})
				return
			}
			if len(body) > p.maxMessage() {
				p.refuseRequest(w, facts, body)
				return
			}
			rec := &transcript.Record{Time: time.Now(), Dir: transcript.ClientToServer, Wire: body, HTTP: facts}
			out, own, ownRec := p.noteRequest(ex.scope, body, rec)
			p.record(rec)
			req = rec
			if own != nil {
				own = bytes.TrimSuffix(own, []byte("\n"))
				ownRec.Wire = own
				ownRec.HTTP = &transcript.HTTPFacts{Method: r.Method, Path: r.URL.Path, Status: http.StatusOK}
				p.record(ownRec)
				w.Header().Set("Content-Type", "application/json")
				w.Header().Set("Content-Length", strconv.Itoa(len(own)))
				_, _ = w.Write(own)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(out))
			r.ContentLength = int64(len(out))
			ex.body = out
		} else {
			p.record(&transcript.Record{Time: time.Now(), Dir: transcript.Event, Event: "http-request", HTTP: facts})
		}
		var fired bool
		ex.fault, fired = p.exchangeFault(ex, req)
		if ex.fault != nil && ex.fault.Status != 0 {
			p.withdraw(ex.scope, body)
			p.answerStatus(w, r, ex, fired)
			return
		}
		if env, ok := jsonrpc.ParseMessage(body); ok {
			ex.call = idKey(env.ID)
			switch {
			case env.Method == "notifications/initialized":
				p.order.initialized(ex.scope)
			case env.Method == "initialize":
				ex.asked = canBeAsked(env.Params)
			case env.Method != "" && env.ID != nil:
				p.holdForStream(r.Context(), ex)
			}
		}
		if r.Method == http.MethodGet {
			ex.opened = p.order.getSent(ex.scope)
			defer ex.opened()
		}
		if req != nil && req.Match != nil && req.Match.Fires {
			ex.notice, ex.noticeRec, ex.drift = p.dueNotice()
		}
		r = r.WithContext(context.WithValue(r.Context(), exchangeKey{}, ex))
		rp.ServeHTTP(&headerFlusher{ResponseWriter: w}, r)
	})
}

// refuseRequest answers a POST whose body is over the proxy's cap (head is what was read of it)
// with 413 and a JSON-RPC error for the request's id, if its first bytes name one: the server
// never sees it. The transcript keeps its first bytes.
func (p *Proxy) refuseRequest(w http.ResponseWriter, facts *transcript.HTTPFacts, head []byte) {
	id := json.RawMessage("null")
	jsonrpc.Members(head, func(key, v []byte) bool { // the head is cut short: the members before the cut
		if string(key) == `"id"` && (v[0] == '"' || v[0] == '-' || v[0] >= '0' && v[0] <= '9') && json.Valid(v) {
			id = v
		}
		return true
	})
	why := fmt.Sprintf("the request is over %d bytes, the most the toolscore proxy reads of one message; it was not sent to the server", p.maxMessage())
	msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": -32600, "message": why}})
	keep := jsonstream.NewKeeper(jsonstream.PrefixLen)
	keep.Write(head)
	p.record(&transcript.Record{Time: time.Now(), Dir: transcript.Event, Event: "request-refused",
		Note:   why + "; the client got 413 and a JSON-RPC error (the transcript keeps the request's first bytes)",
		Detail: map[string]any{"prefix": keep.Head(jsonstream.PrefixLen), "read_bytes": len(head)},
		HTTP:   &transcript.HTTPFacts{Method: facts.Method, Path: facts.Path, Status: http.StatusRequestEntityTooLarge},
	})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(msg)))
	w.Header().Set("Connection", "close") // the rest of the body is not read
	w.WriteHeader(http.StatusRequestEntityTooLarge)
	_, _ = w.Write(msg)
}

// modifyResponse records the answer and puts the proxy's rewrite of its messages in its place.
func (p *Proxy) modifyResponse(resp *http.Response) error {
	ctx := resp.Request.Context()
	ex, _ := ctx.Value(exchangeKey{}).(*exchange)
	if ex == nil {
		ex = &exchange{method: resp.Request.Method, path: resp.Request.URL.Path}
	}
	facts := &transcript.HTTPFacts{Method: ex.method, Path: ex.path, Status: resp.StatusCode, Header: p.maskHeader(resp.Header)}
	if ex.opened != nil {
		ex.opened()
	}
	if ex.asked {
		p.order.asked(resp.Header.Get("Mcp-Session-Id"))
	}
	if ex.fault != nil && ex.fault.HeaderDelay > 0 {
		t := time.NewTimer(ex.fault.HeaderDelay)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			resp.Body.Close()
			p.record(&transcript.Record{Dir: transcript.Event, Event: "http-fault", Fault: p.cfg.FaultName, Note: "the client left while the answer's headers were held back", HTTP: facts})
			return ctx.Err()
		}
	}
	p.swapOrigins(resp, ex)
	if loc := resp.Header.Get("Location"); !ex.other && loc != "" && resp.StatusCode >= 300 && resp.StatusCode < 400 {
		// A redirect of the endpoint that endpointFollower did not follow: a client that does
		// leaves the recorded path.
		p.record(&transcript.Record{Time: time.Now(), Dir: transcript.Event, Event: transcript.OffPath,
			Note: fmt.Sprintf("the server redirected its MCP endpoint %s to %s (%d), which the proxy does not follow (another origin, or a POST's %d): the exchange leaves the path the proxy records and faults, so the run measured neither the client nor the server", ex.path, loc, resp.StatusCode, resp.StatusCode),
			HTTP: &transcript.HTTPFacts{Method: ex.method, Path: ex.path, Status: resp.StatusCode}})
	}
	if ex.other {
		p.record(&transcript.Record{Dir: transcript.Event, Event: "http-response", HTTP: facts})
		return nil
	}
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	encoded := resp.Header.Get("Content-Encoding") != "" && !strings.EqualFold(resp.Header.Get("Content-Encoding"), "identity")
	switch {
	case encoded:
		p.record(&transcript.Record{Dir: transcript.Event, Event: "http-response", HTTP: facts, Note: "an encoded body the proxy cannot read, passed as it is"})
	case ct == "application/json" && resp.ContentLength < 0 && ex.notice == nil:
		// Of unknown length, it may stay open and carry a message at a time: each is passed on
		// as soon as it is whole, read up to the cap.
		resp.Body = newJSONRelay(ctx, p, ex, facts, resp.Body)
	case ct == "application/json":
		// Read up to the cap: a larger body is passed on as it comes.
		body, err := io.ReadAll(io.LimitReader(resp.Body, int64(p.maxMessage())+1))
		if err != nil {
			resp.Body.Close()
			p.record(&transcript.Record{Dir: transcript.Event, Event: "http-response", HTTP: facts, Note: "reading the server's answer: " + err.Error()})
			return fmt.Errorf("reading the server's answer: %w", err)
		}
		if len(body) > p.maxMessage() {
			resp.Body = p.unreadJSON(ex, facts, body, resp.Body)
			return nil
		}
		resp.Body.Close()
		if ex.notice != nil {
			p.withNotice(ctx, ex, facts, resp, body)
			return nil
		}
		return p.jsonAnswer(ctx, ex, facts, resp, body)
	case ct == "text/event-stream":
		// A rewritten event changes the body's length, which is not known before it streams.
		resp.Header.Del("Content-Length")
		resp.ContentLength = -1
		resp.Body = &sseRelay{ctx: ctx, p: p, ex: ex, facts: facts, body: resp.Body, lr: newLineReader(resp.Body)}
	default:
		p.record(&transcript.Record{Dir: transcript.Event, Event: "http-response", HTTP: facts})
	}
	return nil
}

// withNotice puts the proxy's own message before the answer in body: the one body becomes an
// SSE stream of both, which every client accepts on a POST.
func (p *Proxy) withNotice(ctx context.Context, ex *exchange, facts *transcript.HTTPFacts, resp *http.Response, body []byte) {
	var flat bytes.Buffer
	if json.Compact(&flat, body) != nil {
		flat.Reset()
		flat.Write(bytes.ReplaceAll(bytes.TrimSpace(body), []byte("\n"), []byte(" ")))
	}
	stream := bytes.NewReader([]byte("event: message\ndata: " + flat.String() + "\n\n"))
	resp.Header.Set("Content-Type", "text/event-stream")
	resp.Header.Del("Content-Length")
	resp.ContentLength = -1
	facts.Header = p.maskHeader(resp.Header)
	resp.Body = &sseRelay{ctx: ctx, p: p, ex: ex, facts: facts, body: io.NopCloser(stream), lr: newLineReader(stream)}
}

// jsonAnswer records the JSON body of an answer and puts the proxy's rewrite in its place.
func (p *Proxy) jsonAnswer(ctx context.Context, ex *exchange, facts *transcript.HTTPFacts, resp *http.Response, body []byte) error {
	if len(bytes.TrimSpace(body)) == 0 {
		p.record(&transcript.Record{Dir: transcript.Event, Event: "http-response", HTTP: facts})
		resp.Body = io.NopCloser(bytes.NewReader(body))
		return nil
	}
	out, rec := p.answer(ctx, ex.scope, body)
	out = sameEnding(body, out, rec.Record)
	rec.HTTP = facts
	if ex.fault != nil && ex.fault.Cut {
		rec.Note = strings.TrimPrefix(rec.Note+"; the server answered in a JSON body: there is no stream to cut, sent as it is", "; ")
	}
	p.holdAnswer(ctx, rec)
	p.record(rec.Record)
	if ctx.Err() != nil {
		return ctx.Err() // the client left while a latency held the answer
	}
	resp.Body = &sentBody{Reader: bytes.NewReader(out), sent: func() { p.sent(rec) }}
	resp.ContentLength = int64(len(out))
	resp.Header.Set("Content-Length", strconv.Itoa(len(out)))
	return nil
}

// holdForStream holds a request until the session's GET stream has reached the server (see
// streamOrder), and records the hold, and a bound that expired.
func (p *Proxy) holdForStream(ctx context.Context, ex *exchange) {
	h := p.order.wait(ctx, ex.scope)
	if h.held < time.Millisecond && !h.expired {
		return
	}
	held := h.held.Round(time.Millisecond)
	var note string
	switch {
	case h.expired && h.got:
		note = fmt.Sprintf("the proxy held this request %v, its bound, for the GET stream the client opened before it, whose answer's headers the server had not sent: it went on, and a server request sent on that stream may be lost", held)
	case h.expired:
		note = fmt.Sprintf("the proxy held this request %v, its bound, for the GET stream a client that can be asked (sampling, elicitation or roots) opens after notifications/initialized; none came, and no later request of the session waits for one", held)
	case h.got:
		note = fmt.Sprintf("the proxy held this request %v until the server had the session's GET stream: a server request sent on that stream before it is there would be lost", held)
	default:
		note = fmt.Sprintf("the proxy held this request %v for the GET stream a client that can be asked opens after notifications/initialized; none came", held)
	}
	p.record(&transcript.Record{Time: time.Now(), Dir: transcript.Event, Event: "held-for-stream", Note: note, HTTP: &transcript.HTTPFacts{Method: ex.method, Path: ex.path}})
}

// exchangeFault is what the transport fault does to this exchange: nil unless the request is
// the target call and the fault fires (fired), or its session was expired earlier.
func (p *Proxy) exchangeFault(ex *exchange, req *transcript.Record) (eff *fault.HTTPEffect, fired bool) {
	p.mu.Lock()
	expired := ex.scope != "" && p.expired[ex.scope]
	revoked := p.revoked
	p.mu.Unlock()
	if revoked != nil {
		return &fault.HTTPEffect{Status: revoked.Status, Header: revoked.Header}, false
	}
	if expired {
		return &fault.HTTPEffect{Status: http.StatusNotFound}, false
	}
	hf, ok := p.cfg.Fault.(fault.HTTPFault)
	if !ok || req == nil || req.Match == nil || !req.Match.Fires {
		return nil, false
	}
	eff = hf.HTTP()
	if eff.Revoke {
		p.mu.Lock()
		p.revoked = eff
		p.mu.Unlock()
	}
	if eff.ExpireSession {
		if ex.scope == "" {
			p.record(&transcript.Record{Dir: transcript.Event, Event: "http-fault", Fault: p.cfg.FaultName, Note: "the request carries no session id: there is no session to expire, forwarded as it is"})
			return nil, false
		}
		p.mu.Lock()
		p.expired[ex.scope] = true
		p.mu.Unlock()
	}
	return eff, true
}

// withdraw forgets the request a POST carried, which the proxy answers itself: the server
// never sees it, so it is not left unanswered.
func (p *Proxy) withdraw(scope string, body []byte) {
	if env, ok := jsonrpc.ParseMessage(body); ok {
		p.mu.Lock()
		delete(p.pending, scopedKey(scope, env.ID))
		p.mu.Unlock()
	}
}

// answerStatus answers the exchange with the transport fault's status instead of forwarding it;
// fired says it is the faulted call's own exchange (not a later one in an expired session).
func (p *Proxy) answerStatus(w http.ResponseWriter, r *http.Request, ex *exchange, fired bool) {
	origin := "http://" + r.Host
	for name, vs := range ex.fault.Header {
		out := make([]string, len(vs))
		for i, v := range vs {
			out[i] = strings.ReplaceAll(v, fault.Origin, origin)
		}
		w.Header()[name] = out
	}
	body, ctype := []byte(http.StatusText(ex.fault.Status)+"\n"), "text/plain; charset=utf-8"
	if ex.fault.Body != nil {
		body, ctype = ex.fault.Body, ex.fault.ContentType
	}
	if env, ok := jsonrpc.ParseMessage(ex.body); ok && ex.fault.RequestID && env.ID != nil {
		if b, ok := jsonrpc.WithID(body, env.ID); ok {
			body = b
		}
	}
	w.Header().Set("Content-Type", ctype)
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	rec := &transcript.Record{Time: time.Now(), Dir: transcript.Event, Event: "http-fault", HTTP: &transcript.HTTPFacts{Method: ex.method, Path: ex.path, Status: ex.fault.Status, Header: p.maskHeader(w.Header())}}
	if fired {
		rec.Fault, rec.Note = p.cfg.FaultName, "the proxy answered the call itself; the server never saw it"
	} else if ex.fault.Status == http.StatusNotFound {
		rec.Note = "the session expired earlier in this run (" + p.cfg.FaultName + ")"
	} else {
		rec.Note = "the client's credential was revoked earlier in this run (" + p.cfg.FaultName + ")"
	}
	p.record(rec)
	w.WriteHeader(ex.fault.Status)
	_, _ = w.Write(body)
}

// sentBody is an answer's body that says when the client has been given all of it: the reverse
// proxy reads to the end only once it wrote everything before.
type sentBody struct {
	io.Reader
	sent func()
}

func (b *sentBody) Read(p []byte) (int, error) {
	n, err := b.Reader.Read(p)
	if err == io.EOF && b.sent != nil {
		b.sent()
		b.sent = nil
	}
	return n, err
}

func (b *sentBody) Close() error { return nil }

// sameEnding drops the newline the proxy's stdio encoding ends a rewritten message with, where
// the server's message had none: over HTTP the message is the whole body or event data.
func sameEnding(server, out []byte, rec *transcript.Record) []byte {
	if bytes.HasSuffix(out, []byte("\n")) && !bytes.HasSuffix(server, []byte("\n")) {
		out = out[:len(out)-1]
		if rec.Original != nil {
			rec.Wire = out
		}
	}
	return out
}

// upstreamHost is the Host header a request carries upstream: the client's, as it sent it, to
// a loopback server (whose DNS-rebinding check must see it); to a remote one, the client's only
// where it names that server, else the server's own: TLS and virtual hosting expect it there,
// and a client under test must not pick which virtual host behind a shared front gets the
// operator's credential.
func upstreamHost(up *url.URL, host string) string {
	if loopbackName(up.Hostname()) || namesUpstream(up, host) {
		return host
	}
	return up.Host
}

// namesUpstream says host (a Host header) is up's own host and port, in any of its spellings.
func namesUpstream(up *url.URL, host string) bool {
	return slices.ContainsFunc(upstreamOrigins(up), func(o string) bool { return strings.EqualFold(o, up.Scheme+"://"+host) })
}

// carriesCredential says the operator's --header values go with a request that reached the
// proxy at local with the client's Host host and goes upstream with Host sent: only to the
// upstream the operator named, which a Host naming the proxy or the upstream itself means; a
// loopback server is sent any other Host the client chose (above), without them.
func carriesCredential(up *url.URL, local, host, sent string) bool {
	return namesProxy(local, host) || namesUpstream(up, sent)
}

// namesProxy says host is the proxy at local: the same port (80 when none), and a loopback
// name or local's own address.
func namesProxy(local, host string) bool {
	lhost, lport, err := net.SplitHostPort(local)
	if err != nil {
		return false
	}
	name, port, err := net.SplitHostPort(host)
	if err != nil {
		name, port = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"), "80"
	}
	return port == lport && (loopbackName(name) || name == lhost)
}

func loopbackName(name string) bool {
	if strings.EqualFold(name, "localhost") {
		return true
	}
	ip := net.ParseIP(name)
	return ip != nil && ip.IsLoopback()
}

func addrString(a net.Addr) string {
	if a == nil {
		return ""
	}
	return a.String()
}

// maskHeader copies h for the transcript with every credential's value masked.
func (p *Proxy) maskHeader(h http.Header) map[string][]string {
	out := make(map[string][]string, len(h))
	for name, vs := range h {
		if secretHeader(name) || containsFold(p.masked, name) {
			vs = []string{"[masked]"}
		}
		out[name] = vs
	}
	return out
}

func secretHeader(name string) bool {
	switch strings.ToLower(name) {
	case "authorization", "proxy-authorization", "cookie", "set-cookie":
		return true
	}
	return false
}

func containsFold(names []string, name string) bool {
	for _, n := range names {
		if strings.EqualFold(n, name) {
			return true
		}
	}
	return false
}

// headerFlusher sends an SSE answer's headers at once, as the server did: the client may wait
// on them long before the first event.
type headerFlusher struct {
	http.ResponseWriter
}

func (w *headerFlusher) WriteHeader(code int) {
	w.ResponseWriter.WriteHeader(code)
	if ct, _, _ := mime.ParseMediaType(w.Header().Get("Content-Type")); ct == "text/event-stream" {
		_ = http.NewResponseController(w.ResponseWriter).Flush()
	}
}

func (w *headerFlusher) Unwrap() http.ResponseWriter { return w.ResponseWriter }
