package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// conformanceCheck is one check of the MCP conformance suite, as its checks.json holds it.
type conformanceCheck struct {
	ID           string `json:"id"`
	Status       string `json:"status"`
	Description  string `json:"description"`
	ErrorMessage string `json:"errorMessage"`
}

// conformanceKit is testdata/conformance installed: the suite, server-everything, the SDK that
// client.mjs is built on, and the Node 22 that runs them all (the suite needs 22: it imports
// fs.globSync; the machine may have an older Node).
type conformanceKit struct {
	install string // npm ci's directory, in the user's cache
	dir     string // node_modules (a link to install's) and the scripts of testdata/conformance
	node    string
}

// TestConformanceThroughProxy runs the official MCP conformance suite (npm
// @modelcontextprotocol/conformance 0.2.0-alpha.12, its newest release: 65 server and 48 client
// scenarios) once directly and once through `toolscore proxy --fault clean --schema as-is`, and
// asserts every check came out the same both ways but the few named in conformanceClient, each
// of which must still differ: its server scenarios against a real published server
// (server-everything, streamable HTTP), and its client scenarios, OAuth's included, with our own
// client (testdata/conformance/client.mjs, on the TypeScript SDK), the proxy on another address
// than each server the suite starts. The suite's own reference server and clients are code of
// its repository, published nowhere: not used here, so the scenarios of the 2026-07-28 revision's
// stateless lifecycle, which neither server-everything nor the SDK speaks, fail both ways alike
// (compared all the same, but proving little).
func TestConformanceThroughProxy(t *testing.T) {
	kit := installConformance(t)
	t.Run("server", func(t *testing.T) { conformanceServer(t, kit) })
	t.Run("client", func(t *testing.T) { conformanceClient(t, kit) })
}

// installConformance installs testdata/conformance's lockfile with npm ci into the user's cache,
// once per lockfile, and lays the scripts beside its node_modules in a temp dir.
func installConformance(t *testing.T) conformanceKit {
	t.Helper()
	npm, err := exec.LookPath("npm")
	if err != nil {
		needNPM(t, "npm is not installed: the conformance test installs the suite with it")
	}
	arch := map[string]string{"amd64": "x64", "arm64": "arm64"}[runtime.GOARCH]
	if runtime.GOOS != "linux" || arch == "" {
		t.Skipf("testdata/conformance names no Node package for %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	src := filepath.Join("testdata", "conformance")
	sum := sha256.New()
	for _, f := range []string{"package.json", "package-lock.json"} {
		b, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatal(err)
		}
		sum.Write(b)
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		t.Fatalf("no cache directory for the conformance suite: %v", err)
	}
	installed := filepath.Join(cache, "toolscore", "conformance-"+hex.EncodeToString(sum.Sum(nil))[:16])
	if _, err := os.Stat(filepath.Join(installed, "node_modules")); err != nil {
		// npm ci in a directory of its own, renamed into place whole: a test killed mid-install
		// leaves no half node_modules for the next one to trust.
		if err := os.MkdirAll(filepath.Dir(installed), 0o755); err != nil {
			t.Fatal(err)
		}
		tmp, err := os.MkdirTemp(filepath.Dir(installed), ".conformance-")
		if err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(tmp)
		for _, f := range []string{"package.json", "package-lock.json"} {
			copyFile(t, filepath.Join(src, f), filepath.Join(tmp, f))
		}
		ci := exec.Command(npm, "ci", "--no-audit", "--no-fund")
		ci.Dir = tmp
		if out, err := ci.CombinedOutput(); err != nil {
			needNPM(t, "npm ci of testdata/conformance: "+err.Error()+"\n"+string(out))
		}
		if err := os.Rename(tmp, installed); err != nil {
			// Another test's install of the same lockfile may have got there first.
			if _, statErr := os.Stat(filepath.Join(installed, "node_modules")); statErr != nil {
				t.Fatalf("putting the conformance install in place: %v", err)
			}
		}
	}
	kit := conformanceKit{install: installed, dir: t.TempDir(), node: filepath.Join(installed, "node_modules", "node-linux-"+arch, "bin", "node")}
	if err := os.Symlink(filepath.Join(installed, "node_modules"), filepath.Join(kit.dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"client.mjs", "via-proxy.mjs", "rebinding-server.mjs", "stateless-server.mjs"} {
		copyFile(t, filepath.Join(src, f), filepath.Join(kit.dir, f))
	}
	return kit
}

// needNPM skips the test where npm (or what it fetches) is missing, or fails it under
// TOOLSCORE_REQUIRE_NPM.
func needNPM(t *testing.T, why string) {
	t.Helper()
	if os.Getenv("TOOLSCORE_REQUIRE_NPM") != "" {
		t.Fatal(why + " (TOOLSCORE_REQUIRE_NPM is set)")
	}
	t.Skip(why)
}

// conformanceServer: the suite's server scenarios, all of them (the pending ones too), against
// server-everything, directly and through the proxy. server-everything is not the suite's
// reference server (its tools have other names, it has no rebinding protection), so many checks
// fail directly; each must fail the same way through the proxy, with the same message.
func conformanceServer(t *testing.T, kit conformanceKit) {
	addr := serveEverything(t, kit.node, kit.install)
	_, port, _ := strings.Cut(addr, ":")
	direct := "http://localhost:" + port + "/mcp"
	proxied := startHTTPProxyUpstream(t, direct, "--fault", "clean", "--schema", "as-is")

	want := runConformance(t, kit, nil, "server", "--suite", "all", "--url", direct)
	got := runConformance(t, kit, nil, "server", "--suite", "all", "--url", proxied.url)
	if len(want) < 30 {
		t.Fatalf("the server scenarios made %d checks directly, want 30 or more", len(want))
	}
	sameChecks(t, want, got, true, nil)
	t.Logf("server scenarios: %d checks directly (%s), %d through the proxy (%s)", len(want), countStatuses(want), len(got), countStatuses(got))

	// The rebinding scenario again, against a server that has the protection: it passes
	// directly, and through the proxy only if the proxy relays the Host the client sent.
	addr = serveOnPort(t, "rebinding-server.mjs", kit.node, filepath.Join(kit.dir, "rebinding-server.mjs"))
	_, port, _ = strings.Cut(addr, ":")
	direct = "http://localhost:" + port + "/mcp"
	proxied = startHTTPProxyUpstream(t, direct, "--fault", "clean", "--schema", "as-is")
	want = runConformance(t, kit, nil, "server", "--scenario", "dns-rebinding-protection", "--url", direct)
	got = runConformance(t, kit, nil, "server", "--scenario", "dns-rebinding-protection", "--url", proxied.url)
	if len(want) != 2 || countStatuses(want) != "2 SUCCESS" {
		t.Fatalf("dns-rebinding-protection against rebinding-server.mjs directly: %v, want its 2 checks passed", want)
	}
	sameChecks(t, want, got, true, nil)

	// server-stateless again, against a server that has a subscriptions/listen stream: one JSON
	// body that stays open and carries a message per line, which reaches the suite through the
	// proxy only if the proxy passes each message on as it comes (the suite reads for 800 ms).
	addr = serveOnPort(t, "stateless-server.mjs", kit.node, filepath.Join(kit.dir, "stateless-server.mjs"))
	_, port, _ = strings.Cut(addr, ":")
	direct = "http://localhost:" + port + "/mcp"
	proxied = startHTTPProxyUpstream(t, direct, "--fault", "clean", "--schema", "as-is")
	want = runConformance(t, kit, nil, "server", "--scenario", "server-stateless", "--url", direct)
	got = runConformance(t, kit, nil, "server", "--scenario", "server-stateless", "--url", proxied.url)
	for _, id := range []string{"sep-2575-server-sends-subscription-ack", "sep-2575-server-tags-subscription-id", "sep-2575-server-honors-notification-filter", "sep-2575-server-sends-tools-list-changed-on-subscription"} {
		if c := want["server-stateless/"+id]; c.Status != "SUCCESS" {
			t.Errorf("server-stateless against stateless-server.mjs directly: %s %s %s, want it passed", id, c.Status, c.ErrorMessage)
		}
	}
	sameChecks(t, want, got, true, nil)
}

// unspoken are the client scenarios of the suite that client.mjs cannot play, so no check of
// theirs passes directly: those of the 2026-07-28 revision's stateless lifecycle (per-request
// _meta, no initialize), which the TypeScript SDK 1.x does not speak (its server answers
// client.mjs's initialize with 400), and the skills extension's. They are compared all the same.
var unspoken = map[string]bool{
	"request-metadata": true, "sep-2322-client-request-state": true, "http-standard-headers": true,
	"http-custom-headers": true, "auth/authorization-server-migration": true,
	"sep-2640-client-no-prefetch": true, "sep-2640-client-verify-digest": true,
	"sep-2640-client-verify-size": true, "sep-2640-client-verify-frontmatter": true,
}

// conformanceClientSample are the client scenarios CI runs (TOOLSCORE_FULL=1 runs all the suite
// lists): the handshake, a tool call, elicitation on the GET stream, SSE retry, the OAuth flows
// of each kind (metadata discovery, CIMD, scope step-up, each token endpoint authentication,
// pre-registration, the 2025-03-26 fallback, client credentials, the 2026-07-28 resource and iss
// checks, the resource parameter through the proxy's front of an authorization server on
// another port), those whose checks differ through the proxy (enterprise-managed authorization's
// ID-JAG, DPoP), and one of the stateless lifecycle client.mjs cannot play.
var conformanceClientSample = map[string]bool{
	"initialize": true, "tools_call": true, "elicitation-sep1034-client-defaults": true, "sse-retry": true,
	"auth/metadata-default": true, "auth/metadata-var3": true, "auth/basic-cimd": true, "auth/scope-step-up": true,
	"auth/token-endpoint-auth-basic": true, "auth/token-endpoint-auth-none": true, "auth/pre-registration": true,
	"auth/2025-03-26-oauth-endpoint-fallback": true, "auth/client-credentials-jwt": true,
	"auth/resource-mismatch": true, "auth/iss-supported": true, "auth/iss-wrong-issuer": true,
	"auth/enterprise-managed-authorization": true, "auth/dpop": true, "auth/dpop-nonce": true,
	"http-standard-headers": true, "json-schema-2020-12-preservation": true,
}

// conformanceClient: every client scenario the suite lists (CI: conformanceClientSample), with client.mjs directly and with
// via-proxy.mjs putting the proxy in front of the server the suite started for it. The
// scenarios run one suite process each, a few at a time: the suite's own --suite starts all 26
// at once, and on a loaded machine its servers' idle keep-alive connections then close under the
// client (ECONNRESET on its authorization server, which the proxy is not in front of).
func conformanceClient(t *testing.T, kit conformanceKit) {
	out, err := exec.Command(kit.node, filepath.Join(kit.dir, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js"), "list", "--client").CombinedOutput()
	if err != nil {
		t.Fatalf("conformance list --client: %v\n%s", err, out)
	}
	var scenarios []string
	for _, m := range regexp.MustCompile(`(?m)^\s+- (\S+)`).FindAllStringSubmatch(string(out), -1) {
		scenarios = append(scenarios, m[1])
	}
	if len(scenarios) < 40 {
		t.Fatalf("conformance list --client named %d scenarios:\n%s", len(scenarios), out)
	}
	if !fullProduct() {
		// All 48 both ways take three minutes: CI runs these, each kind of flow once and every
		// scenario whose checks differ through the proxy; TOOLSCORE_FULL=1 runs them all.
		var some []string
		for _, sc := range scenarios {
			if conformanceClientSample[sc] {
				some = append(some, sc)
			}
		}
		if len(some) != len(conformanceClientSample) {
			t.Fatalf("the suite lists %d of the %d client scenarios CI runs (%v):\n%s", len(some), len(conformanceClientSample), some, out)
		}
		scenarios = some
	}
	client := kit.node + " " + filepath.Join(kit.dir, "client.mjs")
	wrapper := kit.node + " " + filepath.Join(kit.dir, "via-proxy.mjs") + " " + filepath.Join(kit.dir, "client.mjs")
	tees := t.TempDir()
	toolscore := os.Args[0]
	if p := os.Getenv(runsBinaryEnv); p != "" {
		toolscore = p // 26 proxies: the plain build, as a sweep's runs use
	}

	want, got := map[string]conformanceCheck{}, map[string]conformanceCheck{}
	var mu sync.Mutex
	sem := make(chan struct{}, 3)
	var wg sync.WaitGroup
	for _, sc := range scenarios {
		for _, proxied := range []bool{false, true} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				sem <- struct{}{}
				defer func() { <-sem }()
				command, env, into := client, []string(nil), want
				if proxied {
					tee := filepath.Join(tees, strings.ReplaceAll(sc, "/", "+"), "tee.jsonl")
					if err := os.MkdirAll(filepath.Dir(tee), 0o755); err != nil {
						t.Error(err)
						return
					}
					command, into = wrapper, got
					env = []string{"TOOLSCORE=" + toolscore, "TOOLSCORE_CONFORMANCE_TEE=" + tee}
				}
				checks := runConformance(t, kit, env, "client", "--scenario", sc, "--command", command)
				mu.Lock()
				defer mu.Unlock()
				for id, c := range checks {
					into[id] = c
				}
			}()
		}
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	// Each scenario ran to a check that passed directly: the client did what it was asked, so
	// the comparison is between flows that happened, not between two failures to start.
	for _, sc := range scenarios {
		if unspoken[sc] {
			continue
		}
		passed := false
		for id, c := range want {
			passed = passed || strings.HasPrefix(id, sc+"/") && c.Status == "SUCCESS"
		}
		if !passed {
			t.Errorf("%s: no check passed directly; client.mjs does not handle it", sc)
		}
	}
	except := map[string]string{
		// The ID-JAG of enterprise-managed authorization is a token the identity provider signs
		// for the resource the client names, the proxy's URL, which the authorization server
		// holds against the server's own: no proxy on another origin can rewrite it
		// (docs/proxy.md). The client then has no token, and the scenario's later checks differ too.
		"auth/enterprise-managed-authorization": "does not match MCP server resource",
		// A DPoP proof names the URL the client sent its request to, the proxy's, which the
		// server holds against its own; the proxy has no key of the client's to sign another.
		// Without a valid proof the server never asks for its nonce.
		"auth/dpop/sep-1932-client-fresh-proof":       "htu does not match the request URI",
		"auth/dpop-nonce/sep-1932-client-fresh-proof": "htu does not match the request URI",
		"auth/dpop-nonce/sep-1932-client-rs-nonce":    "never made an MCP request with a valid proof",
	}
	// The resource parameter a client names to an authorization server of another origin than
	// the MCP server's (the suite's, on another port) reaches it as the server published it: the
	// proxy fronts that authorization server and gives the server's origin back (docs/proxy.md).
	for _, sc := range scenarios {
		switch sc {
		case "auth/metadata-default", "auth/metadata-var1", "auth/metadata-var2", "auth/metadata-var3", "auth/token-endpoint-auth-basic", "auth/token-endpoint-auth-none", "auth/token-endpoint-auth-post":
			if c := want[sc+"/resource-parameter-matches-prm"]; c.Status != "SUCCESS" {
				t.Errorf("%s: resource-parameter-matches-prm %s directly (%s), want it passed, to compare with the proxy", sc, c.Status, c.ErrorMessage)
			}
		}
	}
	sameChecks(t, want, got, false, except)
	rewrites := originRewrites(t, tees)
	for _, sc := range scenarios {
		// Every auth scenario's server names its own origin in a challenge or a document but
		// the one that has neither (its client falls back to fixed paths), and those client.mjs
		// does not get to a challenge in.
		if strings.HasPrefix(sc, "auth/") && sc != "auth/2025-03-26-oauth-endpoint-fallback" && !unspoken[sc] && rewrites[sc] == 0 {
			t.Errorf("%s: the proxy's transcript records no origin-rewrite", sc)
		}
	}
	t.Logf("client scenarios: %d, %d checks directly (%s), %d through the proxy (%s)", len(scenarios), len(want), countStatuses(want), len(got), countStatuses(got))
}

// runConformance runs the suite with args (and env added to the test's), and reads back each
// check but the INFO ones by scenario/id; a check that comes more than once in a scenario is
// numbered (#2, ...).
func runConformance(t *testing.T, kit conformanceKit, env []string, args ...string) map[string]conformanceCheck {
	t.Helper()
	out := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, kit.node, append([]string{filepath.Join(kit.dir, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js")}, append(args, "-o", out)...)...)
	cmd.Dir = kit.dir
	cmd.Env = append(os.Environ(), env...)
	log, err := cmd.CombinedOutput()
	if _, exit := err.(*exec.ExitError); err != nil && (!exit || ctx.Err() != nil) {
		t.Errorf("the conformance suite %v: %v\n%s", args, err, log)
		return nil
	}
	checks := map[string]conformanceCheck{}
	scenario := regexp.MustCompile(`^(?:server-)?(.*)-\d{4}-\d\d-\d\dT`)
	err = filepath.WalkDir(out, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.Name() != "checks.json" {
			return err
		}
		rel, _ := filepath.Rel(out, filepath.Dir(path))
		m := scenario.FindStringSubmatch(filepath.ToSlash(rel))
		if m == nil {
			return fmt.Errorf("%s: no scenario in its directory's name", path)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
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
		t.Errorf("reading the results of the conformance suite %v: %v", args, err)
	}
	if len(checks) == 0 {
		t.Errorf("the conformance suite %v made no check:\n%s", args, log)
	}
	return checks
}

// sameChecks asserts every check came out the same directly (want) and through the proxy (got):
// its status, and with messages its error message too. The checks an entry of except names (a
// scenario: all its checks; scenario/check: that check, each time it comes) are left out, but one
// of them must fail through the proxy for the reason given.
func sameChecks(t *testing.T, want, got map[string]conformanceCheck, messages bool, except map[string]string) {
	t.Helper()
	ids := map[string]bool{}
	for id := range want {
		ids[id] = true
	}
	for id := range got {
		ids[id] = true
	}
	sorted := make([]string, 0, len(ids))
	for id := range ids {
		sorted = append(sorted, id)
	}
	sort.Strings(sorted)
	excepted := map[string]bool{}
	for _, id := range sorted {
		w, inWant := want[id]
		g, inGot := got[id]
		key := id[:strings.LastIndex(id, "/")]
		if check, _, _ := strings.Cut(id, "#"); except[key] == "" {
			key = check
		}
		if except[key] != "" {
			excepted[key] = excepted[key] || g.Status == "FAILURE" && strings.Contains(g.Description+" "+g.ErrorMessage, except[key])
			continue
		}
		switch {
		case !inGot:
			t.Errorf("%s: %s directly, missing through the proxy", id, w.Status)
		case !inWant:
			t.Errorf("%s: %s through the proxy (%s), missing directly", id, g.Status, g.Description)
		case retryTiming(w.Status, id) != retryTiming(g.Status, id):
			t.Errorf("%s: %s through the proxy (%s %s), %s directly (%s %s)", id, g.Status, g.Description, g.ErrorMessage, w.Status, w.Description, w.ErrorMessage)
		case messages && g.ErrorMessage != w.ErrorMessage:
			t.Errorf("%s: through the proxy %q, directly %q", id, g.ErrorMessage, w.ErrorMessage)
		}
	}
	for key, why := range except {
		if !excepted[key] {
			t.Errorf("%s: no check failed through the proxy saying %q; if it now works, compare it", key, why)
		}
	}
}

// retryTiming reads sse-retry's timing check as the client either honouring the server's retry
// field (SUCCESS, or WARNING when up to 2x late, which the suite puts down to network delays) or
// not (FAILURE): how late within that bound is the machine's load, not the proxy's doing.
func retryTiming(status, id string) string {
	if strings.HasPrefix(id, "sse-retry/client-sse-retry-timing") && status == "WARNING" {
		return "SUCCESS"
	}
	return status
}

// countStatuses counts checks by status: "300 SUCCESS, 2 FAILURE".
func countStatuses(checks map[string]conformanceCheck) string {
	n := map[string]int{}
	for _, c := range checks {
		n[c.Status]++
	}
	var parts []string
	for _, s := range []string{"SUCCESS", "WARNING", "FAILURE", "SKIPPED"} {
		if n[s] > 0 {
			parts = append(parts, strconv.Itoa(n[s])+" "+s)
		}
	}
	return strings.Join(parts, ", ")
}

// originRewrites counts, per scenario, the origin-rewrite events in the transcripts the proxied
// runs' proxies wrote under dir (dir/SCENARIO/tee*.jsonl, a session each, the scenario's
// slashes written as +), and fails the test on
// one recorded with a fault: a rewrite is the proxy's, never the server's misbehaviour.
func originRewrites(t *testing.T, dir string) map[string]int {
	t.Helper()
	n := map[string]int{}
	files, _ := filepath.Glob(filepath.Join(dir, "*", "tee*.jsonl"))
	for _, f := range files {
		sc := strings.ReplaceAll(filepath.Base(filepath.Dir(f)), "+", "/")
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		s := bufio.NewScanner(bytes.NewReader(b))
		s.Buffer(nil, 1<<24)
		for s.Scan() {
			var r struct {
				Event string `json:"event"`
				Fault string `json:"fault"`
			}
			if json.Unmarshal(s.Bytes(), &r) != nil || r.Event != "origin-rewrite" {
				continue
			}
			n[sc]++
			if r.Fault != "" {
				t.Errorf("%s: an origin rewrite recorded as the fault %s: %s", sc, r.Fault, s.Bytes())
			}
		}
	}
	return n
}
