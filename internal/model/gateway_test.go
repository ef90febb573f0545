package model

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestGatewayPassesThrough stands a vendor up on loopback and checks the gateway: the body and
// path reach it unchanged, the real key replaces the CLI's placeholder (in the vendor's header,
// and only there), the answer streams back event by event, and the recording holds the request
// but not the key.
func TestGatewayPassesThrough(t *testing.T) {
	const key = "sk-test-0123456789-secret"
	type seen struct {
		path, apiKey, auth string
		body               []byte
	}
	got := make(chan seen, 1)
	release := make(chan struct{})
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- seen{r.URL.RequestURI(), r.Header.Get("X-Api-Key"), r.Header.Get("Authorization"), b}
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "event: message_start\ndata: {}\n\n")
		w.(http.Flusher).Flush()
		<-release // the second event is sent only once the first has reached the client
		io.WriteString(w, "event: message_stop\ndata: {}\n\n")
	}))
	defer up.Close()

	var rec bytes.Buffer
	g, err := StartGateway(Anthropic, up.URL+"/base", key, &rec)
	if err != nil {
		t.Fatal(err)
	}
	body := `{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`
	req, _ := http.NewRequest(http.MethodPost, g.URL+"/v1/messages?beta=true", strings.NewReader(body))
	req.Header.Set("X-Api-Key", "placeholder")
	req.Header.Set("Authorization", "Bearer placeholder")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	r := bufio.NewReader(resp.Body)
	first, err := r.ReadString('\n')
	if err != nil || first != "event: message_start\n" {
		t.Fatalf("first streamed line %q, %v", first, err)
	}
	close(release)
	rest, _ := io.ReadAll(r)
	if !strings.Contains(string(rest), "message_stop") {
		t.Errorf("the rest of the stream: %q", rest)
	}

	s := <-got
	if s.path != "/base/v1/messages?beta=true" || string(s.body) != body {
		t.Errorf("the vendor got %s %q; want the path under its base and the body unchanged", s.path, s.body)
	}
	if s.apiKey != key || s.auth != "" {
		t.Errorf("the vendor got x-api-key %q, authorization %q; want the real key and no placeholder", s.apiKey, s.auth)
	}
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	reqs := g.Requests()
	if len(reqs) != 1 || string(reqs[0].Body) != body || reqs[0].Reply != "passed through: 200" {
		t.Errorf("recorded %+v", reqs)
	}
	if strings.Contains(rec.String(), key) || strings.Contains(rec.String(), "placeholder") {
		t.Errorf("the recording holds a credential: %s", rec.String())
	}
}

// TestGatewayUpstreamDown: a vendor that does not answer is a 502 to the CLI, naming the host
// and never the key.
func TestGatewayUpstreamDown(t *testing.T) {
	up := httptest.NewServer(http.NotFoundHandler())
	url := up.URL
	up.Close()
	g, err := StartGateway(Anthropic, url, "sk-secret-key", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	resp, err := http.Post(g.URL+"/v1/messages", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadGateway || strings.Contains(string(b), "sk-secret-key") || !strings.Contains(string(b), strings.TrimPrefix(url, "http://")) {
		t.Errorf("%d %q", resp.StatusCode, b)
	}
}

func TestGatewayRefusesBadInput(t *testing.T) {
	for _, c := range []struct{ url, key string }{{"ftp://x", "k"}, {"not a url", "k"}, {"http://127.0.0.1:1", ""}} {
		if g, err := StartGateway(Anthropic, c.url, c.key, nil); err == nil {
			g.Close()
			t.Errorf("%q with key %q was accepted", c.url, c.key)
		}
	}
}
