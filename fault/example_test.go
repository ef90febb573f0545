package fault_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/toolscore/toolscore/fault"
)

// ledgerCall is the ledger's get_account_balance call for ACC-4471 with its real answer, the
// way the proxy hands it to a fault; seed is the proxy's --seed.
func ledgerCall(seed uint64) *fault.Call {
	result, _ := decode([]byte(ledgerAnswer))
	return &fault.Call{
		Tool:      "get_account_balance",
		Arguments: json.RawMessage(`{"account_id":"ACC-4471"}`),
		Result:    result,
		Rand:      rand.New(rand.NewPCG(seed, 1)),
	}
}

// show prints what the fault puts on the wire in place of the ledger's answer.
func show(f fault.Fault, c *fault.Call) {
	eff, err := f.Apply(context.Background(), c)
	if err != nil {
		fmt.Println(err)
		return
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	switch {
	case eff.RPCError != nil:
		enc.Encode(map[string]any{"error": eff.RPCError})
	case eff.Result != nil:
		enc.Encode(eff.Result)
	default:
		b.WriteString("the server's bytes\n")
	}
	if eff.Delay > 0 {
		fmt.Println("after", eff.Delay)
	}
	fmt.Print(b.String())
}

// Every fault and the options it takes, as a manifest writes them beside its name.
func ExampleNames() {
	for _, name := range fault.Names() {
		fmt.Println(name, fault.Options(name))
	}
	// Output:
	// clean []
	// corrupt []
	// corrupt-plausible [decoy_args]
	// drop-required [field]
	// empty []
	// error [message]
	// error-structured [message]
	// error-structured-detail [code message summary]
	// gateway-html [status]
	// http-401 [after description]
	// http-429 [retry_after]
	// http-500 []
	// image-and-text []
	// inject [text]
	// latency [latency]
	// no-content []
	// not-retryable [class code message]
	// oversize-100k [bytes]
	// oversize-1mb [bytes]
	// oversize-25k [bytes]
	// rate-limited [retry_after]
	// rate-limited-429 [retry_after]
	// resource-link [mime_type name uri]
	// result-type [value]
	// rpc-error [code message]
	// scalar-structured [value]
	// schema-bomb [depth field width]
	// schema-dialect [dialect]
	// schema-drift [field to wait]
	// schema-ref [field]
	// session-expired []
	// slow-first-byte [delay]
	// sse-cut [event_id]
	// structured-only []
	// summary-split [summary]
	// task-handle [poll_interval polls]
	// text-only []
	// transient [inner options]
	// truncate []
	// type-swap [field]
	// unknown-tool [as]
	// wrong-container []
}

// Options reach a fault as one JSON object; the fault refuses one it does not take, naming it.
func ExampleNew() {
	f, err := fault.New("latency", json.RawMessage(`{"latency":"150ms"}`))
	fmt.Println(f, err)
	_, err = fault.New("latency", json.RawMessage(`{"decoy_args":{"account_id":"ACC-4476"}}`))
	fmt.Println(err)
	_, err = fault.New("latency", json.RawMessage(`{"latency":"soon"}`))
	fmt.Println(err)
	// Output:
	// &{150ms} <nil>
	// fault latency has no option "decoy_args" (its options: latency)
	// fault latency, option latency: want a duration like 2s or 150ms, got "soon"
}

// The ledger's answer, untouched.
func ExampleClean() {
	f, _ := fault.New("clean", nil)
	show(f, ledgerCall(1))
	// Output:
	// the server's bytes
}

// Ids and amounts change, with separate draws for the text and the structured part.
func ExampleCorrupt() {
	f, _ := fault.New("corrupt", nil)
	show(f, ledgerCall(1))
	// Output:
	// {"content":[{"text":"ACC-4451: balance 40,711.77 USD as of 2026-03-31","type":"text"}],"structuredContent":{"account_id":"ACC-4271","as_of":"2026-03-31","balance_minor":4071870,"currency":"USD"}}
}

// Without decoy_args the amounts move consistently in text and structuredContent; with it, a
// real neighbouring record is fetched and shown under the requested id.
func ExampleCorruptPlausible() {
	f, _ := fault.New("corrupt-plausible", nil)
	show(f, ledgerCall(1))

	f, _ = fault.New("corrupt-plausible", json.RawMessage(`{"decoy_args":{"account_id":"ACC-4476"}}`))
	c := ledgerCall(1)
	c.Fetch = func(ctx context.Context, args json.RawMessage) (map[string]any, error) {
		// The proxy calls the tool on a fresh server; this is the ledger's answer for ACC-4476.
		return decode([]byte(`{"content":[{"type":"text","text":"ACC-4476: balance 39,582.04 USD as of 2026-03-31"}],"structuredContent":{"account_id":"ACC-4476","as_of":"2026-03-31","balance_minor":3958204,"currency":"USD"}}`))
	}
	show(f, c)
	// Output:
	// {"content":[{"text":"ACC-4471: balance 40,718.78 USD as of 2026-03-31","type":"text"}],"structuredContent":{"account_id":"ACC-4471","as_of":"2026-03-31","balance_minor":4071878,"currency":"USD"}}
	// {"content":[{"text":"ACC-4471: balance 39,582.04 USD as of 2026-03-31","type":"text"}],"structuredContent":{"account_id":"ACC-4471","as_of":"2026-03-31","balance_minor":3958204,"currency":"USD"}}
}

// One required field goes: the seed picks it, or the field option names it.
func ExampleDropRequired() {
	f, _ := fault.New("drop-required", json.RawMessage(`{"field":"currency"}`))
	show(f, ledgerCall(1))
	// Output:
	// {"content":[{"text":"ACC-4471: balance 40,718.77 USD as of 2026-03-31","type":"text"}],"structuredContent":{"account_id":"ACC-4471","as_of":"2026-03-31","balance_minor":4071877}}
}

// content: [] and nothing else.
func ExampleEmpty() {
	f, _ := fault.New("empty", nil)
	show(f, ledgerCall(1))
	// Output:
	// {"content":[]}
}

// A tool error in place of the answer; the message option words it.
func ExampleError() {
	f, _ := fault.New("error", json.RawMessage(`{"message":"account locked"}`))
	show(f, ledgerCall(1))
	// Output:
	// {"content":[{"text":"account locked","type":"text"}],"isError":true}
}

// The ledger's answer, late.
func ExampleLatency() {
	f, _ := fault.New("latency", json.RawMessage(`{"latency":"1500ms"}`))
	show(f, ledgerCall(1))
	// Output:
	// after 1.5s
	// the server's bytes
}

// A JSON-RPC error response instead of a result.
func ExampleRPCErrorFault() {
	f, _ := fault.New("rpc-error", nil)
	show(f, ledgerCall(1))
	// Output:
	// {"error":{"code":-32603,"message":"Internal error"}}
}

// The text cut inside a word or number, and no structuredContent.
func ExampleTruncate() {
	f, _ := fault.New("truncate", nil)
	show(f, ledgerCall(1))
	// Output:
	// {"content":[{"text":"ACC-4471: balance 40,718.77 USD as of 2026-03-3","type":"text"}]}
}

// A declared field changes JSON type: a number becomes the string of its digits.
func ExampleTypeSwap() {
	f, _ := fault.New("type-swap", nil)
	show(f, ledgerCall(1))
	// Output:
	// {"content":[{"text":"ACC-4471: balance 40,718.77 USD as of 2026-03-31","type":"text"}],"structuredContent":{"account_id":"ACC-4471","as_of":"2026-03-31","balance_minor":"4071877","currency":"USD"}}
}

// The structured object arrives inside an array.
func ExampleWrongContainer() {
	f, _ := fault.New("wrong-container", nil)
	show(f, ledgerCall(1))
	// Output:
	// {"content":[{"text":"ACC-4471: balance 40,718.77 USD as of 2026-03-31","type":"text"}],"structuredContent":[{"account_id":"ACC-4471","as_of":"2026-03-31","balance_minor":4071877,"currency":"USD"}]}
}
