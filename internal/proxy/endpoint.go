package proxy

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/toolscore/toolscore/internal/transcript"
)

// endpointRedirects bounds the redirects the proxy follows for one request to the MCP endpoint.
const endpointRedirects = 5

// endpointFollower is the transport of the MCP endpoint's requests: where the server redirects
// its endpoint within its own origin (`/mcp` to `/mcp/`, as Starlette's redirect_slashes and
// many framework mounts do), it follows the redirect itself and sends the session's later
// requests to where it led. The client keeps talking to the endpoint the proxy records and
// faults; had the client followed the redirect, every message would have travelled on a path
// the proxy only relays, unrecorded and unfaulted.
type endpointFollower struct {
	rt http.RoundTripper
	p  *Proxy
	up *url.URL

	mu   sync.Mutex
	path string // the endpoint's path on the server, once a redirect moved it; "" before
}

// upstreamPath is the path the endpoint's requests go to on the server.
func (f *endpointFollower) upstreamPath() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.path
}

func (f *endpointFollower) RoundTrip(req *http.Request) (*http.Response, error) {
	ex, _ := req.Context().Value(exchangeKey{}).(*exchange)
	if ex == nil || ex.other {
		return f.rt.RoundTrip(req)
	}
	resp, err := f.rt.RoundTrip(req)
	for hops := 0; err == nil && hops < endpointRedirects; hops++ {
		to, ok := f.sameOriginRedirect(req, resp)
		if !ok {
			break
		}
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
		f.mu.Lock()
		moved := f.path != to.Path
		f.path = to.Path
		f.mu.Unlock()
		if moved {
			f.p.record(&transcript.Record{Time: time.Now(), Dir: transcript.Event, Event: "endpoint-redirect",
				Note: fmt.Sprintf("the server redirected its MCP endpoint %s to %s (%d) within its origin: the proxy followed it and sends the endpoint's requests there from now on, so the exchange stays recorded and faulted; the client never saw the redirect (a client that would not follow one gets through the proxy an answer it would not get directly)",
					req.URL.Path, to.Path, resp.StatusCode),
				Detail: map[string]any{"from": req.URL.Path, "to": to.Path, "status": resp.StatusCode},
				HTTP:   &transcript.HTTPFacts{Method: ex.method, Path: ex.path, Status: resp.StatusCode},
			})
		}
		next := req.Clone(req.Context())
		next.URL.Path, next.URL.RawPath = to.Path, to.RawPath
		if to.RawQuery != "" {
			next.URL.RawQuery = to.RawQuery
		}
		if req.Body != nil && req.Body != http.NoBody {
			next.Body = io.NopCloser(bytes.NewReader(ex.body))
		}
		req = next
		resp, err = f.rt.RoundTrip(req)
	}
	return resp, err
}

// sameOriginRedirect is where resp redirects req, when it is a redirect the proxy follows: one
// that keeps the method and body (307, 308; any 3xx to a GET or HEAD) to another path of the
// server's own origin, or of the origin the Host it was sent names (a server builds its
// Location from the Host it got, which to a loopback server is the client's).
func (f *endpointFollower) sameOriginRedirect(req *http.Request, resp *http.Response) (*url.URL, bool) {
	switch resp.StatusCode {
	case http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther:
		if req.Method != http.MethodGet && req.Method != http.MethodHead {
			return nil, false
		}
	default:
		return nil, false
	}
	loc, err := req.URL.Parse(resp.Header.Get("Location"))
	if err != nil || resp.Header.Get("Location") == "" || !strings.EqualFold(loc.Scheme, req.URL.Scheme) {
		return nil, false
	}
	if !strings.EqualFold(loc.Host, req.URL.Host) && !strings.EqualFold(loc.Host, req.Host) && !namesUpstream(f.up, loc.Host) {
		return nil, false
	}
	if loc.Path == req.URL.Path {
		return nil, false
	}
	return loc, true
}

// looksMCP says a request to another path than the endpoint carries MCP: a session id, or a
// POST of JSON that accepts an event stream, as only an MCP client sends (OAuth's requests are
// forms or plain JSON; its discovery may carry MCP-Protocol-Version, so that says nothing).
func looksMCP(r *http.Request) bool {
	return mcpSign(r) != ""
}

// mcpSign names what marks r as MCP, "" when nothing does.
func mcpSign(r *http.Request) string {
	switch {
	case r.Header.Get("Mcp-Session-Id") != "":
		return "an Mcp-Session-Id"
	case r.Method == http.MethodPost && strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") && strings.Contains(r.Header.Get("Accept"), "text/event-stream"):
		return "a JSON body, accepting an event stream"
	}
	return ""
}
