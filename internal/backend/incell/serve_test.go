package incell

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"
)

// TestServeAwaits: with Await, the serve command starts only once the address accepts (an image
// server starting beside the cell), and a server that never listens is an error naming it.
func TestServeAwaits(t *testing.T) {
	probe, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := probe.Addr().String()
	probe.Close()
	listened := make(chan time.Time, 1)
	go func() {
		time.Sleep(300 * time.Millisecond)
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			listened <- time.Time{}
			return
		}
		listened <- time.Now()
		t.Cleanup(func() { ln.Close() })
	}()
	sv, u, err := startServe(context.Background(), Serve{Command: []string{"sh", "-c", "echo http://127.0.0.1:1/mcp; sleep 5"}, Await: addr})
	if err != nil {
		t.Fatal(err)
	}
	started := time.Now()
	_ = sv.stop()
	at := <-listened
	if at.IsZero() || started.Before(at) || u != "http://127.0.0.1:1/mcp" {
		t.Errorf("served %q at %v, before the address listened at %v", u, started, at)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if _, _, err := startServe(ctx, Serve{Command: []string{"sh", "-c", "echo http://127.0.0.1:1/mcp"}, Await: "127.0.0.1:1"}); err == nil || !strings.Contains(err.Error(), "did not accept connections on 127.0.0.1:1") {
		t.Errorf("awaiting a closed port: %v; want an error naming it", err)
	}
}
