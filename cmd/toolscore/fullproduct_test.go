package main

import (
	"os"
	"slices"
	"strings"

	"github.com/toolscore/toolscore/internal/client"
)

// fullProduct says whether a docker test sweeps the full product of its axes (every client,
// schema mode, protocol and transport) or the deliberate sample that proves each client and
// fault once: scripts/nightly sets TOOLSCORE_FULL=1, scripts/test does not, which keeps a cold CI
// run inside its budget.
func fullProduct() bool { return os.Getenv("TOOLSCORE_FULL") == "1" }

// studyClients is every client and agent of the embedded study, the columns the full-product
// tests of the faults (drift, hostile schemas, injection, result shapes, task handles) hold
// expectations for.
const studyClients = "raw,go-sdk/call,go-sdk/list-then-call,mcp-go/call,mcp-go/list-then-call," + sdkClientsNonGo + ",claude-code,codex,gemini-cli"

// fieldClients are the frameworks and agents of the field (issue 27), read from the registry:
// every built-in client and agent the embedded study has no column for. Each has a docker sample
// of its own in scripts/test, and the full product of the ledger's faults in
// TestFieldClientsFullProduct.
var fieldClients = strings.Join(slices.DeleteFunc(client.Names(), func(n string) bool {
	return slices.Contains(clientList(studyClients), n)
}), ",")

// everyClient is every built-in client and agent.
var everyClient = studyClients + "," + fieldClients

// sdkClientsNonGo is the TypeScript and Python SDK paths, which run in their cell images.
const sdkClientsNonGo = "ts-sdk/call,ts-sdk/list-then-call,ts-client-v2/call,ts-client-v2/list-then-call,python-sdk/call,python-sdk/list-then-call"

// clientList is a comma list as a slice.
func clientList(s string) []string { return strings.Split(s, ",") }
