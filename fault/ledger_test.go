package fault_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolscore/toolscore/internal/ledger"
)

// ledgerAnswer is the real ledger's result for get_account_balance {"account_id": "ACC-4471"},
// byte for byte as its server sends it (TestLedgerAnswerIsTheLedgers checks this against the
// ledger package), so the examples can show it without starting a server.
const ledgerAnswer = `{"content":[{"type":"text","text":"ACC-4471: balance 40,718.77 USD as of 2026-03-31"}],"structuredContent":{"account_id":"ACC-4471","as_of":"2026-03-31","balance_minor":4071877,"currency":"USD"}}`

// ledgerSession is a raw JSON-RPC session with the ledger's MCP server, in-process, so the
// tests see the result's bytes as the proxy would.
type ledgerSession struct {
	conn mcp.Connection
	n    int
}

func startLedger(t testing.TB) *ledgerSession {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	serverEnd, clientEnd := mcp.NewInMemoryTransports()
	ss, err := ledger.NewServer("test").Connect(ctx, serverEnd, nil)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := clientEnd.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(); ss.Close(); cancel() })
	s := &ledgerSession{conn: conn}
	if _, err := s.request("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "fault-test", "version": "1"}}); err != nil {
		t.Fatal(err)
	}
	if err := s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`); err != nil {
		t.Fatal(err)
	}
	return s
}

func (s *ledgerSession) send(frame string) error {
	msg, err := jsonrpc.DecodeMessage([]byte(frame))
	if err != nil {
		return err
	}
	return s.conn.Write(context.Background(), msg)
}

// request sends one request and returns its result's bytes.
func (s *ledgerSession) request(method string, params any) (json.RawMessage, error) {
	s.n++
	p, _ := json.Marshal(params)
	if err := s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, s.n, method, p)); err != nil {
		return nil, err
	}
	for {
		msg, err := s.conn.Read(context.Background())
		if err != nil {
			return nil, err
		}
		if r, ok := msg.(*jsonrpc.Response); ok {
			if r.Error != nil {
				return nil, r.Error
			}
			return r.Result, nil
		}
	}
}

// call returns the ledger's get_account_balance result for args, decoded as the proxy decodes
// it (numbers kept as written).
func (s *ledgerSession) call(ctx context.Context, args json.RawMessage) (map[string]any, error) {
	raw, err := s.request("tools/call", map[string]any{"name": "get_account_balance", "arguments": args})
	if err != nil {
		return nil, err
	}
	return decode(raw)
}

// schema returns get_account_balance's outputSchema from the ledger's tools/list.
func (s *ledgerSession) schema(t testing.TB) map[string]any {
	raw, err := s.request("tools/list", map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Tools []struct {
			Name         string         `json:"name"`
			OutputSchema map[string]any `json:"outputSchema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		t.Fatal(err)
	}
	for _, tool := range list.Tools {
		if tool.Name == "get_account_balance" {
			return tool.OutputSchema
		}
	}
	t.Fatal("the ledger lists no get_account_balance")
	return nil
}

func decode(raw []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var m map[string]any
	return m, dec.Decode(&m)
}

// TestLedgerAnswerIsTheLedgers: the fixture the examples show is what the real ledger says.
func TestLedgerAnswerIsTheLedgers(t *testing.T) {
	raw, err := startLedger(t).request("tools/call", map[string]any{"name": "get_account_balance", "arguments": map[string]any{"account_id": "ACC-4471"}})
	if err != nil {
		t.Fatal(err)
	}
	if string(raw) != ledgerAnswer {
		t.Errorf("the ledger answers\n%s\nthe fixture says\n%s", raw, ledgerAnswer)
	}
}
