package proxy

import (
	"bytes"
	"io"
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
	var where []string
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
			if n > 0 {
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
	p.record(&transcript.Record{Time: time.Now(), Dir: transcript.Event, Event: "origin-rewrite",
		Note:   "the proxy put its own origin " + ex.swap.to + " in place of the server's in " + strings.Join(where, ", ") + ", so the client sees one origin: a rewrite of the proxy's, not a fault",
		Detail: map[string]any{"server_origins": ex.swap.from, "proxy_origin": ex.swap.to, "in": where},
		HTTP:   &transcript.HTTPFacts{Method: ex.method, Path: ex.path, Status: resp.StatusCode},
	})
}
