package proxy

import (
	"flag"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/toolscore/toolscore/scenario"
)

// TestFlagsRoundTrip: a proxy's flags written by Args and read back by ParseArgs are the flags
// written, for every field of Flags set away from its default (a field added without its flag
// fails here), for the defaults, and for the zero Flags.
func TestFlagsRoundTrip(t *testing.T) {
	t.Setenv("FLAGS_TEST_TOKEN", "tok")
	t.Setenv("FLAGS_TEST_AUTH", "Bearer x")
	every := Flags{
		Listen: "127.0.0.1:0", Fault: "corrupt", Tool: "lookup", Schema: "as-is", Seed: 42,
		Tee: "/run/toolscore/tee.jsonl", Probability: 0.25, Nth: 2, Options: `{"latency":"300ms"}`,
		OutputSchema: "/run/toolscore/output-schema.json", Protocol: "2025-11-25",
		Env: []string{"FLAGS_TEST_TOKEN", "PATH"}, Upstream: "http://127.0.0.1:9/mcp",
		Header: []string{"Authorization=FLAGS_TEST_AUTH"}, Path: "/v1/mcp",
		Command: []string{"/usr/bin/env", "my-server", "--port", scenario.PortPlaceholder},
	}
	d, fv, dv := DefaultFlags(), reflect.ValueOf(every), reflect.ValueOf(DefaultFlags())
	for i := range fv.NumField() {
		if reflect.DeepEqual(fv.Field(i).Interface(), dv.Field(i).Interface()) {
			t.Fatalf("the test leaves Flags.%s at its default: set it, so its flag is round-tripped", fv.Type().Field(i).Name)
		}
	}
	fs := flag.NewFlagSet("proxy", flag.ContinueOnError)
	new(Flags).Register(fs)
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	if want := fv.NumField() - 1; n != want { // Command is the arguments after --, no flag
		t.Errorf("Register defines %d flags, want one per field of Flags but Command: %d", n, want)
	}
	zeroProbability := d
	zeroProbability.Probability, zeroProbability.Seed = 0, 0
	for _, f := range []Flags{every, d, {}, zeroProbability} {
		args := f.Args()
		got, err := ParseArgs(args)
		if err != nil {
			t.Fatalf("ParseArgs(%q): %v", args, err)
		}
		if !reflect.DeepEqual(got, f) {
			t.Errorf("ParseArgs(%q)\n got  %+v\n want %+v", args, got, f)
		}
	}
}

// TestFlagsArgsOrder: Args writes the flags in the order the runner always wrote them (the
// plan's golden file holds whole command lines), and the defaults of the flags that are not the
// run's coordinates not at all.
func TestFlagsArgsOrder(t *testing.T) {
	f := DefaultFlags()
	f.Fault, f.Tool, f.Tee, f.Protocol = "clean", "get_account_balance", "/t.jsonl", "2026-07-28"
	f.Command = []string{"toolscore", "ledger"}
	got := strings.Join(f.Args(), " ")
	want := "--fault clean --tool get_account_balance --schema hidden --seed 1 --tee /t.jsonl --protocol 2026-07-28 -- toolscore ledger"
	if got != want {
		t.Errorf("Args:\n got  %s\n want %s", got, want)
	}
}

// TestParseArgsChecksVariables: --env and --header name variables the proxy must have, as
// toolscore proxy says when it parses them.
func TestParseArgsChecksVariables(t *testing.T) {
	for _, args := range [][]string{{"--env", "FLAGS_TEST_UNSET"}, {"--header", "Authorization=FLAGS_TEST_UNSET"}, {"--header", "Authorization"}} {
		if _, err := ParseArgs(args); err == nil {
			t.Errorf("ParseArgs(%q) took it", args)
		}
	}
}

func ExampleFlags_Args() {
	f := DefaultFlags()
	f.Fault, f.Tool, f.Seed = "latency", "get_account_balance", 3
	f.Options = `{"latency":"300ms"}`
	f.Command = []string{"toolscore", "ledger"}
	args := f.Args()
	fmt.Println(strings.Join(args, " "))
	back, _ := ParseArgs(args)
	fmt.Println(reflect.DeepEqual(back, f))
	// Output:
	// --fault latency --tool get_account_balance --schema hidden --seed 3 --options {"latency":"300ms"} -- toolscore ledger
	// true
}
