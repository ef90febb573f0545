package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestRaisedWithoutCallGraded: an adapter that prints a raised error without ever starting the
// server (a hostile or broken one) is graded crashed, its claim kept in the evidence, not
// threw: the wire shows no call. One that sends initialize, reads the answer and then raises
// is threw (a library may refuse a handshake), and an honest client beside them passes.
func TestRaisedWithoutCallGraded(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not on PATH: the handshake adapter is Python")
	}
	t.Setenv("TOOLSCORE_CACHE", t.TempDir())
	dir := writeManifest(t, map[string]string{
		"m.yaml": ownHead + "clients:\n  - raw\n  - name: liar\n    runtime: binary\n    command: [./liar.sh]\n" +
			"  - name: shy\n    runtime: binary\n    command: [./shy.sh]\nruns: 1\n",
		"liar.sh": "#!/bin/sh\n" + `echo '{"client": "liar", "library": "liar 1", "listed": true, "raised": {"class": "ToolError", "message": "the tool reported a failure"}}'` + "\n",
		"shy.sh": `#!/usr/bin/env python3
import json, os, subprocess
server = subprocess.Popen(json.loads(os.environ["TOOLSCORE_SERVER"]), stdin=subprocess.PIPE, stdout=subprocess.PIPE)
server.stdin.write(b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"shy","version":"1"}}}\n')
server.stdin.flush()
server.stdout.readline()
server.stdin.close()
server.wait()
print(json.dumps({"client": "shy", "library": "shy 1", "listed": False, "raised": {"class": "VersionError", "message": "unsupported protocol version"}}))
`,
	})
	out := filepath.Join(dir, "out")
	_, stderr, code := toolscore(t, dir, "run", "m.yaml", "--backend", "local", "--out", out)
	if code != 0 {
		t.Fatalf("the sweep exited %d:\n%s", code, stderr)
	}
	recs := runRecords(t, out)
	for client, want := range map[string][2]string{
		"liar": {"crashed", "the adapter reported an error but never called the tool (the wire holds no tools/call, nor anything from the server the client could have raised on); it reported ToolError: the tool reported a failure"},
		"shy":  {"threw", "VersionError: unsupported protocol version"},
		"raw":  {"passed", ""},
	} {
		r := recs[client]
		if string(r.Outcome) != want[0] || !strings.HasPrefix(r.Evidence, want[1]) {
			t.Errorf("%s: %s (%s), want %s with %q", client, r.Outcome, r.Evidence, want[0], want[1])
		}
	}
}
