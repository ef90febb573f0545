package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestInstallCacheSweeps: the local backend installs ts-sdk from npm into a fresh cache once,
// for two sweeps started together; a later sweep installs nothing and says so; a truncated file
// of the install makes the next sweep install it afresh. The package comes from the registry,
// as a user's does.
func TestInstallCacheSweeps(t *testing.T) {
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("npm is not on PATH")
	}
	cache := t.TempDir()
	sweep := func() *exec.Cmd {
		cmd := exec.Command(os.Args[0], "run", "--backend", "local", "--clients", "ts-sdk/call", "--faults", "type-swap",
			"--schema", "published", "--protocols", "2025-11-25", "--runs", "1", "--out", t.TempDir())
		cmd.Env = append(os.Environ(), "TOOLSCORE_CACHE="+cache, "DOCKER_HOST=unix:///nonexistent")
		return cmd
	}
	var logs [2]bytes.Buffer
	var cmds [2]*exec.Cmd
	for i := range cmds {
		cmds[i] = sweep()
		cmds[i].Stderr = &logs[i]
		if err := cmds[i].Start(); err != nil {
			t.Fatal(err)
		}
	}
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("sweep %d: %v\n%s", i, err, logs[i].String())
		}
	}
	both := logs[0].String() + logs[1].String()
	if n := strings.Count(both, "installing ts-sdk/call into "); n != 1 || !strings.Contains(both, "ts-sdk/call: installed by another sweep in ") {
		t.Fatalf("two sweeps at once installed %d times; want one, the other waiting for it:\n%s", n, both)
	}
	// The published type-swap is what the SDK's own code rejects once it has the schema; it ran.
	if !strings.Contains(both, "ts-sdk/call × type-swap × published × 2025-11-25:") {
		t.Errorf("the run did not happen:\n%s", both)
	}

	b, err := sweep().CombinedOutput()
	if err != nil || !strings.Contains(string(b), "installed already, nothing to install: ts-sdk/call (in "+filepath.Join(cache, "clients")+")") || strings.Contains(string(b), "installing ") {
		t.Fatalf("a later sweep: %v\n%s", err, b)
	}

	// Damage the install: cut the SDK's package.json short.
	matches, _ := filepath.Glob(filepath.Join(cache, "clients", "*", "node_modules", "@modelcontextprotocol", "sdk", "package.json"))
	if len(matches) != 1 {
		t.Fatalf("the install holds %v", matches)
	}
	if err := os.Truncate(matches[0], 5); err != nil {
		t.Fatal(err)
	}
	b, err = sweep().CombinedOutput()
	if err != nil || !strings.Contains(string(b), `is incomplete or damaged (its file "node_modules/@modelcontextprotocol/sdk/package.json" is not what was installed: its size changed); installing it afresh`) || !strings.Contains(string(b), "installed ts-sdk/call in ") {
		t.Fatalf("after damage: %v\n%s", err, b)
	}
	if info, err := os.Stat(matches[0]); err != nil || info.Size() < 100 {
		t.Errorf("the damaged file was not installed afresh: %v %v", info, err)
	}
}
