package proxy

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/toolscore/toolscore/internal/transcript"
)

// oauthServer is an OAuth-shaped MCP server: its endpoint asks for a bearer token (401 with a
// resource_metadata challenge), its protected-resource metadata names it (by 127.0.0.1) and its
// authorization server (itself, by localhost, as a server may name its loopback), whose
// metadata, /authorize redirect and /token answer name it too.
func oauthServer(t *testing.T) *httptest.Server {
	t.Helper()
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		self := srv.URL // http://127.0.0.1:PORT
		alias := strings.Replace(self, "127.0.0.1", "localhost", 1)
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/mcp":
			if r.Header.Get("Authorization") != "Bearer tok-secret-1" {
				w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token", resource_metadata="`+self+`/.well-known/oauth-protected-resource/mcp", scope="mcp"`)
				w.WriteHeader(http.StatusUnauthorized)
				return
			}
			_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{}}`)
		case "/.well-known/oauth-protected-resource/mcp":
			_, _ = io.WriteString(w, `{"resource":"`+self+`/mcp","authorization_servers":["`+strings.ReplaceAll(alias, "/", `\/`)+`"],"scopes_supported":["mcp"],"resource_documentation":"https://docs.example/mcp"}`)
		case "/.well-known/oauth-authorization-server":
			_, _ = io.WriteString(w, `{"issuer":"`+alias+`","authorization_endpoint":"`+alias+`/authorize","token_endpoint":"`+alias+`/token","registration_endpoint":"`+self+`/register","response_types_supported":["code"]}`)
		case "/authorize":
			http.Redirect(w, r, self+"/login?next="+url.QueryEscape(r.URL.RawQuery), http.StatusFound)
		case "/token":
			_, _ = io.WriteString(w, `{"access_token":"tok-secret-1","token_type":"Bearer"}`)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestOAuthThroughProxyOneOrigin: a client that reaches an OAuth-protected server through the
// proxy on another address sees one origin, the proxy's, in the challenge, in both metadata
// documents and in a redirect, so it can match the resource against the URL it connected to and
// walk the whole flow through the proxy; the transcript records each rewrite as the proxy's, never
// as a fault, and no token.
func TestOAuthThroughProxyOneOrigin(t *testing.T) {
	up := oauthServer(t)
	u, _ := url.Parse(up.URL + "/mcp")
	var tee bytes.Buffer
	tw := transcript.NewTee(&tee)
	p := New(Config{Tool: "get_account_balance", Probability: 1, Seed: 1}, tw)
	srv := httptest.NewServer(p.Handler(Upstream{URL: u}))
	defer srv.Close()
	origin := srv.URL
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	var seen []string // every header and body the client got
	do := func(method, target, body, auth string) (*http.Response, []byte) {
		t.Helper()
		req, _ := http.NewRequest(method, target, strings.NewReader(body))
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		if method == http.MethodPost && !strings.HasSuffix(target, "/token") {
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", method, target, err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		for name, vs := range resp.Header {
			seen = append(seen, name+": "+strings.Join(vs, ", "))
		}
		seen = append(seen, string(b))
		return resp, b
	}
	call := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`

	resp, _ := do("POST", origin+"/mcp", call, "")
	challenge := resp.Header.Get("WWW-Authenticate")
	want := `resource_metadata="` + origin + `/.well-known/oauth-protected-resource/mcp"`
	if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(challenge, want) || !strings.Contains(challenge, `scope="mcp"`) {
		t.Fatalf("the challenge: %d %q, want 401 with %s", resp.StatusCode, challenge, want)
	}
	_, b := do("GET", origin+"/.well-known/oauth-protected-resource/mcp", "", "")
	var prm struct {
		Resource      string   `json:"resource"`
		AuthServers   []string `json:"authorization_servers"`
		Documentation string   `json:"resource_documentation"`
	}
	if err := json.Unmarshal(b, &prm); err != nil || prm.Resource != origin+"/mcp" || len(prm.AuthServers) != 1 || prm.AuthServers[0] != origin || prm.Documentation != "https://docs.example/mcp" {
		t.Fatalf("the protected-resource metadata: %s (%v), want resource %s/mcp and authorization server %s", b, err, origin, origin)
	}
	_, b = do("GET", prm.AuthServers[0]+"/.well-known/oauth-authorization-server", "", "")
	var as map[string]any
	if err := json.Unmarshal(b, &as); err != nil || as["issuer"] != origin || as["authorization_endpoint"] != origin+"/authorize" || as["token_endpoint"] != origin+"/token" || as["registration_endpoint"] != origin+"/register" {
		t.Fatalf("the authorization server's metadata: %s (%v), want every URL under %s", b, err, origin)
	}
	resp, _ = do("GET", origin+"/authorize?response_type=code&state=s1", "", "")
	if loc := resp.Header.Get("Location"); resp.StatusCode != http.StatusFound || !strings.HasPrefix(loc, origin+"/login?next=") {
		t.Errorf("the authorize redirect: %d to %q, want one to %s/login", resp.StatusCode, loc, origin)
	}
	_, b = do("POST", origin+"/token", "grant_type=authorization_code&code=c1", "")
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.Unmarshal(b, &tok); err != nil || tok.AccessToken == "" {
		t.Fatalf("the token: %s (%v)", b, err)
	}
	resp, b = do("POST", origin+"/mcp", call, "Bearer "+tok.AccessToken)
	if resp.StatusCode != http.StatusOK || !bytes.Contains(b, []byte(`"result"`)) {
		t.Fatalf("the call with the token: %d %s", resp.StatusCode, b)
	}
	server := strings.TrimPrefix(up.URL, "http://")
	for _, s := range seen {
		if strings.Contains(s, server) || strings.Contains(s, "localhost"+server[strings.LastIndex(server, ":"):]) {
			t.Errorf("the client saw the server's own origin: %s", s)
		}
	}

	srv.Close()
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	var rewrites int
	for _, line := range bytes.Split(bytes.TrimSpace(tee.Bytes()), []byte("\n")) {
		var r transcript.Record
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatal(err)
		}
		if r.Event == "origin-rewrite" {
			rewrites++
			if r.Fault != "" || !strings.Contains(r.Note, "not a fault") || r.HTTP == nil {
				t.Errorf("an origin rewrite recorded as %s", line)
			}
		}
	}
	if rewrites != 4 {
		t.Errorf("the transcript has %d origin rewrites, want 4 (the challenge, two documents, the redirect):\n%s", rewrites, tee.Bytes())
	}
	if bytes.Contains(tee.Bytes(), []byte("tok-secret-1")) {
		t.Errorf("the transcript holds the token:\n%s", tee.Bytes())
	}
}

// TestSwapOrigin: the server's origin becomes the proxy's where it starts a URL, in any of its
// spellings, and nowhere else.
func TestSwapOrigin(t *testing.T) {
	from := upstreamOrigins(&url.URL{Scheme: "https", Host: "mcp.example.com"})
	for _, c := range []struct{ in, want string }{
		{`{"resource":"https://mcp.example.com/mcp"}`, `{"resource":"http://127.0.0.1:8000/mcp"}`},
		{`{"issuer":"https://mcp.example.com"}`, `{"issuer":"http://127.0.0.1:8000"}`},
		{`{"issuer":"https://mcp.example.com:443/"}`, `{"issuer":"http://127.0.0.1:8000/"}`},
		{`{"a":"https:\/\/mcp.example.com\/token"}`, `{"a":"http:\/\/127.0.0.1:8000\/token"}`},
		{`{"a":"https://mcp.example.com.evil/x","b":"xhttps://mcp.example.com/","c":"http://mcp.example.com/"}`, `{"a":"https://mcp.example.com.evil/x","b":"xhttps://mcp.example.com/","c":"http://mcp.example.com/"}`},
		{`Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource"`, `Bearer resource_metadata="http://127.0.0.1:8000/.well-known/oauth-protected-resource"`},
	} {
		if got, _ := swapOrigin(c.in, from, "http://127.0.0.1:8000"); got != c.want {
			t.Errorf("swapOrigin(%s) = %s, want %s", c.in, got, c.want)
		}
	}
}

// TestResourceParameterMapsBack: a client that read the resource in the protected-resource
// metadata through the proxy (the proxy's origin) names it to the authorization server through
// the proxy, in /authorize's query and /token's form; the server gets the resource exactly as it
// published it, and every other byte of those requests as the client sent it. A resource of
// another origin passes as it is; each rewrite is recorded as the proxy's, never as a fault.
func TestResourceParameterMapsBack(t *testing.T) {
	type got struct{ query, body string }
	seen := make(chan got, 4)
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The server names itself by localhost, the proxy's upstream by 127.0.0.1.
		self := strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)
		switch r.URL.Path {
		case "/.well-known/oauth-protected-resource/mcp":
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"resource":"`+self+`/mcp","authorization_servers":["`+self+`"]}`)
		case "/authorize", "/token":
			b, _ := io.ReadAll(r.Body)
			seen <- got{r.URL.RawQuery, string(b)}
			w.WriteHeader(http.StatusNoContent)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	server := strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)
	u, _ := url.Parse(srv.URL + "/mcp")
	var tee bytes.Buffer
	tw := transcript.NewTee(&tee)
	p := New(Config{Tool: "get_account_balance", Probability: 1, Seed: 1}, tw)
	front := httptest.NewServer(p.Handler(Upstream{URL: u}))
	defer front.Close()
	origin := front.URL

	resp, err := http.Get(origin + "/.well-known/oauth-protected-resource/mcp")
	if err != nil {
		t.Fatal(err)
	}
	var prm struct{ Resource string }
	err = json.NewDecoder(resp.Body).Decode(&prm)
	resp.Body.Close()
	if err != nil || prm.Resource != origin+"/mcp" {
		t.Fatalf("the protected-resource metadata through the proxy names %q (%v), want %s/mcp", prm.Resource, err, origin)
	}

	for _, c := range []struct {
		name, query, body, wantQuery, wantBody string
	}{{
		name:      "authorize",
		query:     "response_type=code&state=a%20b&resource=" + url.QueryEscape(prm.Resource) + "&scope=mcp+read",
		wantQuery: "response_type=code&state=a%20b&resource=" + url.QueryEscape(server+"/mcp") + "&scope=mcp+read",
	}, {
		name:     "token",
		body:     "grant_type=authorization_code&code=c%2F1&resource=" + url.QueryEscape(prm.Resource),
		wantBody: "grant_type=authorization_code&code=c%2F1&resource=" + url.QueryEscape(server+"/mcp"),
	}, {
		name:     "token",
		body:     "grant_type=authorization_code&resource=" + url.QueryEscape("https://other.example/mcp"),
		wantBody: "grant_type=authorization_code&resource=" + url.QueryEscape("https://other.example/mcp"),
	}} {
		target := origin + "/" + c.name
		if c.query != "" {
			target += "?" + c.query
		}
		req, _ := http.NewRequest(http.MethodGet, target, nil)
		if c.body != "" {
			req, _ = http.NewRequest(http.MethodPost, target, strings.NewReader(c.body))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if g := <-seen; g.query != c.wantQuery || g.body != c.wantBody {
			t.Errorf("/%s: the server got query %q body %q, want query %q body %q", c.name, g.query, g.body, c.wantQuery, c.wantBody)
		}
	}

	front.Close()
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	var back int
	for _, line := range bytes.Split(bytes.TrimSpace(tee.Bytes()), []byte("\n")) {
		var r transcript.Record
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatal(err)
		}
		if r.Event == "origin-rewrite" && strings.Contains(r.Note, "resource parameter") {
			back++
			if r.Fault != "" || !strings.Contains(r.Note, "not a fault") || !strings.Contains(r.Note, server) {
				t.Errorf("a resource parameter's rewrite recorded as %s", line)
			}
		}
	}
	if back != 2 {
		t.Errorf("the transcript has %d rewrites of the resource parameter, want 2 (the query, the form):\n%s", back, tee.Bytes())
	}
}
