// Package scenarios holds the example manifests; ledger.yaml, the balance study, is embedded so
// `toolscore run` with no argument runs it.
//
// [Ledger] is the embedded manifest's bytes and [LedgerPath] the name errors, reports and
// annotations give it. The other manifests here (http.yaml, ...) are examples to copy, loaded
// from disk like a user's own.
//
// Used by: the CLI's run command and the Action. Uses nothing.
package scenarios
