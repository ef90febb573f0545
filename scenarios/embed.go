package scenarios

import _ "embed"

// Ledger is scenarios/ledger.yaml.
//
//go:embed ledger.yaml
var Ledger []byte

// LedgerPath is how errors and reports name the embedded manifest.
const LedgerPath = "scenarios/ledger.yaml"
