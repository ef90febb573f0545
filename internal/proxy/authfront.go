package proxy

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"time"

	"github.com/toolscore/toolscore/internal/transcript"
)

// maxFronts bounds the fronts a proxy starts: an upstream names one authorization server or a
// few, and a client's Host names the proxy once or twice; neither gets to open a port at will.
const maxFronts = 8

// authFront relays an authorization server of another origin than the upstream, which the
// upstream's protected-resource metadata names, on a port of the proxy's own. A client that
// reached the server through the proxy can only name the resource as the proxy published it;
// directly it would take that name to the authorization server itself, where the proxy could not
// put the server's back. Through the front it can (resourceBack), and the client sees the
// authorization server under one origin, the front's, in its metadata (issuer and endpoints),
// its redirects and the iss parameter of those (RFC 9207).
type authFront struct {
	server *url.URL // the authorization server's origin
	from   []string // that origin in each spelling (see upstreamOrigins)
	origin string   // the front's origin, as the client reaches it
	srv    *http.Server
	// direct says its metadata offered what a client signs for the server's URLs, so it went
	// as the server wrote it (see signedFor).
	direct bool
}

// authServers puts a front's origin in place of each authorization server of another origin
// that the protected-resource metadata doc (as the client gets it) names, starting the fronts
// it needs on the address the client reached the proxy at (local), named as the client named
// the proxy (host); it says which it put in. A document that is no protected-resource metadata,
// or names no such server, comes back as it is.
func (p *Proxy) authServers(doc, local, host string) (string, []*authFront) {
	var prm struct {
		Resource             string   `json:"resource"`
		AuthorizationServers []string `json:"authorization_servers"`
	}
	if json.Unmarshal([]byte(doc), &prm) != nil || prm.Resource == "" {
		return doc, nil
	}
	var used []*authFront
	for _, as := range prm.AuthorizationServers {
		u, err := url.Parse(as)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
			continue
		}
		if _, ok := afterOrigin(as, "http://"+host); ok {
			continue // the upstream's own origin, already the proxy's
		}
		f, err := p.authFront(&url.URL{Scheme: u.Scheme, Host: u.Host}, local, host)
		if err != nil {
			p.record(&transcript.Record{Time: time.Now(), Dir: transcript.Event, Event: "origin-rewrite",
				Note: "the proxy could not front the authorization server " + u.Scheme + "://" + u.Host + ": " + err.Error() + "; the client reaches it directly, and names to it the resource as the proxy published it"})
			continue
		}
		var n int
		if doc, n = swapOrigin(doc, f.from, f.origin); n > 0 {
			used = append(used, f)
		}
	}
	return doc, used
}

// authFront is the front of the authorization server at origin for clients that name the
// proxy host, started on local's address the first time one is asked for.
func (p *Proxy) authFront(origin *url.URL, local, host string) (*authFront, error) {
	name := host
	if h, _, err := net.SplitHostPort(host); err == nil {
		name = h
	}
	key := strings.ToLower(origin.String()) + " " + name
	p.mu.Lock()
	defer p.mu.Unlock()
	if f := p.fronts[key]; f != nil {
		return f, nil
	}
	if len(p.fronts) >= maxFronts {
		return nil, fmt.Errorf("the proxy already fronts %d authorization servers, the most it does", maxFronts)
	}
	ip, _, err := net.SplitHostPort(local)
	if err != nil {
		ip = "127.0.0.1"
	}
	l, err := net.Listen("tcp", net.JoinHostPort(ip, "0"))
	if err != nil {
		return nil, err
	}
	_, port, _ := net.SplitHostPort(l.Addr().String())
	f := &authFront{server: origin, from: upstreamOrigins(origin), origin: "http://" + net.JoinHostPort(strings.Trim(name, "[]"), port)}
	f.srv = &http.Server{Handler: p.frontHandler(f), ReadHeaderTimeout: 30 * time.Second}
	go func() { _ = f.srv.Serve(l) }()
	if p.fronts == nil {
		p.fronts = map[string]*authFront{}
	}
	p.fronts[key] = f
	p.record(&transcript.Record{Time: time.Now(), Dir: transcript.Event, Event: "auth-server-front",
		Note:   "the server's protected-resource metadata names the authorization server " + origin.String() + ", of another origin: the proxy relays it at " + f.origin + ", so the client sees it there and the proxy can give the server back its resource (no operator header goes there)",
		Detail: map[string]any{"server_origin": origin.String(), "front_origin": f.origin},
	})
	return f, nil
}

// frontHandler relays every request to f's authorization server as the client sent it, but for
// the resource parameter (see resourceBack), the Host (the server's own: the client named the
// front) and the hop-by-hop headers, and never with the operator's headers, which are for the
// upstream alone. Its answers get the front's origin in place of the server's (swapOrigins) and
// in the iss parameter of a redirect. Each request and answer is recorded without its body.
func (p *Proxy) frontHandler(f *authFront) http.Handler {
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.DisableCompression = true
	swap := &originSwap{from: f.from, to: f.origin}
	rp := &httputil.ReverseProxy{
		Transport: transport,
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.Out.URL.Scheme, pr.Out.URL.Host = f.server.Scheme, f.server.Host
			pr.Out.Host = f.server.Host
			for _, name := range []string{"Forwarded", "X-Forwarded-For", "X-Forwarded-Host", "X-Forwarded-Proto"} {
				if vs, ok := pr.In.Header[name]; ok {
					pr.Out.Header[name] = vs
				}
			}
		},
		ModifyResponse: func(resp *http.Response) error {
			ex, _ := resp.Request.Context().Value(exchangeKey{}).(*exchange)
			p.swapIss(resp, ex)
			p.swapOrigins(resp, ex)
			p.record(&transcript.Record{Dir: transcript.Event, Event: "http-response", HTTP: &transcript.HTTPFacts{Method: ex.method, Path: ex.path, Status: resp.StatusCode, Header: p.maskHeader(resp.Header)}})
			return nil
		},
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			facts := &transcript.HTTPFacts{Method: r.Method, Path: r.URL.Path, Status: http.StatusBadGateway}
			if r.Context().Err() != nil {
				p.record(&transcript.Record{Dir: transcript.Event, Event: "client-left", Note: "the client left before the authorization server's answer: " + err.Error(), HTTP: facts})
				return
			}
			p.record(&transcript.Record{Dir: transcript.Event, Event: "upstream-error", Note: "the authorization server " + f.server.String() + ": " + err.Error(), HTTP: facts})
			w.WriteHeader(http.StatusBadGateway)
		},
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ex := &exchange{method: r.Method, path: r.URL.Path, other: true, swap: swap, front: f}
		p.record(&transcript.Record{Time: time.Now(), Dir: transcript.Event, Event: "http-request",
			HTTP: &transcript.HTTPFacts{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Host: r.Host, UpstreamHost: f.server.Host, Header: p.maskHeader(r.Header)}})
		p.resourceBack(r, ex)
		rp.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), exchangeKey{}, ex)))
	})
}

// swapIss puts the front's origin in place of the authorization server's in the iss parameter
// (RFC 9207) of a redirect's Location, which the client holds against the issuer it saw, the
// front's; an iss naming another origin passes as it is.
func (p *Proxy) swapIss(resp *http.Response, ex *exchange) {
	loc := resp.Header.Get("Location")
	before, query, ok := strings.Cut(loc, "?")
	if !ok || resp.StatusCode < 300 || resp.StatusCode >= 400 {
		return
	}
	query, fragment, hasFragment := strings.Cut(query, "#")
	out, n := swapParam(query, "iss", func(v string) (string, bool) {
		for _, from := range ex.swap.from {
			if rest, ok := afterOrigin(v, from); ok {
				return ex.swap.to + rest, true
			}
		}
		return "", false
	})
	if n == 0 {
		return
	}
	loc = before + "?" + out
	if hasFragment {
		loc += "#" + fragment
	}
	resp.Header.Set("Location", loc)
	p.record(&transcript.Record{Time: time.Now(), Dir: transcript.Event, Event: "origin-rewrite",
		Note:   "the proxy put its front's origin " + ex.swap.to + " in place of the authorization server's in the iss parameter of its redirect, as in the issuer the client saw: a rewrite of the proxy's, not a fault",
		Detail: map[string]any{"server_origins": ex.swap.from, "proxy_origin": ex.swap.to, "in": []string{"Location"}, "parameter": "iss"},
		HTTP:   &transcript.HTTPFacts{Method: ex.method, Path: ex.path, Status: resp.StatusCode},
	})
}

// signedFor says the authorization server's metadata doc offers what a client signs for the
// server's own URLs, which the front cannot sign again: a DPoP proof names the token endpoint's
// URL (htu), a JWT client assertion (private_key_jwt, client_secret_jwt) and an ID-JAG of a
// jwt-bearer grant name the issuer (aud). A client that signed for the front's would be refused.
// So the front passes such metadata as the server wrote it, its issuer and endpoints the
// server's own: the client goes there directly, as it would without the proxy, and names the
// resource as the proxy published it. Recorded once per front.
func (p *Proxy) signedFor(ex *exchange, doc []byte) bool {
	var meta struct {
		Issuer      string   `json:"issuer"`
		DPoP        []string `json:"dpop_signing_alg_values_supported"`
		AuthMethods []string `json:"token_endpoint_auth_methods_supported"`
		Grants      []string `json:"grant_types_supported"`
	}
	if json.Unmarshal(doc, &meta) != nil || meta.Issuer == "" {
		return false
	}
	var why []string
	if meta.DPoP != nil {
		why = append(why, "DPoP (dpop_signing_alg_values_supported)")
	}
	for _, m := range meta.AuthMethods {
		if m == "private_key_jwt" || m == "client_secret_jwt" {
			why = append(why, "JWT client authentication ("+m+")")
		}
	}
	for _, g := range meta.Grants {
		if g == "urn:ietf:params:oauth:grant-type:jwt-bearer" {
			why = append(why, "a jwt-bearer grant (an ID-JAG)")
		}
	}
	if len(why) == 0 {
		return false
	}
	p.mu.Lock()
	first := !ex.front.direct
	ex.front.direct = true
	p.mu.Unlock()
	if first {
		p.record(&transcript.Record{Time: time.Now(), Dir: transcript.Event, Event: "auth-server-direct",
			Note:   "the authorization server " + ex.front.server.String() + " offers " + strings.Join(why, ", ") + ", which a client signs for the server's own URL: its metadata goes to the client as the server wrote it, so the client reaches the server directly from here on and names to it the resource as the proxy published it (a client that holds the issuer against the URL it fetched the metadata from refuses it)",
			Detail: map[string]any{"server_origin": ex.front.server.String(), "front_origin": ex.front.origin, "offers": why},
			HTTP:   &transcript.HTTPFacts{Method: ex.method, Path: ex.path},
		})
	}
	return true
}

// closeFronts stops every authorization server front.
func (p *Proxy) closeFronts() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, f := range p.fronts {
		_ = f.srv.Close()
	}
}
