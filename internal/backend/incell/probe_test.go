package incell

import (
	"context"
	"encoding/json"
	"net"
	"strings"
	"testing"
)

// TestProbeServer starts real servers (shell scripts) behind the probe the image server's check
// runs: one that answers initialize, or is silent but running, or serves HTTP, listens; one that
// exits before it answers (at once, or after noise on stdout, or over HTTP before anything
// listens) is reported with its exit status and its last output.
func TestProbeServer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed.Close()
	cases := []struct {
		name   string
		args   []string
		status int    // the server's, when refused; -1 when it listened
		output string // in its report
	}{
		{"answers initialize", []string{"--", "sh", "-c", `echo starting >&2; read req; case "$req" in *'"method":"initialize"'*) echo '{"jsonrpc":"2.0","id":0,"result":{}}';; esac; sleep 30`}, -1, ""},
		{"answers with an error", []string{"--", "sh", "-c", `read req; echo '{"jsonrpc":"2.0","id":0,"error":{"code":-32602,"message":"bad version"}}'; exit 0`}, -1, ""},
		{"silent but running", []string{"--wait", "300ms", "--", "sleep", "30"}, -1, ""},
		{"exits at once", []string{"--", "sh", "-c", `echo "usage: server [--port N]" >&2; echo "unknown argument: serve-stdio" >&2; exit 2`}, 2, "usage: server [--port N] | unknown argument: serve-stdio"},
		{"noise then exit 0", []string{"--", "sh", "-c", `echo 'Server ready'; echo '{"jsonrpc":"2.0","method":"notifications/message","params":{}}'; exit 0`}, 0, "Server ready"},
		{"killed by a signal", []string{"--", "sh", "-c", `kill -9 $$`}, 137, ""},
		{"no such program", []string{"--", "/no/such/server"}, 127, "starting the server"},
		{"serves HTTP", []string{"--http", ln.Addr().String(), "--", "sleep", "30"}, -1, ""},
		{"exits before it serves HTTP", []string{"--http", closed.Addr().String(), "--", "sh", "-c", `sleep 0.2; echo "EADDRINUSE" >&2; exit 1`}, 1, "EADDRINUSE"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out strings.Builder
			code := ProbeServer(context.Background(), c.args, &out)
			if c.status < 0 {
				if code != 0 || out.Len() > 0 {
					t.Errorf("exit %d, stdout %q; want 0 and nothing (the server listens)", code, out.String())
				}
				return
			}
			var r ProbeReport
			if code != ProbeRefused || json.Unmarshal([]byte(out.String()), &r) != nil {
				t.Fatalf("exit %d, stdout %q; want %d and a report", code, out.String(), ProbeRefused)
			}
			if r.Status != c.status || !strings.Contains(r.Output, c.output) {
				t.Errorf("report %+v; want status %d and output holding %q", r, c.status, c.output)
			}
		})
	}
}
