package scenario_test

import (
	"bytes"
	"fmt"

	"github.com/toolscore/toolscore/scenario"
)

func ExampleLoad() {
	manifest := []byte(`name: ledger balance
server: {builtin: ledger}
tool: get_balance
faults:
  - clean
  - name: latency
    latency: 2s
schema_modes: [hidden]
clients: [raw, go-sdk/call]
`)
	known := scenario.Known{
		Faults:  []string{"clean", "corrupt", "latency"},
		Clients: []string{"raw", "go-sdk/call"},
	}
	s, err := scenario.Load("ledger.yaml", manifest, known)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range s.Cells() {
		fmt.Println(c.Key())
	}
	fmt.Println(s.Runs, "runs per cell, timeout", s.Timeout)

	// A typo is caught before anything runs, at its line and column.
	typo := bytes.Replace(manifest, []byte("- clean"), []byte("- claen"), 1)
	_, err = scenario.Load("ledger.yaml", typo, known)
	fmt.Println(err)
	// Output:
	// raw|clean|hidden|stdio
	// go-sdk/call|clean|hidden|stdio
	// raw|latency|hidden|stdio
	// go-sdk/call|latency|hidden|stdio
	// 3 runs per cell, timeout 30s
	// ledger.yaml:5:5: faults[0]: unknown fault "claen"; did you mean "clean"? (known: clean, corrupt, latency)
}
