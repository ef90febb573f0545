package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/toolscore/toolscore/internal/grade"
	"github.com/toolscore/toolscore/internal/transcript"
	"github.com/toolscore/toolscore/record"
)

// checkTaskHandle: the answer to the call is a task handle in the shape of the session's
// revision (a 2026-07-28 session's direct answer carries resultType), with nothing of the
// tool's result; it returns the task's id.
func checkTaskHandle(t *testing.T, w wireResult, modern bool) string {
	t.Helper()
	result, _ := w.raw["result"].(map[string]any)
	task := result
	if !modern {
		task, _ = result["task"].(map[string]any)
		if len(result) != 1 {
			t.Errorf("a 2025-11-25 task handle holds the task alone, got %v", result)
		}
	} else if result["resultType"] != "task" {
		t.Errorf(`want resultType "task" under 2026-07-28, got %v`, result)
	}
	id, _ := task["taskId"].(string)
	ttl, interval := "ttl", "pollInterval"
	if modern {
		ttl, interval = "ttlMs", "pollIntervalMs"
	}
	if !strings.HasPrefix(id, "task-") || task["status"] != "working" || task["createdAt"] == nil || task["lastUpdatedAt"] != task["createdAt"] {
		t.Errorf("want a working task with an id and its times, got %v", result)
	}
	if v, ok := task[ttl]; !ok || v != nil || task[interval] != 100.0 {
		t.Errorf("want %s null and %s 100, got %v", ttl, interval, task)
	}
	if _, ok := result["content"]; ok || result["structuredContent"] != nil {
		t.Errorf("the handle carries the tool's result: %v", result)
	}
	return id
}

// taskSession is a raw client of either transport: one request, its answer's bytes.
type taskSession interface {
	request(t *testing.T, id int, method string, params map[string]any) []byte
}

type stdioTasks struct {
	s      *wireSession
	modern bool
}

func (s stdioTasks) request(t *testing.T, id int, method string, params map[string]any) []byte {
	if s.modern {
		params = modernMeta(params)
	}
	return s.s.request(t, id, method, params)
}

type httpTasks struct{ s *httpSession }

func (s httpTasks) request(t *testing.T, id int, method string, params map[string]any) []byte {
	return s.s.post(t, id, method, params).msg
}

// TestTaskHandlePolled: under both revisions, on stdio and over HTTP, a raw client gets a task
// handle instead of the result; polling it, tasks/get answers working, then completed (under
// 2026-07-28 with the result inline), and tasks/result the server's real result, tied to the
// task; the server never sees a tasks request. The grader then reads each way a client can
// take it from the real transcript: the real result is passed, the handle returned as the
// result is altered, a raise threw, no answer hung, each with the polls in its evidence.
func TestTaskHandlePolled(t *testing.T) {
	for _, transport := range []string{"stdio", "http"} {
		for _, protocol := range []string{"2025-11-25", modernRevision} {
			for _, polls := range []bool{true, false} {
				name := fmt.Sprintf("%s/%s/polled=%v", transport, protocol, polls)
				t.Run(name, func(t *testing.T) {
					t.Parallel()
					modern := protocol == modernRevision
					flags := []string{"--fault", "task-handle", "--tool", "get_account_balance", "--schema", "hidden", "--protocol", protocol, "--seed", "7"}
					var s taskSession
					var direct []byte
					var tee string
					var stop func()
					if transport == "stdio" {
						exchange := rawExchange
						if modern {
							exchange = modernExchange
						}
						_, direct, _ = exchange(t, []string{os.Args[0], "ledger"})
						tee = filepath.Join(t.TempDir(), "tee.jsonl")
						w := startWire(t, append(append([]string{os.Args[0], "proxy", "--tee", tee}, flags...), "--", os.Args[0], "ledger"))
						s, stop = stdioTasks{w, modern}, func() { w.close(t) }
						openTaskSession(t, s.(stdioTasks), modern)
					} else {
						var ledgerFlags []string
						if modern {
							ledgerFlags = []string{"--stateless"}
						}
						_, call, _ := httpExchange(t, directLedger(t, ledgerFlags...), modern)
						direct = call.msg
						h := startHTTPProxy(t, flags, ledgerFlags)
						hs := newHTTPSession(h.url, modern)
						s, tee, stop = httpTasks{hs}, h.tee, func() { h.stop(t) }
						if modern {
							s.request(t, 1, "server/discover", map[string]any{})
						} else {
							init := hs.post(t, 1, "initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "raw-http", "version": "1"}})
							hs.sid, hs.version = init.resp.Header.Get("Mcp-Session-Id"), "2025-11-25"
							if n := hs.post(t, 0, "notifications/initialized", nil); n.resp.StatusCode != http.StatusAccepted {
								t.Fatalf("notifications/initialized: status %d", n.resp.StatusCode)
							}
						}
					}
					call := s.request(t, 3, "tools/call", map[string]any{"name": "get_account_balance", "arguments": map[string]any{"account_id": "ACC-4471"}})
					id := checkTaskHandle(t, decode(t, call), modern)
					real := resultOf(t, direct)
					if polls {
						for n, want := range []string{"working", "completed"} {
							got := resultOf(t, s.request(t, 10+n, "tasks/get", map[string]any{"taskId": id}))
							if got["taskId"] != id || got["status"] != want {
								t.Errorf("tasks/get %d: want %s, got %v", n+1, want, got)
							}
							inline, has := got["result"]
							if modern && want == "completed" {
								if !reflect.DeepEqual(inline, real) {
									t.Errorf("a completed tasks/get under 2026-07-28 carries the result inline:\n got %v\nwant %v", inline, real)
								}
							} else if has {
								t.Errorf("tasks/get %d carries a result: %v", n+1, got)
							}
						}
						got := resultOf(t, s.request(t, 20, "tasks/result", map[string]any{"taskId": id}))
						meta, _ := got["_meta"].(map[string]any)
						if tie, _ := meta["io.modelcontextprotocol/related-task"].(map[string]any); tie["taskId"] != id {
							t.Errorf("tasks/result is not tied to task %s: %v", id, got)
						}
						delete(meta, "io.modelcontextprotocol/related-task")
						if len(meta) == 0 {
							delete(got, "_meta")
						}
						if !reflect.DeepEqual(got, real) {
							t.Errorf("tasks/result is not the server's result:\n got %v\nwant %v", got, real)
						}
						if bad := decode(t, s.request(t, 21, "tasks/get", map[string]any{"taskId": "task-nope"})); bad.Error == nil || bad.Error.Code != -32602 {
							t.Errorf("tasks/get of an unknown task: want -32602, got %v", bad.raw)
						}
					}
					stop()
					entries, err := transcript.ReadForGrading(tee)
					if err != nil {
						t.Fatal(err)
					}
					for _, r := range entries {
						if r.Dir == transcript.ClientToServer && bytes.Contains(r.Wire, []byte(`"tasks/`)) && !strings.HasPrefix(r.Note, "answered by the proxy") {
							t.Errorf("a tasks request went to the server: %s", r.Wire)
						}
					}
					followed := "never asked about"
					if polls {
						followed = "the client polled it 2 time(s): tasks/get 1 working, tasks/get 2 completed"
					}
					handle, _ := json.Marshal(decode(t, call).raw["result"])
					realJSON, _ := json.Marshal(real)
					for _, c := range []struct {
						stdout   string
						timedOut bool
						outcome  record.Outcome
						evidence string
					}{
						{`{"client":"x","returned":` + string(handle) + `}`, false, record.Altered, "the client returned no more than the task handle carries (its content and structuredContent) instead of the task's result; "},
						{`{"client":"x","raised":{"class":"McpError","message":"invalid result"}}`, false, record.Threw, "McpError: invalid result; "},
						{``, true, record.Hung, "no observation within"},
						{`{"client":"x","returned":` + string(realJSON) + `}`, false, map[bool]record.Outcome{true: record.Passed, false: record.Altered}[polls], ""},
					} {
						out := filepath.Join(t.TempDir(), "stdout")
						os.WriteFile(out, []byte(c.stdout+"\n"), 0o644)
						g := grade.SDK(grade.Run{Stdout: out, TimedOut: c.timedOut}, entries)
						if g.Outcome != c.outcome || !strings.Contains(g.Evidence, c.evidence) || !strings.Contains(g.Evidence, followed) || !strings.Contains(g.Evidence, id) {
							t.Errorf("%.40s: graded %s: %s\nwant %s, with %q and %q", c.stdout, g.Outcome, g.Evidence, c.outcome, c.evidence, followed)
						}
					}
				})
			}
		}
	}
}

// openTaskSession opens a stdio session as a client of the revision does.
func openTaskSession(t *testing.T, s stdioTasks, modern bool) {
	t.Helper()
	if modern {
		s.request(t, 1, "server/discover", map[string]any{})
		return
	}
	s.request(t, 1, "initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "raw", "version": "1"}})
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	if _, err := s.s.in.Write(append(b, '\n')); err != nil {
		t.Fatal(err)
	}
}

// resultOf is the result object of a response frame, numbers as float64.
func resultOf(t *testing.T, frame []byte) map[string]any {
	t.Helper()
	var msg struct {
		Result map[string]any `json:"result"`
	}
	if err := json.Unmarshal(frame, &msg); err != nil || msg.Result == nil {
		t.Fatalf("no result: %v: %s", err, frame)
	}
	return msg.Result
}

// taskHandleWant is what each client of the study does with an unasked task handle, found by
// running the full product (every client and agent, both schema modes, both protocols, stdio
// and http) once: no client polls. Not one sends tasks/get or tasks/result, so none gets the
// real result; what differs is whether the handle is handed over as the tool's result (altered)
// or refused (threw, or for an agent rejected). The protocol and the transport change nothing
// (each client gets the handle in the shape of the revision it negotiated); the schema mode
// changes the two that check a published outputSchema:
//
//   - raw hands over the answer's result as it came (internal/client/raw.go:82): the handle;
//   - go-sdk v1.8.0 reads a result with CallToolResult.UnmarshalJSON, which takes content and
//     resultType and drops every other member (mcp/protocol.go:390-407), and checks a resultType
//     for input_required only (NeedsInput, mcp/protocol.go:370): the handle becomes an empty
//     result, content [], under either revision;
//   - @modelcontextprotocol/sdk 1.32.2 parses the answer with CallToolResultSchema, a loose
//     object whose content defaults to [] (dist/esm/types.js:1289-1296, client/index.js:484):
//     the handle passes as an empty result. On list-then-call with the schema published it
//     knows the outputSchema and throws "has an output schema but did not return structured
//     content" (client/index.js:486-490);
//   - mcp-go v1.2.1 refuses a result without content unless it is input_required
//     (mcp/utils.go:871-873): "content is missing", under both revisions;
//   - @modelcontextprotocol/client 2.4.0 refuses a contentless result that carries the member of
//     another result family ('task'; dist/src-CeKsbNLO.mjs:1956-1964, rejected at 6246-6248);
//   - mcp 2.3.0 (Python) validates the answer as CallToolResult, whose content is required
//     (mcp_types/_types.py:1472, by mcp/client/session.py:1086-1099): a ValidationError;
//   - Claude Code 2.1.332 (binaries, quoted by message): in a 2026 session "Unsupported result
//     type 'task' for tools/call", in a 2025 one its SDK's result schema refuses it ("returned a
//     malformed result that failed schema validation"); Codex 0.171.0: "tool call failed …
//     Unexpected response type"; both tell the model it is an error;
//   - Gemini CLI 0.61.0 calls through the bundled @modelcontextprotocol/sdk 1.x callTool: with
//     the schema hidden the handle passes as an empty result, so the model gets nothing of the
//     task's result (altered, as for ts-sdk/call), with it published the SDK's check throws
//     (bundle/chunk-5FZXKDXH.js:305124) and the model is told of an error.
//
// The scripted model answers by quoting what it got, so no agent answers a value, and each
// answer is flagged.
func taskHandleWant(client, schema string) record.Outcome {
	switch {
	case client == "raw", strings.HasPrefix(client, "go-sdk/"), client == "ts-sdk/call":
		return record.Altered
	case client == "ts-sdk/list-then-call":
		return map[string]record.Outcome{"hidden": record.Altered, "published": record.Threw}[schema]
	case client == "claude-code", client == "codex":
		return "rejected"
	case client == "gemini-cli":
		return map[string]record.Outcome{"hidden": record.Altered, "published": "rejected"}[schema]
	}
	return record.Threw // mcp-go, ts-client-v2, python-sdk
}

// TestTaskHandleOnDocker runs task-handle through the clients of the study on the docker
// backend and checks each count against taskHandleWant, and that the evidence of every run says
// the client never asked about the task. Under TOOLSCORE_FULL=1 the full product: every client
// and agent × both schema modes × both protocols × stdio and http; otherwise one cell each of
// three clients that differ (the handle handed over, refused by the Go and the Python SDK).
func TestTaskHandleOnDocker(t *testing.T) {
	engine(t)
	clients, schemas, protocols, transports := "go-sdk/call,mcp-go/call,python-sdk/call", "hidden", "2025-11-25", "stdio"
	if fullProduct() {
		clients, schemas, protocols, transports = studyClients, "hidden, published", "2025-11-25, "+modernRevision, "stdio, http"
	}
	manifest := filepath.Join(t.TempDir(), "task-handle.yaml")
	os.WriteFile(manifest, []byte(`name: task handle
server: {builtin: ledger}
tool: get_account_balance
arguments: {account_id: ACC-4471}
prompt: What is the balance of ledger account ACC-4471? Answer with the amount and currency.
truth: ["40718.77", "4071877"]
faults: [task-handle]
schema_modes: [`+schemas+`]
protocols: [`+protocols+`]
transports: [`+transports+`]
clients: [`+clients+`]
runs: 1
`), 0o644)
	out := t.TempDir()
	code, _, stderr := runStatic(t, manifest, "--backend", "docker", "--parallel", "2", "--out", out)
	if code != 0 {
		t.Fatalf("the sweep exited %d:\n%s", code, stderr)
	}
	res := readResultsDir(t, out)
	want := len(clientList(clients)) * len(strings.Split(schemas, ",")) * len(strings.Split(protocols, ",")) * len(strings.Split(transports, ","))
	if len(res.Unavailable) > 0 || len(res.Cells) != want {
		t.Fatalf("%d cells, unavailable %v; want %d and none", len(res.Cells), res.Unavailable, want)
	}
	for _, c := range res.Cells {
		w := string(taskHandleWant(c.Client, c.Schema))
		if c.Outcome[w] != 1 {
			t.Errorf("%s: %s, want %s 1/1 (evidence: %v)", c.Coordinates(), c.Counts(), w, c.Examples)
		}
		if ev := c.Examples[w].Evidence; !strings.Contains(ev, "which the client never asked about (no tasks/get, no tasks/result)") {
			t.Errorf("%s: the evidence does not say the task was never polled: %q", c.Coordinates(), ev)
		}
		if c.Answer != nil && (c.Answer["no-value"] != 1 || c.Answer["flagged"] != 1) {
			t.Errorf("%s: answers %v, want no-value and flagged", c.Coordinates(), c.Answer)
		}
	}
}
