package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

// driftedSchema checks a tools/list answer's outputSchema of get_account_balance: account_id
// renamed account_id_v2 (in properties and required) when drifted, as the server has it if not.
func driftedSchema(t *testing.T, list []byte, drifted bool) {
	t.Helper()
	var msg struct {
		Result struct {
			Tools []struct {
				Name         string `json:"name"`
				OutputSchema struct {
					Properties map[string]any `json:"properties"`
					Required   []string       `json:"required"`
				} `json:"outputSchema"`
			} `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal(list, &msg); err != nil || len(msg.Result.Tools) == 0 {
		t.Fatalf("not a tools/list answer: %v: %s", err, list)
	}
	s := msg.Result.Tools[0].OutputSchema
	old, renamed := "account_id", "account_id_v2"
	if !drifted {
		old, renamed = renamed, old
	}
	_, hasOld := s.Properties[old]
	_, hasNew := s.Properties[renamed]
	if hasOld || !hasNew || strings.Contains(strings.Join(s.Required, " ")+" ", old+" ") || !strings.Contains(strings.Join(s.Required, " ")+" ", renamed+" ") {
		t.Errorf("drifted %v: the outputSchema's properties %v, required %v", drifted, s.Properties, s.Required)
	}
}

// TestSchemaDriftOnTheWire: a raw client under both protocols, on stdio and over HTTP (SSE
// answers, and JSON ones the proxy turns into a stream), lists the tools and calls. The proxy
// sends notifications/tools/list_changed before the answer (the server never did: the transcript
// says the proxy made it up); a client that lists again gets account_id renamed account_id_v2
// in the outputSchema and then at once the answer with the field renamed; one that does not gets
// the same answer after the wait.
func TestSchemaDriftOnTheWire(t *testing.T) {
	type run struct{ transport, protocol, form string }
	var runs []run
	for _, protocol := range []string{"2025-11-25", modernRevision} {
		runs = append(runs, run{"stdio", protocol, ""}, run{"http", protocol, "sse"}, run{"http", protocol, "json"})
	}
	for _, r := range runs {
		for _, relist := range []bool{true, false} {
			name := r.transport + "/" + r.protocol + "/" + r.form
			if !relist {
				name += "/no-relist"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				wait := "300ms"
				if relist {
					wait = "20s" // the re-list, not the wait, must end the hold
				}
				flags := []string{"--fault", "schema-drift", "--options", `{"wait":"` + wait + `"}`, "--schema", "published", "--tool", "get_account_balance", "--protocol", r.protocol}
				var notice, list2, answer []byte
				var took time.Duration
				var tee string
				if r.transport == "stdio" {
					cmd, teePath := proxyCommand(t, "schema-drift", "published", flags[2:]...)
					tee = teePath
					notice, list2, answer, took = stdioDrift(t, cmd, r.protocol == modernRevision, relist)
				} else {
					var ledgerFlags []string
					if r.form == "json" {
						ledgerFlags = append(ledgerFlags, "--json")
					}
					if r.protocol == modernRevision {
						ledgerFlags = append(ledgerFlags, "--stateless")
					}
					h := startHTTPProxy(t, append(flags, "--seed", "1"), ledgerFlags)
					notice, list2, answer, took = httpDrift(t, h.url, r.protocol == modernRevision, relist)
					h.stop(t)
					tee = h.tee
				}
				if string(notice) != `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}` {
					t.Errorf("before the answer came %s, want the list_changed notification", notice)
				}
				checkFault["schema-drift"](t, decode(t, answer), nil, answer)
				if relist {
					driftedSchema(t, list2, true)
					if took > 10*time.Second {
						t.Errorf("the answer came %v after the call: the re-list did not end the hold", took)
					}
				} else if took < 300*time.Millisecond {
					t.Errorf("the answer came %v after the call, want the 300ms wait", took)
				}
				var made, held bool
				for _, rec := range readTee(t, tee) {
					note, _ := rec["note"].(string)
					if w, _ := rec["wire"].(string); strings.Contains(w, "list_changed") && strings.Contains(note, "made up by the proxy (schema-drift)") {
						made = true
					}
					if rec["fault"] == "schema-drift" && strings.Contains(note, map[bool]string{true: "until the client listed the tools again", false: "the client did not list the tools again"}[relist]) {
						held = true
					}
				}
				if !made || !held {
					t.Errorf("the transcript: the proxy's notification recorded %v, the hold noted %v", made, held)
				}
			})
		}
	}
}

// stdioDrift is the raw exchange on stdio: it returns the notification, the second list (when
// the client lists again) and the call's answer, and how long the answer took after the call.
func stdioDrift(t *testing.T, cmd []string, modern, relist bool) (notice, list2, answer []byte, took time.Duration) {
	t.Helper()
	s := startWire(t, cmd)
	defer s.close(t)
	params := func(p map[string]any) map[string]any {
		if modern {
			return modernMeta(p)
		}
		return p
	}
	if modern {
		s.request(t, 1, "server/discover", params(map[string]any{}))
	} else {
		s.request(t, 1, "initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "raw", "version": "1"}})
		_, _ = s.in.Write([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"))
	}
	driftedSchema(t, s.request(t, 2, "tools/list", params(map[string]any{})), false)
	start := time.Now()
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": params(callParams())})
	_, _ = s.in.Write(append(b, '\n'))
	frame, err := s.out.ReadBytes('\n')
	if err != nil {
		t.Fatal(err)
	}
	notice = bytes.TrimRight(frame, "\n")
	if relist {
		list2 = s.request(t, 4, "tools/list", params(map[string]any{}))
	}
	if frame, err = s.out.ReadBytes('\n'); err != nil {
		t.Fatal(err)
	}
	return notice, list2, bytes.TrimRight(frame, "\n"), time.Since(start)
}

// httpDrift is the raw exchange over HTTP: the call's answer is read as a live SSE stream, and
// the client lists again on the notification while the call's stream waits.
func httpDrift(t *testing.T, url string, modern, relist bool) (notice, list2, answer []byte, took time.Duration) {
	t.Helper()
	s := newHTTPSession(url, modern)
	if modern {
		s.post(t, 1, "server/discover", map[string]any{})
	} else {
		init := s.post(t, 1, "initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "raw-http", "version": "1"}})
		s.sid, s.version = init.resp.Header.Get("Mcp-Session-Id"), "2025-11-25"
		s.post(t, 0, "notifications/initialized", nil)
	}
	driftedSchema(t, s.post(t, 2, "tools/list", map[string]any{}).msg, false)
	params := callParams()
	if modern {
		params = modernMeta(params)
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": params})
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if s.sid != "" {
		req.Header.Set("Mcp-Session-Id", s.sid)
	}
	if s.version != "" {
		req.Header.Set("MCP-Protocol-Version", s.version)
	}
	if modern {
		req.Header.Set("Mcp-Method", "tools/call")
		req.Header.Set("Mcp-Name", "get_account_balance")
	}
	start := time.Now()
	resp, err := s.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		t.Fatalf("the call's answer came as %q, want an SSE stream carrying the notification", ct)
	}
	br := bufio.NewReaderSize(resp.Body, 64<<10)
	isMsg := func(e sseEvent) bool { return len(bytes.TrimSpace(e.data)) > 0 }
	evs := readEvents(t, br, isMsg)
	if len(evs) == 0 {
		t.Fatal("the call's stream ended with no message")
	}
	notice = evs[len(evs)-1].data
	if relist {
		list2 = s.post(t, 4, "tools/list", map[string]any{}).msg
	}
	evs = readEvents(t, br, isMsg)
	if len(evs) == 0 {
		t.Fatal("the call's stream ended with no answer")
	}
	return notice, list2, evs[len(evs)-1].data, time.Since(start)
}
