package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/toolscore/toolscore/internal/model"
)

// TestRealModelThroughGateway runs Claude Code cells with a real model configured, against a
// vendor stand-in on this machine's loopback (the scripted model behind a front that checks the
// key), the cells on network host so they reach it. It checks the gateway's promises: every
// request reaches the vendor with the key from the runner's environment and not the CLI's
// placeholder, the bodies reach it unchanged (the gateway's record and the vendor's agree) and
// name the manifest's model, the model's view is graded as for the scripted model, a model
// whose key is not set makes its client unavailable, and the key is in no file of the results,
// nor in toolscore's output.
func TestRealModelThroughGateway(t *testing.T) {
	api := serialEngine(t)
	key := "sk-ant-toolscore-test-" + strings.Repeat("k3y", 8)
	t.Setenv("ANTHROPIC_API_KEY", key)
	os.Unsetenv("TOOLSCORE_TEST_UNSET_KEY")

	scripted, err := model.Start(model.Anthropic, model.Script{Tool: "get_account_balance", Arguments: map[string]any{"account_id": "ACC-4471"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer scripted.Close()
	target, _ := url.Parse(scripted.URL)
	forward := httputil.NewSingleHostReverseProxy(target)
	forward.FlushInterval = -1
	var mu sync.Mutex
	var bodies []string
	var badAuth []string
	vendor := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		if got := r.Header.Get("X-Api-Key"); got != key || r.Header.Get("Authorization") != "" {
			badAuth = append(badAuth, r.URL.Path+" x-api-key="+got+" authorization="+r.Header.Get("Authorization"))
		}
		if strings.HasPrefix(r.URL.Path, "/vendor/v1/messages") {
			bodies = append(bodies, string(b))
		}
		mu.Unlock()
		r.URL.Path = strings.TrimPrefix(r.URL.Path, "/vendor")
		r.Body = io.NopCloser(bytes.NewReader(b))
		forward.ServeHTTP(w, r)
	}))
	defer vendor.Close()

	manifest := filepath.Join(t.TempDir(), "real.yaml")
	text := `name: real model
server: {builtin: ledger}
tool: get_account_balance
arguments: {account_id: ACC-4471}
prompt: What is the balance of ledger account ACC-4471?
truth: ["40718.77", "4071877"]
faults: [clean, corrupt, type-swap]
schema_modes: [hidden, published]
clients:
  - name: claude-code
    model: {name: claude-test-model, url: "` + vendor.URL + `/vendor", network: host}
  - name: claude-code
    model: {name: other-model, url: "` + vendor.URL + `", key_env: TOOLSCORE_TEST_UNSET_KEY}
runs: 1
timeout: 60s
`
	if err := os.WriteFile(manifest, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	code, stdout, stderr := runStatic(t, manifest, "--backend", "docker", "--out", out)
	if code != 0 {
		t.Fatalf("the sweep exited %d:\n%s", code, stderr)
	}
	res := readResultsDir(t, out)
	if len(res.Unavailable) != 1 || res.Unavailable[0].Client != "claude-code:other-model" || !strings.Contains(res.Unavailable[0].Reason, "TOOLSCORE_TEST_UNSET_KEY") {
		t.Errorf("unavailable %+v; want claude-code:other-model for want of TOOLSCORE_TEST_UNSET_KEY", res.Unavailable)
	}
	if len(res.Cells) != 6 {
		t.Fatalf("%d cells, want 6", len(res.Cells))
	}
	for _, c := range res.Cells {
		w := claudeCodeWant(c.Fault, c.Schema, c.Protocol)
		if c.Client != "claude-code:claude-test-model" || c.Outcome[w.outcome] != 1 || c.ModelView[w.view] != 1 || c.Answer[w.answer] != 1 {
			t.Errorf("%s × %s × %s: %s, model view %v, answer %v; want %s, %s, %s", c.Client, c.Fault, c.Schema, c.Counts(), c.ModelView, c.Answer, w.outcome, w.view, w.answer)
		}
	}

	mu.Lock()
	defer mu.Unlock()
	if len(badAuth) > 0 {
		t.Errorf("requests reached the vendor without the real key, or with the placeholder: %v", badAuth)
	}
	// The gateway's record of each run is what the vendor got, byte for byte, naming the model.
	recorded := map[string]bool{}
	runs, _ := filepath.Glob(filepath.Join(out, "runs", "*", "*", "claude-code", "model-requests.jsonl"))
	if len(runs) == 0 {
		runs, _ = filepath.Glob(filepath.Join(out, "*", "*", "*", "claude-code", "model-requests.jsonl"))
	}
	for _, p := range runs {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		reqs, _ := model.ReadRequests(f)
		f.Close()
		for _, q := range reqs {
			if strings.HasPrefix(q.Path, "/v1/messages") {
				recorded[canonicalJSON(string(q.Body))] = true
				if !strings.HasPrefix(q.Reply, "passed through: 200") {
					t.Errorf("%s: %s", p, q.Reply)
				}
			}
		}
	}
	if len(bodies) == 0 || len(recorded) == 0 {
		t.Fatalf("the vendor got %d Messages requests, the gateways recorded %d (in %d runs)", len(bodies), len(recorded), len(runs))
	}
	for _, b := range bodies {
		if !recorded[canonicalJSON(b)] {
			t.Errorf("the vendor got a request no gateway recorded as sent: %.300s", b)
		}
		var m struct{ Model string }
		if json.Unmarshal([]byte(b), &m); m.Model != "claude-test-model" {
			t.Errorf("a request asked for model %q, want the manifest's claude-test-model", m.Model)
		}
	}

	// The key is nowhere: not in any file of the results, not in what toolscore printed.
	leaks := keyIn(t, out, key)
	if strings.Contains(stdout+stderr, key) {
		leaks = append(leaks, "toolscore's output")
	}
	if len(leaks) > 0 {
		t.Errorf("the API key is in %v", leaks)
	}
	noLeftovers(t, api, "the real-model sweep")
}

// canonicalJSON is b decoded and encoded again, so two encodings of one document compare equal
// (the recorder keeps bodies compacted and HTML-escaped).
func canonicalJSON(b string) string {
	var v any
	if json.Unmarshal([]byte(b), &v) != nil {
		return b
	}
	out, _ := json.Marshal(v)
	return string(out)
}

// keyIn lists the files under dir that hold key.
func keyIn(t *testing.T, dir, key string) []string {
	t.Helper()
	var found []string
	_ = filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return nil
		}
		f, err := os.Open(p)
		if err != nil {
			return nil
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			if bytes.Contains(sc.Bytes(), []byte(key)) {
				found = append(found, p)
				break
			}
		}
		return nil
	})
	return found
}
