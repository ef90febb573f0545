package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolscore/toolscore/record"
)

// handshakeServer is an MCP server on stdio whose handshake answer is answer: "refuse" answers
// every initialize with a JSON-RPC error, as a server that will not have this client; a
// revision answers every initialize with that revision, whatever the client asked, as a
// server that speaks only it. server/discover is refused as a 2025-era server refuses it.
// Whoever goes on to call the tool gets a clean answer.
func handshakeServer(answer string) int {
	out := bufio.NewWriter(os.Stdout)
	send := func(id json.RawMessage, body string) {
		out.WriteString(`{"jsonrpc":"2.0","id":` + string(id) + `,` + body + "}\n")
		out.Flush()
	}
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	for {
		line, err := in.ReadBytes('\n')
		if err != nil {
			return 0
		}
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(line, &msg) != nil || len(msg.ID) == 0 {
			continue
		}
		switch msg.Method {
		case "initialize":
			if answer == "refuse" {
				send(msg.ID, `"error":{"code":-32602,"message":"Unsupported protocol version","data":{"supported":["2099-01-01"]}}`)
				continue
			}
			send(msg.ID, `"result":{"protocolVersion":"`+answer+`","capabilities":{"tools":{}},"serverInfo":{"name":"handshake","version":"1"}}`)
		case "tools/list":
			send(msg.ID, `"result":{"tools":[{"name":"echo","inputSchema":{"type":"object"}}]}`)
		case "tools/call":
			send(msg.ID, `"result":{"content":[{"type":"text","text":"ok"}]}`)
		default:
			send(msg.ID, `"error":{"code":-32601,"message":"Method not found"}`)
		}
	}
}

// TestHandshakeFailed sweeps the Go SDK's client and the raw client on the local backend against
// a server that refuses initialize, and one that answers a revision the Go SDK does not speak
// (2099-01-01). The Go SDK raises in both and never calls the tool: each run is
// handshake-failed, never threw, its evidence saying whose it is (the server's refusal; a
// revision the two have not in common). The raw client, which goes on regardless, calls the
// tool and passes: a handshake failure is the client's with that server, not the server's alone.
func TestHandshakeFailed(t *testing.T) {
	for _, c := range []struct {
		answer, evidence string
	}{
		{"refuse", "the server refused initialize (-32602 Unsupported protocol version) and the client made no call"},
		{"2099-01-01", "the client asked for 2025-11-25 in initialize, the server answered 2099-01-01, and the client went no further"},
	} {
		t.Run(c.answer, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			manifest := filepath.Join(dir, "m.yaml")
			writeFile(t, manifest, "name: handshake\nserver:\n  command: [\""+os.Args[0]+"\", badserver, handshake, \""+c.answer+"\"]\n"+
				"tool: echo\narguments: {}\nfaults: [clean]\nschema_modes: [hidden]\nprotocols: [as-is]\nclients: [raw, go-sdk/call]\nruns: 1\ntimeout: 20s\n")
			out := filepath.Join(dir, "out")
			_, stderr, code := toolscore(t, "", "run", manifest, "--backend", "local", "--out", out, "--no-cache")
			if code != 0 {
				t.Fatalf("exit %d:\n%s", code, stderr)
			}
			got := map[string]record.Run{}
			for _, r := range record.RunsIn(out) {
				got[r.Client] = r
			}
			if r := got["go-sdk/call"]; r.Outcome != record.HandshakeFailed || !strings.Contains(r.Evidence, c.evidence) {
				t.Errorf("go-sdk/call: %s (%s), want handshake-failed (%s)", r.Outcome, r.Evidence, c.evidence)
			}
			if r := got["raw"]; r.Outcome != record.Passed {
				t.Errorf("raw: %s (%s), want passed", r.Outcome, r.Evidence)
			}
		})
	}
}
