package proxy

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/toolscore/toolscore/fault"
	"github.com/toolscore/toolscore/internal/transcript"
)

// refSchema has its required fields under a $ref, as the hostile server's ref-schema tool does.
const refSchema = `{"$ref":"#/$defs/R","$defs":{"R":{"type":"object","required":["id","value"],"properties":{"value":{"type":["integer","string"]}}}}}`

// schemaServer is a streamable HTTP MCP server written by hand: its tools/list comes in two
// pages, the second over SSE, and it logs each request as "session method".
type schemaServer struct {
	mu       sync.Mutex
	log      []string
	sessions int
}

func (s *schemaServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Cursor string `json:"cursor"`
		} `json:"params"`
	}
	body, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(body, &msg)
	s.mu.Lock()
	session := r.Header.Get("Mcp-Session-Id")
	if msg.Method == "initialize" {
		s.sessions++
		session = fmt.Sprintf("s%d", s.sessions)
	}
	s.log = append(s.log, session+" "+r.Method+" "+msg.Method)
	s.mu.Unlock()
	w.Header().Set("Mcp-Session-Id", session)
	result := func(v string) string { return `{"jsonrpc":"2.0","id":` + string(msg.ID) + `,"result":` + v + `}` }
	switch {
	case r.Method == http.MethodDelete:
	case msg.Method == "initialize":
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, result(`{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}`))
	case len(msg.ID) == 0:
		w.WriteHeader(http.StatusAccepted)
	case msg.Method == "tools/list" && msg.Params.Cursor == "":
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, result(`{"tools":[{"name":"other","inputSchema":{"type":"object"}}],"nextCursor":"p2"}`))
	case msg.Method == "tools/list":
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{}}\n\n")
		io.WriteString(w, "event: message\ndata: "+result(`{"tools":[{"name":"read","inputSchema":{"type":"object"},"outputSchema":`+refSchema+`}]}`)+"\n\n")
	case msg.Method == "tools/call":
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, result(`{"content":[{"type":"text","text":"r-1: 42"}],"structuredContent":{"id":"r-1","value":42,"note":"calm","unit":"mm"}}`))
	}
}

// TestSchemaFaultOverHTTP: through the HTTP proxy, a client that never lists the tools gets
// type-swap on the schema the server publishes (asked over a session of the proxy's own, both
// pages, then closed with DELETE): its value leaves the [integer, string] union. The client's
// session never carries a tools/list, and the transcript has the schema event.
func TestSchemaFaultOverHTTP(t *testing.T) {
	srv := &schemaServer{}
	up := httptest.NewServer(srv)
	defer up.Close()
	u, _ := http.NewRequest(http.MethodPost, up.URL+"/mcp", nil)
	f, _ := fault.New("type-swap", nil)
	var tr bytes.Buffer
	tee := transcript.NewTee(&tr)
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		_, err := RunHTTP(ctx, HTTPRun{Listen: "127.0.0.1:0", Upstream: Upstream{URL: u.URL}}, Config{Fault: f, FaultName: "type-swap", Probability: 1, Seed: 1}, tee, pw, io.Discard)
		done <- err
	}()
	endpoint, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	endpoint = strings.TrimSpace(endpoint)
	session := ""
	post := func(body string) string {
		req, _ := http.NewRequest(http.MethodPost, endpoint, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		session = resp.Header.Get("Mcp-Session-Id")
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	answer := post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read","arguments":{}}}`)
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := tee.Close(); err != nil {
		t.Fatal(err)
	}
	if want := `"structuredContent":{"id":"r-1","note":"calm","unit":"mm","value":[42]}`; !strings.Contains(answer, want) {
		t.Errorf("the faulted answer is\n%s\nwant it to hold %s", answer, want)
	}
	srv.mu.Lock()
	log := strings.Join(srv.log, "\n")
	srv.mu.Unlock()
	// The call goes on as it came; its answer is faulted after the proxy asked for the schema.
	want := "s1 POST initialize\ns1 POST notifications/initialized\ns1 POST tools/call\ns2 POST initialize\ns2 POST notifications/initialized\ns2 POST tools/list\ns2 POST tools/list\ns2 DELETE "
	if log != want {
		t.Errorf("the server saw\n%s\nwant\n%s", log, want)
	}
	if !strings.Contains(tr.String(), `"event":"schema"`) || !strings.Contains(tr.String(), `"tools":["read"]`) {
		t.Errorf("the transcript has no schema event naming the tool read:\n%s", tr.String())
	}
}

// TestFaultSchemaSources: which schema drop-required picks from, in order: what the server says
// when the proxy asks it, else the manifest's; this session's tools/list only where the proxy
// could not ask; and with none of them, the note says why.
func TestFaultSchemaSources(t *testing.T) {
	requires := func(f string) map[string]any { return map[string]any{"required": []any{f}} }
	broken := errors.New("the server would not start")
	for _, tc := range []struct {
		name     string
		schemas  func(context.Context) (map[string]map[string]any, error)
		manifest string
		list     bool // the client asked for tools/list, which says c is required
		dropped  string
		note     string
	}{
		{"the server's", func(context.Context) (map[string]map[string]any, error) {
			return map[string]map[string]any{"t": requires("a")}, nil
		}, `{"required":["b"]}`, true, "a", ""},
		{"the manifest's", func(context.Context) (map[string]map[string]any, error) { return map[string]map[string]any{}, nil }, `{"required":["b"]}`, true, "b", ""},
		{"none published", func(context.Context) (map[string]map[string]any, error) { return map[string]map[string]any{}, nil }, "", true, "",
			`no outputSchema for t (the server publishes none for t; the manifest sets no output_schema): dropped "`},
		{"the session's, the server not asked", func(context.Context) (map[string]map[string]any, error) { return nil, broken }, `{"required":["b"]}`, true, "c", ""},
		{"the manifest's, the server not asked", func(context.Context) (map[string]map[string]any, error) { return nil, broken }, `{"required":["b"]}`, false, "b", ""},
		{"none, the server not asked", nil, "", false, "",
			`no outputSchema for t (the proxy cannot ask the server itself, and this session's tools/list (if the client asked for one) had none for t; the manifest sets no output_schema): dropped "`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, _ := fault.New("drop-required", nil)
			var tr bytes.Buffer
			tee := transcript.NewTee(&tr)
			p := New(Config{Fault: f, FaultName: "drop-required", Probability: 1, Seed: 1, Schemas: tc.schemas, OutputSchema: json.RawMessage(tc.manifest)}, tee)
			client := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"}}` + "\n"
			server := `{"jsonrpc":"2.0","id":1,"result":{"structuredContent":{"a":1,"b":2,"c":3,"d":4}}}` + "\n"
			if tc.list {
				client = `{"jsonrpc":"2.0","id":0,"method":"tools/list"}` + "\n" + client
				server = `{"jsonrpc":"2.0","id":0,"result":{"tools":[{"name":"t","outputSchema":{"required":["c"]}}]}}` + "\n" + server
			}
			var toServer, toClient bytes.Buffer
			if err := p.ClientToServer(context.Background(), strings.NewReader(client), &toServer, &toClient); err != nil {
				t.Fatal(err)
			}
			if err := p.ServerToClient(context.Background(), strings.NewReader(server), &toClient); err != nil {
				t.Fatal(err)
			}
			if err := tee.Close(); err != nil {
				t.Fatal(err)
			}
			var faulted transcript.Record
			for _, line := range strings.Split(tr.String(), "\n") {
				if strings.Contains(line, `"introduced"`) {
					_ = json.Unmarshal([]byte(line), &faulted)
				}
			}
			if len(faulted.Introduced) != 1 {
				t.Fatalf("no faulted answer in the transcript:\n%s", tr.String())
			}
			dropped := strings.TrimPrefix(faulted.Introduced[0].Path, "structuredContent.")
			if tc.dropped != "" && dropped != tc.dropped || !strings.HasPrefix(faulted.Note, tc.note) || tc.note == "" && faulted.Note != "" {
				t.Errorf("dropped %s, note %q; want %s, a note starting %q", dropped, faulted.Note, tc.dropped, tc.note)
			}
			if asked := strings.Contains(tr.String(), `"event":"schema"`); asked != (tc.schemas != nil) {
				t.Errorf("schema event: %v, want %v", asked, tc.schemas != nil)
			}
		})
	}
}
