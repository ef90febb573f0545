package sweep_test

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/toolscore/toolscore/exitcode"
	"github.com/toolscore/toolscore/sweep"
	"github.com/toolscore/toolscore/tally"
)

// TestMain re-enters: the example's runs start this test binary as toolscore (its proxy, its
// client adapters, its ledger server), and Reenter runs those commands in it. No toolscore
// binary is built.
func TestMain(m *testing.M) {
	sweep.Reenter()
	os.Exit(m.Run())
}

// A sweep from a Go test: the embedded ledger scenario on the local backend, narrowed to the
// clients built into toolscore in Go (no npm or pip), two faults, one schema mode and one
// protocol, one run a cell. Config.Self is "": the runs start this test binary, which
// TestMain's sweep.Reenter turns into toolscore.
func Example() {
	sc, err := sweep.Load("") // the embedded scenarios/ledger.yaml
	if err != nil {
		fmt.Println(err)
		return
	}
	out, err := os.MkdirTemp("", "toolscore-example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(out)
	res, _, err := sweep.Sweep(context.Background(), sc, sweep.Config{
		Clients:   []string{"raw", "go-sdk/call", "mcp-go/call"},
		Faults:    []string{"clean", "rpc-error"},
		Schemas:   []string{"published"},
		Protocols: []string{"2025-11-25"},
		Runs:      1, Backend: "local", Out: out,
	})
	if res == nil {
		fmt.Println("nothing ran:", err)
		return
	}
	fmt.Println(len(res.Cells), "cells")
	for _, c := range res.Cells {
		fmt.Printf("%s: %s\n", c.Coordinates(), c.Counts())
	}
	held, unmet, unchecked := tally.Count(res.Expectations)
	fmt.Printf("expectations: %d held, %d unmet, %d unchecked\n", held, unmet, unchecked)
	fmt.Println("exit code", exitcode.Of(err))
	// Output:
	// 6 cells
	// raw × clean × published × 2025-11-25: passed 1/1
	// go-sdk/call × clean × published × 2025-11-25: passed 1/1
	// mcp-go/call × clean × published × 2025-11-25: passed 1/1
	// raw × rpc-error × published × 2025-11-25: rpc-error 1/1
	// go-sdk/call × rpc-error × published × 2025-11-25: rpc-error 1/1
	// mcp-go/call × rpc-error × published × 2025-11-25: rpc-error 1/1
	// expectations: 2 held, 0 unmet, 2 unchecked
	// exit code 0
}

// TestInProcessCellCache: the cell cache works from a Go test too: the second sweep's check of
// the server (toolscore cache-replay, started as this test binary) passes and every cell is
// reused, none run.
func TestInProcessCellCache(t *testing.T) {
	cache := t.TempDir()
	sweepOnce := func() *tally.Results {
		t.Helper()
		sc, err := sweep.Load("")
		if err != nil {
			t.Fatal(err)
		}
		res, _, err := sweep.Sweep(context.Background(), sc, sweep.Config{
			Clients: []string{"raw", "go-sdk/call"}, Faults: []string{"clean", "rpc-error"}, Schemas: []string{"published"},
			Protocols: []string{"2025-11-25"}, Runs: 1, Backend: "local", Out: t.TempDir(), Cache: cache,
		})
		if res == nil || exitcode.Of(err) != 0 {
			t.Fatalf("the sweep: %v", err)
		}
		return res
	}
	first, second := sweepOnce(), sweepOnce()
	if first.RunsExecuted != 4 || second.RunsExecuted != 0 || second.RunsReused != 4 {
		t.Errorf("runs executed %d then %d, reused then %d; want 4, 0 and 4", first.RunsExecuted, second.RunsExecuted, second.RunsReused)
	}
}
