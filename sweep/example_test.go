package sweep_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/toolscore/toolscore/exitcode"
	"github.com/toolscore/toolscore/sweep"
	"github.com/toolscore/toolscore/tally"
)

// toolscoreBinary is toolscore built for the examples: the runs start it as the proxy, the
// client adapter and the builtin server, as they start toolscore itself in the real command.
var toolscoreBinary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "toolscore-sweep-example-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	toolscoreBinary = filepath.Join(dir, "toolscore")
	build := exec.Command("go", "build", "-o", toolscoreBinary, "github.com/toolscore/toolscore/cmd/toolscore")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building toolscore for the examples:", err)
		os.Exit(2)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// One cell of the embedded ledger scenario on the local backend: the Go SDK's client against a
// server whose tool call answers a JSON-RPC error, one run.
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
		Clients: []string{"go-sdk/call"}, Faults: []string{"rpc-error"}, Schemas: []string{"published"}, Protocols: []string{"2025-11-25"},
		Runs: 1, Backend: "local", Out: out,
		Self: toolscoreBinary, // "" is this program itself, as in toolscore run
	})
	if res == nil {
		fmt.Println("nothing ran:", err)
		return
	}
	for _, c := range res.Cells {
		fmt.Printf("%s: %s\n", c.Coordinates(), c.Counts())
	}
	held, unmet, unchecked := tally.Count(res.Expectations)
	fmt.Printf("expectations: %d held, %d unmet, %d unchecked\n", held, unmet, unchecked)
	fmt.Println("exit code", exitcode.Of(err))
	// Output:
	// go-sdk/call × rpc-error × published × 2025-11-25: rpc-error 1/1
	// expectations: 1 held, 0 unmet, 3 unchecked
	// exit code 0
}
