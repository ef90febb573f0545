package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Nothing of a run's transcript is lost when the run ends badly: a client that stops reading,
// a run that times out, a proxy killed outright.

// TestTranscriptClientStopsReading: a client that stops reading in the middle of an 8 MiB answer
// (the hostile huge tool) loses nothing of the transcript: the answer is recorded whole while
// the client stalls, and the transcript ends with the server's exit, whether the client then
// closes its end or the proxy is told to stop (as a run's timeout does).
func TestTranscriptClientStopsReading(t *testing.T) {
	for _, end := range []string{"closes", "is stopped"} {
		t.Run(end, func(t *testing.T) {
			t.Parallel()
			tee := filepath.Join(t.TempDir(), "tee.jsonl")
			cmd := exec.Command(os.Args[0], "proxy", "--tee", tee, "--", os.Args[0], "hostile")
			in, _ := cmd.StdinPipe()
			out, _ := cmd.StdoutPipe()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			io.WriteString(in, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"stall","version":"1"}}}`+"\n"+
				`{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"+
				`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"huge","arguments":{"mib":8}}}`+"\n")
			r := bufio.NewReaderSize(out, 16)
			if _, err := r.ReadString('\n'); err != nil {
				t.Fatalf("no answer to initialize: %v", err)
			}
			if _, err := io.ReadFull(r, make([]byte, 100)); err != nil {
				t.Fatalf("no start of the huge answer: %v", err)
			}
			// The client stalls here, a few bytes into the answer: the proxy is stuck writing it.
			waitFor(t, "the huge answer recorded while the client stalls", func() bool { return hugeRecorded(tee) })
			switch end {
			case "closes":
				out.Close()
				in.Close()
			case "is stopped":
				cmd.Process.Signal(syscall.SIGTERM)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			select {
			case <-exited:
			case <-time.After(30 * time.Second):
				t.Fatal("the proxy did not exit")
			}
			if !hugeRecorded(tee) {
				t.Error("the huge answer is not in the transcript")
			}
			recs := readTee(t, tee)
			if last := recs[len(recs)-1]; last["event"] != "server-exit" {
				t.Errorf("the transcript ends with %v, want the server's exit", last)
			}
			if end == "closes" && findEvent(recs, "client-stdout-closed") == nil {
				t.Error("the transcript does not say the client stopped reading")
			}
		})
	}
}

// hugeRecorded says whether the transcript holds the hostile huge tool's 8 MiB answer to the
// client, whole.
func hugeRecorded(tee string) bool {
	f, err := os.Open(tee)
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var r struct {
			Dir  string `json:"dir"`
			Wire string `json:"wire"`
		}
		if len(sc.Bytes()) > 8<<20 && json.Unmarshal(sc.Bytes(), &r) == nil && r.Dir == "to-client" &&
			strings.Count(r.Wire, "0123456789abcdef") == 8<<16 && strings.HasSuffix(r.Wire, "}\n") {
			return true
		}
	}
	return false
}

// TestTranscriptRunTimesOut: when a run's timeout stops a server that never answers, each
// client's transcript still ends with the server's exit (it took SIGKILL).
func TestTranscriptRunTimesOut(t *testing.T) {
	out := t.TempDir()
	cmd := exec.Command(os.Args[0], "run", hangManifest(t, "raw, go-sdk/call, mcp-go/call", "2s"), "--backend", "local", "--out", out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	tees := runTees(out)
	if len(tees) != 3 {
		t.Fatalf("%d transcripts, want 3", len(tees))
	}
	for _, tee := range tees {
		recs := readTee(t, tee)
		last := recs[len(recs)-1]
		if d, _ := last["detail"].(map[string]any); last["event"] != "server-exit" || d["signal"] != "killed" {
			t.Errorf("%s ends with %v, want the server's exit by SIGKILL", tee, last)
		}
	}
}

// TestTranscriptProxyKilled: when the proxy itself is killed outright, it cannot record the
// server's exit; the runner then ends the transcript with why the exit is missing.
func TestTranscriptProxyKilled(t *testing.T) {
	out := t.TempDir()
	cmd := exec.Command(os.Args[0], "run", hangManifest(t, "raw", "60s"), "--backend", "local", "--out", out)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	var server int
	waitFor(t, "the run's server started", func() bool {
		ps := serverPids(out)
		if len(ps) == 1 {
			server = ps[0]
		}
		return server != 0 && targetCalled(out)
	})
	st, ok := readProcStat(server)
	if !ok {
		t.Fatal("the server is gone already")
	}
	defer syscall.Kill(-st.pgrp, syscall.SIGKILL)
	syscall.Kill(st.ppid, syscall.SIGKILL) // the proxy
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	tee := runTees(out)[0]
	recs := readTee(t, tee)
	if last := recs[len(recs)-1]; last["event"] != "no-server-exit" || !strings.Contains(fmt.Sprint(last["note"]), "proxy was gone") {
		t.Errorf("%s ends with %v, want the runner's word on the missing exit", tee, last)
	}
}
