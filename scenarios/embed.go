// Package scenarios holds the example manifests; ledger.yaml, the balance study, is embedded so
// `toolscore run` with no argument runs it.
package scenarios

import _ "embed"

// Ledger is scenarios/ledger.yaml.
//
//go:embed ledger.yaml
var Ledger []byte

// LedgerPath is how errors and reports name the embedded manifest.
const LedgerPath = "scenarios/ledger.yaml"
