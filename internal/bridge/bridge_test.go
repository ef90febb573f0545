package bridge

import (
	"bytes"
	"context"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// serve starts a bridge for command on a free loopback port and returns its address.
func serve(t *testing.T, command ...string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		_ = Serve(ctx, ln, command, os.Environ())
		close(done)
	}()
	t.Cleanup(func() { cancel(); <-done })
	return ln.Addr().String()
}

// TestRelaysStdioStderrAndExit: a real shell server echoes its stdin, writes its stderr and
// exits 3; each comes out of Connect as it would from the process itself.
func TestRelaysStdioStderrAndExit(t *testing.T) {
	addr := serve(t, "sh", "-c", `echo starting >&2; cat; echo bye >&2; exit 3`)
	in := strings.Repeat("a line of the client\n", 100000) // over one frame
	var out, errOut bytes.Buffer
	code := Connect(context.Background(), addr, strings.NewReader(in), &out, &errOut)
	if code != 3 {
		t.Errorf("exit %d, want 3 (stderr %q)", code, errOut.String())
	}
	if out.String() != in {
		t.Errorf("stdout: %d bytes, want the %d of stdin", out.Len(), len(in))
	}
	if errOut.String() != "starting\nbye\n" {
		t.Errorf("stderr %q", errOut.String())
	}
}

// TestFreshServerPerConnection: two connections at once get two processes.
func TestFreshServerPerConnection(t *testing.T) {
	addr := serve(t, "sh", "-c", `echo $$; cat >/dev/null`)
	pids := map[string]bool{}
	for range 2 {
		var out bytes.Buffer
		if code := Connect(context.Background(), addr, strings.NewReader(""), &out, io.Discard); code != 0 {
			t.Fatalf("exit %d", code)
		}
		pids[out.String()] = true
	}
	if len(pids) != 2 {
		t.Errorf("pids %v, want two processes", pids)
	}
}

// TestSignalledServer: a cancelled Connect sends SIGTERM, and the server's death by it is
// told as 128+15; a server that cannot start is 127 with the reason.
func TestSignalledServer(t *testing.T) {
	addr := serve(t, "sleep", "60")
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	pr, pw := io.Pipe() // stdin stays open
	defer pw.Close()
	if code := Connect(ctx, addr, pr, io.Discard, io.Discard); code != 128+int(syscall.SIGTERM) {
		t.Errorf("exit %d, want %d", code, 128+int(syscall.SIGTERM))
	}
	var errOut bytes.Buffer
	if code := Connect(context.Background(), serve(t, "/no/such/server"), strings.NewReader(""), io.Discard, &errOut); code != 127 || !strings.Contains(errOut.String(), "/no/such/server") {
		t.Errorf("exit %d, stderr %q; want 127 naming the command", code, errOut.String())
	}
}

// TestClientGoneKillsServerGroup: a client that vanishes without ending the session (killed)
// takes the server and its children with it.
func TestClientGoneKillsServerGroup(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	addr := serve(t, "sh", "-c", `sleep 60 & echo $! > `+pidFile+`; wait`)
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	var pid int
	for deadline := time.Now().Add(10 * time.Second); pid == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the server never started its child")
		}
		b, _ := os.ReadFile(pidFile)
		pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
	}
	conn.Close()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err != nil || strings.Contains(string(b), ") Z ") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server's child %d outlived its client", pid)
		}
	}
}

// TestConnectNothingListens: no bridge is a clear failure, not a hang.
func TestConnectNothingListens(t *testing.T) {
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := ln.Addr().String()
	ln.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	var errOut bytes.Buffer
	if code := Connect(ctx, addr, strings.NewReader(""), io.Discard, &errOut); code != 1 || !strings.Contains(errOut.String(), "nothing answered") {
		t.Errorf("exit %d, stderr %q", code, errOut.String())
	}
}
