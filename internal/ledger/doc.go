// Package ledger is toolscore's demo MCP server: a small, always clean fake ledger whose
// get_account_balance tool publishes an outputSchema. Faults never live here; the proxy adds
// them.
//
// It is built on the official Go SDK ([NewServer]) and serves on stdio ([Serve]) or streamable
// HTTP at [HTTPPath] ([ServeHTTP], with [HTTPOptions] for JSON answers or no session), as
// `toolscore ledger` and the builtin server a manifest names as server: {builtin: ledger}.
// [Accounts] is its fixed book: ACC-4471 is the demo's truth (a [Balance] whose text block,
// [Text], states the same facts as its structured form), and the other accounts are its
// neighbours, which the corrupt-plausible fault can present under the requested id. It also
// has a list_accounts tool. The embedded manifest
// scenarios/ledger.yaml, the balance study, runs against it.
//
// Used by: the CLI's ledger command. Uses nothing of toolscore's own.
package ledger
