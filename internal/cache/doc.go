// Package cache is the memory of finished cells across sweeps: an entry is one cell's runs (their
// records of runs.jsonl and their directories, transcripts included), stored under a key made of
// everything that decides the cell apart from the server, and never changed once stored.
//
// [Cache.Put] makes an entry beside the others and renames it into place whole, with a manifest of
// every file's size and SHA-256 written last; [Cache.Get] checks every file against it, so an entry
// cut short or edited is a [*DamagedError], which the sweep discards ([Cache.Discard]) and runs the
// cell. Two sweeps sharing a cache never see half an entry: renames are atomic, and a removal and a
// store of one key take the same lock (package filelock, as the client installs do).
//
// The server is checked, not trusted: [ReadSessions] reads what a cached run's client sent each
// server session and what the server answered before any fault, [Replay] plays those requests to a
// fresh live server, and [Session.Differs] compares the answers, JSON-RPC ids aside and the
// manifest's volatile fields masked. The runner reuses an entry only when nothing differs.
package cache
