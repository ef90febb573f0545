// Command toolscore measures what MCP clients and agents do when a tool misbehaves.
//
// main.go dispatches each subcommand (its usage text lists them all); a subcommand lives in a
// file named after it, parses its flags, hands the work to the package that does it, and
// returns an exit code with the meanings of package exitcode. The commands a sweep starts of
// toolscore itself (proxy, replay, ledger, hostile, init, client and agent, cell, serve-stdio,
// connect and the hidden checks) live in package selfcmd instead, in files named the same
// way (adapter.go holds client and agent, bridge.go serve-stdio and connect), so that
// sweep.Reenter runs them in any program that sweeps with itself as toolscore. Where the
// work is:
//
//   - run (and run --resume), merge, report, diff, baseline: the sweep and its output
//     directory (packages runner, outdir, tally, report); action: package action; bisect and
//     repro: a client's first version whose outcome changed, and one run packed to replay.
//   - proxy: package proxy; replay: package replay; ledger and hostile: the builtin servers
//     (packages ledger, hostile); init: a starter manifest (scenario.Starter).
//   - client and agent: the built-in adapters under the runner's contract (packages client,
//     agent); cell, serve-stdio, connect and the hidden probe-server: what runs inside a cell
//     or a server container (packages backend, bridge).
//   - check-client: a user's adapter run on the ledger as a local run does (local.Backend, the
//     proxy) and its output held to the contract the grader reads (client.ReadObservation, grade).
//   - images and clean: the images and containers toolscore makes (package backend); version;
//     demo, one tools/call through each fault.
//
// The same binary is every process of a run: the runner, the adapter, the proxy and a builtin
// server each start it again with another subcommand, so a cell image carries this one binary
// of toolscore's. (A Go test that sweeps is that binary too, through sweep.Reenter.)
package main
