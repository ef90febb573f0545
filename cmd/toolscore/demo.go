package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/toolscore/toolscore/exitcode"
	"github.com/toolscore/toolscore/fault"
	"github.com/toolscore/toolscore/internal/client"
	"github.com/toolscore/toolscore/internal/proxy"
)

// demoCmd sends one get_account_balance call through the proxy for each fault and prints what
// arrived, so a new user sees every fault on the wire in a few seconds.
func demoCmd(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	schema := fs.String("schema", "hidden", "schema mode for the proxy")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, "toolscore demo:", err)
		return exitcode.Failed(err)
	}
	for _, name := range fault.Names() {
		pf := proxy.DefaultFlags()
		pf.Fault, pf.Tool, pf.Schema, pf.Command = name, "get_account_balance", *schema, []string{self, "ledger"}
		if name == "latency" {
			pf.Options = `{"latency":"300ms"}`
		}
		cmd := append([]string{self, "proxy"}, pf.Args()...)
		start := time.Now()
		frame, err := demoCall(ctx, cmd)
		if err != nil {
			fmt.Printf("%-24s error: %v\n", name, err)
			continue
		}
		// The oversize faults' frames run to a MiB: a line of the table shows their start and size.
		shown := string(frame)
		if len(frame) > 400 {
			shown = fmt.Sprintf("%s… (%d bytes)", frame[:400], len(frame))
		}
		fmt.Printf("%-24s %6s  %s\n", name, time.Since(start).Round(time.Millisecond), shown)
	}
	return nil
}

func demoCall(ctx context.Context, cmd []string) (json.RawMessage, error) {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	s, _, err := client.StartRaw(ctx, cmd)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	return s.Request(ctx, "tools/call", map[string]any{"name": "get_account_balance", "arguments": map[string]any{"account_id": "ACC-4471"}})
}
