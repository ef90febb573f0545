package main

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// hostileSchemaWant is what each client of the study does with a fault of the listing
// (schema-ref, schema-dialect, schema-bomb), found by running them on docker (the full product:
// every client and agent × hidden and published × 2026-07-28 and 2025-11-25 × stdio and http:
// 384 runs, 16 minutes at --parallel 2 with a 45s timeout; the sample CI runs takes about 25s).
// With the schema hidden there is no outputSchema to change and every client passes. With it
// published, only the clients that compile the outputSchema they list react, and none of them
// ever fetched schema-ref's network $ref (the evidence of each such run says "never fetched"):
//
//   - ts-sdk/list-then-call (@modelcontextprotocol/sdk 1.32.2): listTools compiles every
//     outputSchema with Ajv 8 (dist/esm/client/index.js:535 -> validation/ajv-provider.js:67
//     `this._ajv.compile(schema)`); Ajv does not fetch a remote $ref without loadSchema, and
//     throws MissingRefError (ajv/dist/vocabularies/core/ref.js:21): threw, before the call.
//     The unknown $schema is not looked at (validateSchema: false, ajv-provider.js:10): passed.
//     The bomb compiles, and the call's validator (client/index.js:496) walks it with
//     allErrors (ajv-provider.js:11) through 10^12 checks: hung, its CPU time in the evidence.
//   - ts-client-v2/list-then-call (@modelcontextprotocol/client 2.4.0): callTool compiles the
//     listed outputSchema and throws "Tool '…' has an invalid outputSchema" when that fails
//     (dist/public-CvV4ZHkX.mjs:3891, before the request is sent): the MissingRefError of the
//     $ref, and for the dialect its own check, which knows 2020-12, 2019-09, draft-07 and -06
//     only (dist/ajvProvider-BIwGVY6G.mjs:7967 -> dist/dialects-BAIiebX0.mjs:29): threw, both.
//     The bomb spins in the validator (public-CvV4ZHkX.mjs:3921): hung.
//   - python-sdk/call and /list-then-call (mcp 2.3.0): call_tool validates the result
//     (mcp/client/session.py:1102), listing the tools itself first when it has not
//     (session.py:1125-1127), so both paths compile the schema. Its validator has an empty
//     referencing Registry (session.py:1181): no network $ref resolves, and the Unresolvable is
//     raised as "Invalid schema for tool …" (session.py:1149-1151): threw. jsonschema 4.26.0
//     takes an unknown $schema for its latest draft with a DeprecationWarning
//     (jsonschema/validators.py:1399-1410): passed. The bomb: iter_errors and best_match
//     (session.py:1144-1148) descend every allOf branch (jsonschema/_keywords.py:332) and every
//     failing anyOf branch (_keywords.py:337): hung.
//   - claude-code (2.1.332), which embeds the TypeScript client 2.x with Ajv2020 in its binary
//     (bin/claude.exe; byte offsets of the bundled JS): against a server offering 2026-07-28 it
//     compiles the outputSchema before the call, and a schema that does not compile stops the
//     call (offset 384602008, "has an invalid outputSchema"): the $ref's MissingRefError, and a
//     dialect other than 2020-12 (offset 384538909, "supports JSON Schema 2020-12 only"):
//     rejected before the call reached the server. The bomb spins in its validator (offset
//     384603146, Ajv2020 with allErrors at 384538457): hung. Under 2025-11-25 it validates
//     nothing against the schema (see claudeCodeWant): passed.
//   - gemini-cli (0.61.0) gives the SDK a LenientJsonSchemaValidator
//     (bundle/chunk-JDPZ4CE3.js:369702, used at :370031) that skips validation of a schema that
//     does not compile: the $ref and the dialect pass. The bomb compiles, and the SDK's call
//     validator (chunk-JDPZ4CE3.js:304547, allErrors at :304185) spins in it: hung.
//   - raw, go-sdk, mcp-go, codex, and every …/call path of the TypeScript SDKs (they compile only
//     what they listed) validate nothing against the schema: passed.
func hostileSchemaWant(client, fault, schema, protocol, transport string) string {
	if schema == "hidden" {
		return "passed"
	}
	switch client {
	case "ts-sdk/list-then-call":
		switch fault {
		case "schema-ref":
			return "threw"
		case "schema-bomb":
			return "hung"
		}
	case "ts-client-v2/list-then-call":
		switch fault {
		case "schema-ref", "schema-dialect":
			return "threw"
		case "schema-bomb":
			return "hung"
		}
	case "python-sdk/call", "python-sdk/list-then-call":
		switch fault {
		case "schema-ref":
			return "threw"
		case "schema-bomb":
			return "hung"
		}
	case "claude-code":
		if protocol == modernRevision {
			switch fault {
			case "schema-ref", "schema-dialect":
				return "rejected"
			case "schema-bomb":
				return "hung"
			}
		}
	case "gemini-cli":
		if fault == "schema-bomb" {
			return "hung"
		}
	}
	return "passed"
}

// TestHostileSchemasOnDocker sweeps the faults of the listing through the real clients on the
// docker backend: with TOOLSCORE_FULL=1 every client and agent of the study × both schema modes
// × both protocols × stdio and http; else a sample that proves each fault once through three
// clients whose outcomes differ (published, 2025-11-25, stdio). Each cell's count is checked
// against hostileSchemaWant; a hung run's evidence carries its CPU time, and a run whose client
// listed schema-ref's $ref says whether it fetched it (none does).
func TestHostileSchemasOnDocker(t *testing.T) {
	engine(t)
	clients, schemas, protocols, transports, timeout := "ts-client-v2/list-then-call,python-sdk/call,mcp-go/list-then-call", "published", "2025-11-25", "stdio", "15s"
	if fullProduct() {
		clients, schemas, protocols, transports, timeout = studyClients, "hidden,published", "2026-07-28,2025-11-25", "stdio,http", "45s"
	}
	dir := t.TempDir()
	manifest := filepath.Join(dir, "hostile-schemas.yaml")
	writeFile(t, manifest, `name: hostile schemas
server: {builtin: ledger}
tool: get_account_balance
arguments: {account_id: ACC-4471}
prompt: What is the balance of ledger account ACC-4471? Answer with the amount and currency.
truth: ["40718.77", "4071877"]
faults: [schema-ref, schema-dialect, schema-bomb]
schema_modes: [`+schemas+`]
protocols: [`+protocols+`]
transports: [`+transports+`]
clients: [`+clients+`]
runs: 1
timeout: `+timeout+`
`)
	out := filepath.Join(dir, "out")
	code, _, stderr := runStatic(t, manifest, "--backend", "docker", "--parallel", "2", "--out", out)
	if code != 0 {
		t.Fatalf("the sweep exited %d:\n%s", code, stderr)
	}
	res := readResultsDir(t, out)
	want := len(clientList(clients)) * 3 * len(strings.Split(schemas, ",")) * len(strings.Split(protocols, ",")) * len(strings.Split(transports, ","))
	if len(res.Unavailable) > 0 || len(res.Cells) != want {
		t.Fatalf("%d cells, unavailable %v; want %d and none", len(res.Cells), res.Unavailable, want)
	}
	var seen []string
	for _, c := range res.Cells {
		w := hostileSchemaWant(c.Client, c.Fault, c.Schema, c.Protocol, c.Transport)
		if c.Outcome[w] != 1 {
			t.Errorf("%s: %s, want %s 1/1 (evidence: %v)", c.Coordinates(), c.Counts(), w, c.Examples)
		}
		ev := c.Examples[w].Evidence
		if w == "hung" && !strings.Contains(ev, "of CPU") {
			t.Errorf("%s: hung without its CPU time: %q", c.Coordinates(), ev)
		}
		if strings.Contains(ev, "the client fetched the network $ref") {
			t.Errorf("%s: a client fetched the network $ref: %q", c.Coordinates(), ev)
		}
		// python-sdk lists the tools itself even on its call path: it got the $ref and left it.
		if c.Client == "python-sdk/call" && c.Fault == "schema-ref" && c.Schema == "published" && !strings.Contains(ev, "never fetched the network $ref") {
			t.Errorf("%s: the evidence does not say the $ref was left unfetched: %q", c.Coordinates(), ev)
		}
		seen = append(seen, fmt.Sprintf("%s × %s: %s (%s)", c.Coordinates(), c.Transport, c.Counts(), ev))
	}
	sort.Strings(seen)
	t.Logf("every cell:\n%s", strings.Join(seen, "\n"))
}
