package ledger

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Balance is the structured result of get_account_balance; every field is required.
type Balance struct {
	AccountID    string `json:"account_id" jsonschema:"the account's id, e.g. ACC-4471"`
	BalanceMinor int64  `json:"balance_minor" jsonschema:"the balance in minor units (cents)"`
	Currency     string `json:"currency" jsonschema:"ISO 4217 currency code"`
	AsOf         string `json:"as_of" jsonschema:"the date the balance holds for, YYYY-MM-DD"`
}

// BalanceArgs are get_account_balance's arguments.
type BalanceArgs struct {
	AccountID string `json:"account_id" jsonschema:"the account's id, e.g. ACC-4471"`
}

// Accounts is the ledger's fixed book; ACC-4471 is the demo's truth and the others are its
// neighbours, which corrupt-plausible can present under the requested id.
var Accounts = map[string]Balance{
	"ACC-4471": {"ACC-4471", 4071877, "USD", "2026-03-31"},
	"ACC-4476": {"ACC-4476", 3958204, "USD", "2026-03-31"},
	"ACC-9471": {"ACC-9471", 1250033, "USD", "2026-03-31"},
	"ACC-4417": {"ACC-4417", 4071000, "USD", "2026-03-30"},
	"ACC-7001": {"ACC-7001", 88200, "EUR", "2026-03-31"},
}

// Text renders a balance as the tool's text block, the same facts as its structured form.
func Text(b Balance) string {
	return fmt.Sprintf("%s: balance %s %s as of %s", b.AccountID, Major(b.BalanceMinor), b.Currency, b.AsOf)
}

// Major formats minor units as a major amount with thousands separators: 4071877 -> 40,718.77.
func Major(minor int64) string {
	sign := ""
	if minor < 0 {
		sign, minor = "-", -minor
	}
	whole := fmt.Sprint(minor / 100)
	var b strings.Builder
	for i, r := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return fmt.Sprintf("%s%s.%02d", sign, b.String(), minor%100)
}

// NewServer returns the ledger MCP server, ready to run on any transport.
func NewServer(version string) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "toolscore-ledger", Version: version}, nil)
	mcp.AddTool(s, &mcp.Tool{
		Name:        "get_account_balance",
		Description: "Returns the balance of one ledger account, in minor units, with its currency and date.",
	}, getBalance)
	mcp.AddTool(s, &mcp.Tool{
		Name:        "list_accounts",
		Description: "Lists the ids of the ledger's accounts.",
	}, listAccounts)
	return s
}

func getBalance(_ context.Context, _ *mcp.CallToolRequest, in BalanceArgs) (*mcp.CallToolResult, Balance, error) {
	b, ok := Accounts[in.AccountID]
	if !ok {
		// A returned error becomes an isError result, which is what a real ledger would say.
		return nil, Balance{}, fmt.Errorf("unknown account %q", in.AccountID)
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: Text(b)}}}, b, nil
}

// AccountList is the structured result of list_accounts.
type AccountList struct {
	Accounts []string `json:"accounts"`
}

func listAccounts(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, AccountList, error) {
	ids := make([]string, 0, len(Accounts))
	for id := range Accounts {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Join(ids, ", ")}}}, AccountList{ids}, nil
}

// Serve runs the ledger on stdin/stdout until the client closes its end.
func Serve(ctx context.Context, version string) error {
	return NewServer(version).Run(ctx, &mcp.StdioTransport{})
}

// HTTPPath is where ServeHTTP answers MCP.
const HTTPPath = "/mcp"

// HTTPOptions says how the ledger answers over streamable HTTP.
type HTTPOptions struct {
	// JSON answers a POST with one application/json body instead of an SSE stream.
	JSON bool
	// Stateless keeps no session: no Mcp-Session-Id, and GET and DELETE are refused, as a
	// sessionless (2026-07-28 style) server does.
	Stateless bool
}

// ServeHTTP runs the ledger over streamable HTTP on l until ctx ends. Its SSE streams keep
// their events, so a client can resume with Last-Event-ID.
func ServeHTTP(ctx context.Context, l net.Listener, version string, o HTTPOptions) error {
	s := NewServer(version)
	mux := http.NewServeMux()
	mux.Handle(HTTPPath, mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{
		JSONResponse: o.JSON,
		Stateless:    o.Stateless,
		EventStore:   mcp.NewMemoryEventStore(nil),
	}))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	if err := srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
