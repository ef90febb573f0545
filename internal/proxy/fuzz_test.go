package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/toolscore/toolscore/fault"
	"github.com/toolscore/toolscore/internal/jsonrpc"
)

// frames splits a stream the way the proxy does: each frame keeps its newline, the last may
// have none.
func frames(b []byte) [][]byte {
	var out [][]byte
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			return append(out, b)
		}
		out = append(out, b[:i+1])
		b = b[i+1:]
	}
	return out
}

// clientCalls are the requests a fuzzed server stream answers: ids 1-3 are target calls, 4 a
// tools/list.
const clientCalls = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{"account_id":"ACC-1"}}}
{"jsonrpc":"2.0","id":"2","method":"tools/call","params":{"name":"t","arguments":{}}}
{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"t"}}
{"jsonrpc":"2.0","id":4,"method":"tools/list"}
`

// FuzzServerToClient feeds arbitrary server output, after target calls were made, through every
// fault: nothing panics, no frame is lost or reordered, and every frame the fault did not touch
// passes byte for byte.
func FuzzServerToClient(f *testing.F) {
	f.Add(uint8(0), []byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"ACC-1: balance 40,718.77 USD as of 2026-03-31"}],"structuredContent":{"account_id":"ACC-1","balance_minor":4071877,"currency":"USD","as_of":"2026-03-31"}}}`+"\n"))
	f.Add(uint8(3), []byte(`{"jsonrpc":"2.0","id":"2","result":{"content":[],"structuredContent":[1,2]}}`+"\n"+`garbage`+"\n"+`{"id":3,"error":{"code":1,"message":"x"}}`))
	f.Add(uint8(5), []byte(`{"jsonrpc":"2.0","id":4,"result":{"tools":[{"name":"t","outputSchema":{"type":"object","required":["a"]}}]}}`+"\n"+`{"id":1,"result":{"structuredContent":{"a":"9","b":true,"c":null,"d":1.5e3}}}`))
	f.Add(uint8(7), []byte("{\"id\":1,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"\xff\xfe 12,34\"}]}}\r\n\n\n{\"id\":[1],\"method\":\"x\"}"))
	names := fault.Names()
	f.Fuzz(func(t *testing.T, pick uint8, server []byte) {
		name := names[int(pick)%len(names)]
		var options json.RawMessage
		if strings.HasPrefix(name, "oversize-") {
			options = json.RawMessage(`{"bytes":256}`) // a MiB per input would spend the budget on copying
		}
		ft, err := fault.New(name, options)
		if err != nil {
			t.Fatal(err)
		}
		p := New(Config{Fault: ft, FaultName: name, Probability: 1, Seed: 1, Schema: Hidden}, nil)
		var toServer, toClient bytes.Buffer
		if err := p.ClientToServer(context.Background(), bytes.NewReader([]byte(clientCalls)), &toServer, &toClient); err != nil {
			t.Fatal(err)
		}
		if toServer.String() != clientCalls {
			t.Fatalf("client frames changed on the way:\n%q", toServer.String())
		}
		switch name {
		case "latency":
			return // the same bytes as clean, only late: not worth a 2 s sleep per input
		case "schema-drift":
			// A frame of the proxy's own, and answers held on a goroutine of their own: frames in
			// are not frames out. TestSchemaDriftOnTheWire and FuzzSchemaFaults cover it.
			return
		}
		if err := p.ServerToClient(context.Background(), bytes.NewReader(server), &toClient); err != nil {
			t.Fatal(err)
		}
		in, out := frames(server), frames(toClient.Bytes())
		if len(in) != len(out) {
			t.Fatalf("%s: %d frames in, %d out\nin  %q\nout %q", name, len(in), len(out), in, out)
		}
		answered := map[string]bool{}
		for i := range in {
			if bytes.Equal(in[i], out[i]) {
				continue
			}
			env, ok := jsonrpc.ParseMessage(in[i])
			key := idKey(env.ID)
			if !ok || env.Method != "" || answered[key] || (key != "1" && key != `"2"` && key != "3" && key != "4") {
				t.Fatalf("%s: frame %d changed though it answers no pending call:\nin  %q\nout %q", name, i, in[i], out[i])
			}
			answered[key] = true
			var msg struct {
				ID json.RawMessage `json:"id"`
			}
			if err := json.Unmarshal(out[i], &msg); err != nil || idKey(msg.ID) != key {
				t.Fatalf("%s: rewritten frame %d is not JSON with the same id: %v\n%q", name, i, err, out[i])
			}
		}
	})
}

// FuzzClientToServer: whatever a client writes reaches the server byte for byte.
func FuzzClientToServer(f *testing.F) {
	f.Add([]byte(clientCalls))
	f.Add([]byte("{\"id\":{\"a\":1},\"method\":\"tools/call\",\"params\":{\"name\":\"\\u0074\"}}\n[1,2]\n\x00\xff"))
	f.Fuzz(func(t *testing.T, client []byte) {
		p := New(Config{Probability: 0.5, Seed: 2}, nil)
		var toServer, toClient bytes.Buffer
		if err := p.ClientToServer(context.Background(), bytes.NewReader(client), &toServer, &toClient); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(toServer.Bytes(), client) || toClient.Len() > 0 {
			t.Fatalf("client bytes changed:\nin  %q\nout %q\nanswered %q", client, toServer.Bytes(), toClient.Bytes())
		}
	})
}

// FuzzClientToServerCapped: under a protocol cap, each client frame reaches the server byte for
// byte, except an initialize asking for more than the cap (forwarded asking for the cap, nothing
// else changed) and a request (valid JSON) only 2026-07-28 knows under a 2025-era cap (answered -32601 by the
// proxy, never forwarded).
func FuzzClientToServerCapped(f *testing.F) {
	f.Add(uint8(1), []byte(`{"jsonrpc":"2.0","id":0,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`+"\n"+
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}`+"\n"+clientCalls))
	f.Add(uint8(2), []byte(`{"id":"a","method":"initialize","params":{"protocolVersion":"2025-06-18","protocolVersion":"9999"}}`+"\n"+`{"id":null,"method":"server/discover"}`))
	f.Add(uint8(0), []byte(`{"id":[1],"method":"subscriptions/listen"}`+"\n"+`{"id":2,"method":"initialize","params":[]}`))
	f.Fuzz(func(t *testing.T, pick uint8, client []byte) {
		cap := Revisions[int(pick)%len(Revisions)]
		p := New(Config{Protocol: Protocol(cap)}, nil)
		var toServer, toClient bytes.Buffer
		if err := p.ClientToServer(context.Background(), bytes.NewReader(client), &toServer, &toClient); err != nil {
			t.Fatal(err)
		}
		in, out, answered := frames(client), frames(toServer.Bytes()), frames(toClient.Bytes())
		for _, frame := range in {
			env, ok := jsonrpc.ParseMessage(frame)
			if ok && idKey(env.ID) != "" && cap < modern && modernOnly[env.Method] && json.Valid(frame) {
				if len(answered) == 0 {
					t.Fatalf("%s: %q was not answered by the proxy", cap, frame)
				}
				var msg struct {
					ID    json.RawMessage    `json:"id"`
					Error struct{ Code int } `json:"error"`
				}
				if err := json.Unmarshal(answered[0], &msg); err != nil || idKey(msg.ID) != idKey(env.ID) || msg.Error.Code != -32601 {
					t.Fatalf("%s: answer %q to %q is not -32601 with the same id (%v)", cap, answered[0], frame, err)
				}
				answered = answered[1:]
				continue
			}
			if len(out) == 0 {
				t.Fatalf("%s: %q never reached the server", cap, frame)
			}
			got := out[0]
			out = out[1:]
			if bytes.Equal(got, frame) {
				continue
			}
			var was, now map[string]any
			if !ok || env.Method != "initialize" || json.Unmarshal(frame, &was) != nil || json.Unmarshal(got, &now) != nil {
				t.Fatalf("%s: %q changed on the way to %q", cap, frame, got)
			}
			params, _ := now["params"].(map[string]any)
			if params["protocolVersion"] != cap {
				t.Fatalf("%s: initialize forwarded asking for %v:\nin  %q\nout %q", cap, params["protocolVersion"], frame, got)
			}
			wasParams, _ := was["params"].(map[string]any)
			wasParams["protocolVersion"] = cap
			if !reflect.DeepEqual(was, now) {
				t.Fatalf("%s: initialize changed beyond its protocolVersion:\nin  %q\nout %q", cap, frame, got)
			}
		}
		if len(out) > 0 || len(answered) > 0 {
			t.Fatalf("%s: frames out of nowhere: to the server %q, to the client %q", cap, out, answered)
		}
	})
}
