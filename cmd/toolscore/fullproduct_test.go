package main

import (
	"os"
	"strings"
)

// fullProduct says whether a docker test sweeps the full product of its axes (every client,
// schema mode, protocol and transport) or the deliberate sample that proves each client and
// fault once: scripts/nightly sets TOOLSCORE_FULL=1, scripts/test does not, which keeps a cold CI
// run inside its budget.
func fullProduct() bool { return os.Getenv("TOOLSCORE_FULL") == "1" }

// everyClient is every built-in client and agent of the study, for the full product.
const everyClient = "raw,go-sdk/call,go-sdk/list-then-call,mcp-go/call,mcp-go/list-then-call," + sdkClientsNonGo + ",claude-code,codex,gemini-cli,java-sdk,java-sdk/validating"

// sdkClientsNonGo is the TypeScript and Python SDK paths, which run in their cell images.
const sdkClientsNonGo = "ts-sdk/call,ts-sdk/list-then-call,ts-client-v2/call,ts-client-v2/list-then-call,python-sdk/call,python-sdk/list-then-call"

// clientList is a comma list as a slice.
func clientList(s string) []string { return strings.Split(s, ",") }
