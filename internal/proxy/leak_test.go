package proxy

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/toolscore/toolscore/internal/ledger"
)

// TestMain lets the test binary be the server the proxy starts: the real ledger, or one that
// never answers and ignores the end of its input.
func TestMain(m *testing.M) {
	switch os.Getenv("PROXY_TEST_SERVER") {
	case "ledger":
		_ = ledger.Serve(context.Background(), "test")
		os.Exit(0)
	case "env":
		for _, kv := range os.Environ() {
			fmt.Println(kv)
		}
		os.Exit(0)
	case "mute":
		_, _ = io.Copy(io.Discard, os.Stdin)
		time.Sleep(time.Hour)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestRunLeavesNoGoroutine: when a session ends (the client hangs up; the server goes or is
// made to go), Run returns and every goroutine it started is gone.
func TestRunLeavesNoGoroutine(t *testing.T) {
	for _, server := range []string{"ledger", "mute"} {
		t.Run(server, func(t *testing.T) {
			before := runtime.NumGoroutine()
			clientIn, toProxy := io.Pipe()
			fromProxy, clientOut := io.Pipe()
			done := make(chan int, 1)
			go func() {
				code, _ := Run(context.Background(), Server{Command: []string{os.Args[0]}, Env: []string{"PROXY_TEST_SERVER=" + server}}, Config{}, nil, clientIn, clientOut, io.Discard)
				clientOut.Close()
				done <- code
			}()
			go io.Copy(toProxy, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`+"\n"))
			if server == "ledger" {
				line, err := bufio.NewReader(fromProxy).ReadString('\n')
				if err != nil || !strings.Contains(line, `"id":1`) {
					t.Fatalf("no answer to initialize: %v %q", err, line)
				}
			}
			go io.Copy(io.Discard, fromProxy)
			time.Sleep(100 * time.Millisecond)
			toProxy.Close() // the client hangs up
			select {
			case <-done:
			case <-time.After(4*Grace + 5*time.Second):
				t.Fatal("Run did not return after the client hung up")
			}
			clientIn.Close()
			fromProxy.Close()
			deadline := time.Now().Add(5 * time.Second)
			for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
			if n := runtime.NumGoroutine(); n > before {
				buf := make([]byte, 1<<16)
				t.Errorf("%d goroutines before, %d after:\n%s", before, n, buf[:runtime.Stack(buf, true)])
			}
		})
	}
}
