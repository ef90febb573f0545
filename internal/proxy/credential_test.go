package proxy

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/toolscore/toolscore/internal/transcript"
)

// vhostFront is a shared front that serves several virtual hosts and reveals, per Host it was
// asked for, the Authorization header it got.
type vhostFront struct {
	mu   sync.Mutex
	auth map[string][]string // Host -> the Authorization of each request for it
}

func (f *vhostFront) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	f.mu.Lock()
	f.auth[r.Host] = append(f.auth[r.Host], r.Header.Get("Authorization"))
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{}}`)
}

// TestCredentialOnlyToNamedUpstream: the operator's --header credential goes only to the
// upstream the operator named. A client under test picks a Host: to a loopback front (which is
// sent the client's Host, for its DNS-rebinding check) one naming another virtual host reaches
// it without the credential, and the transcript says the proxy withheld it; to a front the
// proxy takes for remote (0.0.0.0 is not a loopback name, yet reaches this machine) the Host is
// the upstream's own. A Host naming the proxy or the upstream carries the credential.
func TestCredentialOnlyToNamedUpstream(t *testing.T) {
	for _, form := range []string{"loopback", "remote"} {
		t.Run(form, func(t *testing.T) {
			front := &vhostFront{auth: map[string][]string{}}
			fs := httptest.NewServer(front)
			defer fs.Close()
			upHost := strings.TrimPrefix(fs.URL, "http://")
			if form == "remote" {
				upHost = strings.Replace(upHost, "127.0.0.1", "0.0.0.0", 1)
			}
			u, _ := url.Parse("http://" + upHost + "/mcp")
			var tee bytes.Buffer
			tw := transcript.NewTee(&tee)
			p := New(Config{Tool: "x", Probability: 1, Seed: 1}, tw)
			ps := httptest.NewServer(p.Handler(Upstream{URL: u, Header: http.Header{"Authorization": {"Bearer operator-s3cret"}}}))
			defer ps.Close()
			proxyHost := strings.TrimPrefix(ps.URL, "http://")
			for _, host := range []string{proxyHost, "admin.internal", upHost, "localhost:1"} {
				for _, path := range []string{"/mcp", "/.well-known/oauth-protected-resource"} {
					req, _ := http.NewRequest(http.MethodPost, ps.URL+path, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
					req.Host = host
					req.Header.Set("Content-Type", "application/json")
					req.Header.Set("Accept", "application/json, text/event-stream")
					resp, err := http.DefaultClient.Do(req)
					if err != nil {
						t.Fatal(err)
					}
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
			}
			ps.Close()
			if err := tw.Close(); err != nil {
				t.Fatal(err)
			}
			front.mu.Lock()
			defer front.mu.Unlock()
			for host, auths := range front.auth {
				for _, a := range auths {
					own := host == upHost || host == proxyHost
					if form == "remote" && host != upHost {
						t.Errorf("the remote front was asked for Host %q, want only its own %q", host, upHost)
					}
					if own && a != "Bearer operator-s3cret" {
						t.Errorf("Host %q (the upstream's or the proxy's) got Authorization %q, want the operator's", host, a)
					}
					if !own && a != "" {
						t.Errorf("Host %q, a virtual host the client chose, got the operator's Authorization %q", host, a)
					}
				}
			}
			if form == "loopback" {
				if len(front.auth["admin.internal"]) == 0 {
					t.Errorf("the loopback front never saw the client's Host admin.internal (its DNS-rebinding check must): %v", front.auth)
				}
				if !strings.Contains(tee.String(), `"event":"credential-withheld"`) {
					t.Errorf("the transcript does not say the credential was withheld")
				}
			}
			if strings.Contains(tee.String(), "operator-s3cret") {
				t.Errorf("the transcript holds the operator's credential")
			}
		})
	}
}
