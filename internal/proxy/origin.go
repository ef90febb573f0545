package proxy

import (
	"bytes"
	"encoding/json"
	"io"
	"maps"
	"mime"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/toolscore/toolscore/internal/transcript"
)

// maxSwapBody bounds the JSON document whose URLs the proxy rewrites (OAuth metadata is small);
// a larger one passes as it is.
const maxSwapBody = 1 << 20

// originSwap puts the proxy's origin in place of the server's in what a client gets, so a
// client that reached the server through the proxy on another address sees one origin in
// OAuth's challenge and metadata and can match the resource against the URL it connected to.
type originSwap struct {
	from []string // the server's origin in each spelling it may use
	to   string   // the proxy's origin, as the client reached it
}

// newOriginSwap is nil when the client reached the proxy at the server's own origin.
func newOriginSwap(from []string, host string) *originSwap {
	to := "http://" + host
	for _, f := range from {
		if strings.EqualFold(f, to) {
			return nil
		}
	}
	return &originSwap{from: from, to: to}
}

// upstreamOrigins is the server's origin in each spelling: with and without its default port,
// and for a loopback server under each loopback name.
func upstreamOrigins(u *url.URL) []string {
	def := "80"
	if strings.EqualFold(u.Scheme, "https") {
		def = "443"
	}
	hosts := []string{u.Hostname()}
	if loopbackName(u.Hostname()) {
		hosts = []string{"localhost", "127.0.0.1", "::1"}
	}
	var out []string
	for _, h := range hosts {
		if strings.Contains(h, ":") {
			h = "[" + h + "]"
		}
		if p := u.Port(); p != "" && p != def {
			out = append(out, u.Scheme+"://"+h+":"+p)
			continue
		}
		out = append(out, u.Scheme+"://"+h, u.Scheme+"://"+h+":"+def)
	}
	// The longest first: a spelling with its port is not taken for one without.
	sort.SliceStable(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return out
}

// swapOrigin replaces each of from that starts a URL in s (plain, or with JSON's escaped
// slashes) with to, and says how many it replaced.
func swapOrigin(s string, from []string, to string) (string, int) {
	type pair struct{ from, to string }
	pairs := make([]pair, 0, 2*len(from))
	for _, f := range from {
		pairs = append(pairs, pair{f, to}, pair{strings.ReplaceAll(f, "/", `\/`), strings.ReplaceAll(to, "/", `\/`)})
	}
	var b strings.Builder
	n := 0
	for i := 0; i < len(s); {
		swapped := false
		if i == 0 || !schemeChar(s[i-1]) {
			for _, p := range pairs {
				end := i + len(p.from)
				if end <= len(s) && strings.EqualFold(s[i:end], p.from) && (end == len(s) || strings.IndexByte("/?#\"', ;\\>", s[end]) >= 0) {
					b.WriteString(p.to)
					i, n, swapped = end, n+1, true
					break
				}
			}
		}
		if !swapped {
			b.WriteByte(s[i])
			i++
		}
	}
	if n == 0 {
		return s, 0
	}
	return b.String(), n
}

func schemeChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'
}

// swapOrigins rewrites the server's origin in the answer's URL-bearing headers and, off the MCP
// endpoint, in a JSON body, and records what it rewrote as the proxy's own doing.
func (p *Proxy) swapOrigins(resp *http.Response, ex *exchange) {
	if ex.swap == nil {
		return
	}
	var where, swapped []string
	for _, name := range []string{"Www-Authenticate", "Location", "Content-Location", "Link"} {
		vs, changed := resp.Header[name], false
		out := make([]string, len(vs))
		for i, v := range vs {
			var n int
			out[i], n = swapOrigin(v, ex.swap.from, ex.swap.to)
			changed = changed || n > 0
		}
		if changed {
			resp.Header[name] = out
			where = append(where, http.CanonicalHeaderKey(name))
		}
	}
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	encoded := resp.Header.Get("Content-Encoding") != "" && !strings.EqualFold(resp.Header.Get("Content-Encoding"), "identity")
	if ex.other && !encoded && (ct == "application/json" || strings.HasSuffix(ct, "+json")) {
		body, err := io.ReadAll(io.LimitReader(resp.Body, maxSwapBody+1))
		if err != nil || len(body) > maxSwapBody {
			// Passed on as it comes, the error included.
			resp.Body = struct {
				io.Reader
				io.Closer
			}{io.MultiReader(bytes.NewReader(body), resp.Body), resp.Body}
		} else {
			resp.Body.Close()
			out, n := swapOrigin(string(body), ex.swap.from, ex.swap.to)
			if ex.front != nil && p.signedFor(ex, body) {
				out, n = string(body), 0
			}
			if n > 0 && ex.local != "" {
				p.noteResource(ex, body, out)
			}
			var fronts []*authFront
			if ex.local != "" {
				out, fronts = p.authServers(out, ex.local, strings.TrimPrefix(ex.swap.to, "http://"))
			}
			for _, f := range fronts {
				swapped = append(swapped, f.server.String()+" with "+f.origin)
			}
			if n > 0 || len(fronts) > 0 {
				where = append(where, "the body")
				resp.ContentLength = int64(len(out))
				resp.Header.Set("Content-Length", strconv.Itoa(len(out)))
			}
			resp.Body = io.NopCloser(strings.NewReader(out))
		}
	}
	if len(where) == 0 {
		return
	}
	detail := map[string]any{"server_origins": ex.swap.from, "proxy_origin": ex.swap.to, "in": where}
	note := "the proxy put its own origin " + ex.swap.to + " in place of the server's in " + strings.Join(where, ", ")
	if len(swapped) > 0 {
		note += ", and its fronts' in place of the authorization servers' of other origins (" + strings.Join(swapped, ", ") + ")"
		detail["authorization_servers"] = swapped
	}
	p.record(&transcript.Record{Time: time.Now(), Dir: transcript.Event, Event: "origin-rewrite",
		Note:   note + ", so the client sees one origin: a rewrite of the proxy's, not a fault",
		Detail: detail,
		HTTP:   &transcript.HTTPFacts{Method: ex.method, Path: ex.path, Status: resp.StatusCode},
	})
}

// noteResource remembers, where the proxy put its own origin in a protected-resource metadata's
// resource (before is the server's document, after the client's), how the server spelled its
// origin there: the client names that resource back to the authorization server (resourceBack).
func (p *Proxy) noteResource(ex *exchange, before []byte, after string) {
	var was, now struct {
		Resource string `json:"resource"`
	}
	if json.Unmarshal(before, &was) != nil || json.Unmarshal([]byte(after), &now) != nil || was.Resource == now.Resource {
		return
	}
	rest, ok := afterOrigin(now.Resource, ex.swap.to)
	if !ok || !strings.HasSuffix(was.Resource, rest) {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.resourceOrigin == nil {
		p.resourceOrigin = map[string]string{}
	}
	p.resourceOrigin[ex.swap.to] = strings.TrimSuffix(was.Resource, rest)
}

// afterOrigin is what follows origin in s, where s is a URL of that origin.
func afterOrigin(s, origin string) (string, bool) {
	if len(s) < len(origin) || !strings.EqualFold(s[:len(origin)], origin) {
		return "", false
	}
	rest := s[len(origin):]
	return rest, rest == "" || strings.IndexByte("/?#", rest[0]) >= 0
}

// resourceBack puts the server's origin back in the resource parameter (RFC 8707) of a request
// to the authorization server through the proxy or its front (authFront), in its query or its
// form body, where the proxy
// had put its own in the protected-resource metadata's resource: the client names the resource
// exactly as it was published to it, and the server must get it exactly as it published it.
// Only the resource parameter changes, the rest of the request reaches the server as the client
// sent it; the rewrite is recorded as the proxy's. A value that names another origin, or a body
// over maxSwapBody, passes as it is.
func (p *Proxy) resourceBack(r *http.Request, ex *exchange) {
	p.mu.Lock()
	published := maps.Clone(p.resourceOrigin)
	p.mu.Unlock()
	if len(published) == 0 {
		return
	}
	var proxy, server string
	back := func(v string) (string, bool) {
		for to, s := range published {
			if rest, ok := afterOrigin(v, to); ok {
				proxy, server = to, s
				return s + rest, true
			}
		}
		return "", false
	}
	var where []string
	if q, n := swapParam(r.URL.RawQuery, "resource", back); n > 0 {
		r.URL.RawQuery, r.URL.ForceQuery = q, false
		where = append(where, "the query")
	}
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if r.Method == http.MethodPost && ct == "application/x-www-form-urlencoded" && r.Body != nil {
		body, err := io.ReadAll(io.LimitReader(r.Body, maxSwapBody+1))
		if err != nil || len(body) > maxSwapBody {
			// Passed on as it comes, the error included.
			r.Body = struct {
				io.Reader
				io.Closer
			}{io.MultiReader(bytes.NewReader(body), r.Body), r.Body}
		} else {
			r.Body.Close()
			out, n := swapParam(string(body), "resource", back)
			if n > 0 {
				where = append(where, "the form body")
				r.ContentLength = int64(len(out))
				r.Header.Set("Content-Length", strconv.Itoa(len(out)))
			}
			r.Body = io.NopCloser(strings.NewReader(out))
		}
	}
	if len(where) == 0 {
		return
	}
	p.record(&transcript.Record{Time: time.Now(), Dir: transcript.Event, Event: "origin-rewrite",
		Note:   "the proxy put the server's origin " + server + " back in place of its own " + proxy + " in the resource parameter of " + strings.Join(where, " and ") + ", as the server's protected-resource metadata named the resource before the proxy rewrote it: a rewrite of the proxy's, not a fault",
		Detail: map[string]any{"server_origin": server, "proxy_origin": proxy, "in": where, "parameter": "resource"},
		HTTP:   &transcript.HTTPFacts{Method: ex.method, Path: ex.path},
	})
}

// swapParam replaces the value of each parameter name of a URL-encoded query or form for which
// swap gives another, and leaves every other byte as it was; it says how many it replaced.
func swapParam(form, name string, swap func(string) (string, bool)) (string, int) {
	if form == "" {
		return form, 0
	}
	pairs := strings.Split(form, "&")
	n := 0
	for i, pair := range pairs {
		key, value, ok := strings.Cut(pair, "=")
		if !ok {
			continue
		}
		if k, err := url.QueryUnescape(key); err != nil || k != name {
			continue
		}
		v, err := url.QueryUnescape(value)
		if err != nil {
			continue
		}
		if out, ok := swap(v); ok {
			pairs[i] = key + "=" + url.QueryEscape(out)
			n++
		}
	}
	if n == 0 {
		return form, 0
	}
	return strings.Join(pairs, "&"), n
}
