package proxy

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/toolscore/toolscore/internal/transcript"
)

// asRequest is what an authorization server was sent.
type asRequest struct {
	path, host, query, body, auth string
}

// TestAuthServerOfAnotherOrigin: an upstream whose protected-resource metadata names an
// authorization server on another origin (another port, as the conformance suite's). Through
// the proxy the client sees that server at a front of the proxy's, in the metadata's
// authorization_servers, in the server's own metadata (issuer and endpoints) and in the iss of
// its redirect; the resource parameter it names to /authorize and /token reaches the
// authorization server as the upstream published it; the operator's header never goes there,
// the client's own Authorization does, and the authorization server is sent its own Host. Each
// rewrite is recorded as the proxy's, never as a fault.
func TestAuthServerOfAnotherOrigin(t *testing.T) {
	seen := make(chan asRequest, 8)
	var as *httptest.Server
	as = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		self := strings.Replace(as.URL, "127.0.0.1", "localhost", 1) // it names itself by localhost
		b, _ := io.ReadAll(r.Body)
		seen <- asRequest{r.URL.Path, r.Host, r.URL.RawQuery, string(b), r.Header.Get("Authorization")}
		switch r.URL.Path {
		case "/.well-known/oauth-authorization-server":
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"issuer":"`+self+`","authorization_endpoint":"`+self+`/authorize","token_endpoint":"`+self+`/token","authorization_response_iss_parameter_supported":true}`)
		case "/authorize":
			http.Redirect(w, r, "http://127.0.0.1:1/callback?code=c1&iss="+url.QueryEscape(self)+"&state=s", http.StatusFound)
		case "/token":
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"access_token":"tok-1","token_type":"Bearer"}`)
		}
	}))
	defer as.Close()
	asOrigin := strings.Replace(as.URL, "127.0.0.1", "localhost", 1)

	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/.well-known/oauth-protected-resource/mcp" {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"resource":"`+srv.URL+`/mcp","authorization_servers":["`+asOrigin+`"]}`)
			return
		}
		http.NotFound(w, r)
	}))
	defer srv.Close()
	u, _ := url.Parse(srv.URL + "/mcp")

	var tee bytes.Buffer
	tw := transcript.NewTee(&tee)
	p := New(Config{Tool: "get_account_balance", Probability: 1, Seed: 1}, tw)
	proxy := httptest.NewServer(p.Handler(Upstream{URL: u, Header: http.Header{"Authorization": {"Bearer operator-s3cret"}}}))
	defer proxy.Close()
	defer p.closeFronts()

	getJSON := func(target string, into any) {
		t.Helper()
		resp, err := http.Get(target)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if err := json.NewDecoder(resp.Body).Decode(into); err != nil {
			t.Fatalf("%s: %v", target, err)
		}
	}
	var prm struct {
		Resource             string   `json:"resource"`
		AuthorizationServers []string `json:"authorization_servers"`
	}
	getJSON(proxy.URL+"/.well-known/oauth-protected-resource/mcp", &prm)
	if prm.Resource != proxy.URL+"/mcp" || len(prm.AuthorizationServers) != 1 {
		t.Fatalf("the protected-resource metadata through the proxy: %+v", prm)
	}
	front := prm.AuthorizationServers[0]
	fu, err := url.Parse(front)
	if err != nil || front == asOrigin || fu.Hostname() != "127.0.0.1" || fu.Path != "" {
		t.Fatalf("the authorization server through the proxy is %q, want a front of the proxy's at 127.0.0.1 in place of %s", front, asOrigin)
	}

	var meta map[string]any
	getJSON(front+"/.well-known/oauth-authorization-server", &meta)
	if r := <-seen; r.host != strings.TrimPrefix(asOrigin, "http://") || r.auth != "" {
		t.Errorf("the authorization server was sent Host %q and Authorization %q, want its own name and none", r.host, r.auth)
	}
	for key, want := range map[string]string{"issuer": front, "authorization_endpoint": front + "/authorize", "token_endpoint": front + "/token"} {
		if meta[key] != want {
			t.Errorf("the authorization server's metadata through its front has %s %v, want %s", key, meta[key], want)
		}
	}

	// /authorize: the resource goes back to the server's, the iss of the redirect is the front's.
	nofollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := nofollow.Get(front + "/authorize?response_type=code&resource=" + url.QueryEscape(prm.Resource) + "&state=s")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if r := <-seen; r.query != "response_type=code&resource="+url.QueryEscape(srv.URL+"/mcp")+"&state=s" {
		t.Errorf("/authorize reached the authorization server with the query %q, want the server's resource", r.query)
	}
	if want := "http://127.0.0.1:1/callback?code=c1&iss=" + url.QueryEscape(front) + "&state=s"; resp.Header.Get("Location") != want {
		t.Errorf("the redirect through the front is %q, want %q", resp.Header.Get("Location"), want)
	}

	// /token: the resource goes back, the client's own credential goes, the operator's does not.
	req, _ := http.NewRequest(http.MethodPost, front+"/token", strings.NewReader("grant_type=authorization_code&code=c1&resource="+url.QueryEscape(prm.Resource)))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth("client", "secret")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	r := <-seen
	if r.body != "grant_type=authorization_code&code=c1&resource="+url.QueryEscape(srv.URL+"/mcp") {
		t.Errorf("/token reached the authorization server with the body %q, want the server's resource", r.body)
	}
	if user, _, _ := (&http.Request{Header: http.Header{"Authorization": {r.auth}}}).BasicAuth(); user != "client" {
		t.Errorf("/token reached the authorization server with Authorization %q, want the client's own", r.auth)
	}

	proxy.Close()
	p.closeFronts()
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(tee.Bytes(), []byte("operator-s3cret")) {
		t.Errorf("the transcript holds the operator's credential")
	}
	events := map[string]int{}
	for _, line := range bytes.Split(bytes.TrimSpace(tee.Bytes()), []byte("\n")) {
		var rec transcript.Record
		if err := json.Unmarshal(line, &rec); err != nil {
			t.Fatal(err)
		}
		if rec.Fault != "" {
			t.Errorf("a record of the proxy's own rewrite carries a fault: %s", line)
		}
		detail, _ := rec.Detail.(map[string]any)
		switch {
		case rec.Event == "origin-rewrite" && detail["parameter"] != nil:
			events[detail["parameter"].(string)]++
		case rec.Event == "origin-rewrite" && detail["authorization_servers"] != nil, rec.Event == "auth-server-front":
			events[rec.Event]++
		}
	}
	if events["resource"] != 2 || events["iss"] != 1 || events["auth-server-front"] != 1 || events["origin-rewrite"] != 1 {
		t.Errorf("the transcript records %v, want 2 resource rewrites, 1 of iss, 1 front started and the metadata's rewrite:\n%s", events, tee.Bytes())
	}
}

// TestAuthServerSignedForStaysDirect: an authorization server of another origin whose metadata
// offers what a client signs for the server's own URLs (here DPoP, whose proof names the token
// endpoint) is still fronted in the protected-resource metadata, but its metadata reaches the
// client as the server wrote it: issuer and endpoints the server's, so the client signs for the
// URLs the server checks. The transcript says so once.
func TestAuthServerSignedForStaysDirect(t *testing.T) {
	meta := ""
	as := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, meta)
	}))
	defer as.Close()
	meta = `{"issuer":"` + as.URL + `","authorization_endpoint":"` + as.URL + `/authorize","token_endpoint":"` + as.URL + `/token","dpop_signing_alg_values_supported":["ES256"]}`
	proxy, p, tw, tee := prmProxy(t, `"`+as.URL+`"`)

	read := func(target string) string {
		t.Helper()
		resp, err := http.Get(target)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	var prm struct {
		AuthorizationServers []string `json:"authorization_servers"`
	}
	if err := json.Unmarshal([]byte(read(proxy.URL+"/.well-known/oauth-protected-resource/mcp")), &prm); err != nil || len(prm.AuthorizationServers) != 1 || prm.AuthorizationServers[0] == as.URL {
		t.Fatalf("the protected-resource metadata through the proxy names %v (%v), want a front in place of %s", prm.AuthorizationServers, err, as.URL)
	}
	for range 2 {
		if got := read(prm.AuthorizationServers[0] + "/.well-known/oauth-authorization-server"); got != meta {
			t.Errorf("a DPoP authorization server's metadata through its front is\n%s\nwant it as the server wrote it\n%s", got, meta)
		}
	}
	proxy.Close()
	p.closeFronts()
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(tee.Bytes(), []byte(`"event":"auth-server-direct"`)); n != 1 {
		t.Errorf("the transcript records %d auth-server-direct events, want 1:\n%s", n, tee.Bytes())
	}
}

// TestAuthServerFrontsBounded: an upstream that names many authorization servers of other
// origins does not get the proxy to open a port for each: past maxFronts they are left as the
// server named them, and the transcript says why.
func TestAuthServerFrontsBounded(t *testing.T) {
	var names []string
	for i := range maxFronts + 3 {
		names = append(names, `"http://as`+strconv.Itoa(i)+`.invalid"`)
	}
	proxy, p, tw, tee := prmProxy(t, strings.Join(names, ","))
	resp, err := http.Get(proxy.URL + "/.well-known/oauth-protected-resource")
	if err != nil {
		t.Fatal(err)
	}
	var prm struct {
		AuthorizationServers []string `json:"authorization_servers"`
	}
	err = json.NewDecoder(resp.Body).Decode(&prm)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	fronted := 0
	for _, as := range prm.AuthorizationServers {
		if strings.HasPrefix(as, "http://127.0.0.1:") {
			fronted++
		}
	}
	if fronted != maxFronts || len(prm.AuthorizationServers) != maxFronts+3 {
		t.Errorf("%d of %d authorization servers fronted, want %d of %d: %v", fronted, len(prm.AuthorizationServers), maxFronts, maxFronts+3, prm.AuthorizationServers)
	}
	proxy.Close()
	p.closeFronts()
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(tee.Bytes(), []byte("the most it does")); n != 3 {
		t.Errorf("the transcript says %d times that a server was not fronted, want 3", n)
	}
}

// prmProxy is a proxy in front of a server whose protected-resource metadata names the
// authorization servers in list (JSON strings, comma-separated), with its transcript.
func prmProxy(t *testing.T, list string) (*httptest.Server, *Proxy, *transcript.Tee, *bytes.Buffer) {
	t.Helper()
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"resource":"`+srv.URL+`/mcp","authorization_servers":[`+list+`]}`)
	}))
	t.Cleanup(srv.Close)
	u, _ := url.Parse(srv.URL + "/mcp")
	tee := &bytes.Buffer{}
	tw := transcript.NewTee(tee)
	p := New(Config{Tool: "get_account_balance", Probability: 1, Seed: 1}, tw)
	proxy := httptest.NewServer(p.Handler(Upstream{URL: u}))
	t.Cleanup(p.closeFronts)
	t.Cleanup(proxy.Close)
	return proxy, p, tw, tee
}
