// Package jsonstream reads JSON of any size from a stream in bounded memory: a value can be
// skipped, digested, excerpted or read as a string piece by piece, so a 48 MiB answer costs the
// runner a buffer, not copies of itself.
//
// A [Reader] ([NewReader]) reads one value after another from a stream (JSON lines, say),
// holding 64 KiB of it at a time. The next value can be walked ([Reader.Object], member by
// member), skipped ([Reader.Skip]), kept when small ([Reader.Raw], [ErrTooLarge] past the
// limit), read as a decoded string ([Reader.String], [Reader.StringReader]), copied as it goes
// ([Reader.Capture]), or reduced to a digest of what it means rather than how it is spelled
// ([Reader.Digest]: equal when encoding/json would decode the two alike, members in any
// order, strings after their escapes, numbers as written).
//
// A value over [KeepLimit] is not copied into every record that mentions it: a [Keeper]
// written with it keeps its first bytes, counts and hashes the rest, and its [Excerpt] (prefix,
// size, SHA-256) stands for it in runs.jsonl; the value itself stays in the file it came from.
//
// This is how the grader compares a client's observation with the answer on the wire, package
// transcript reads back a large message of a transcript, and client reads an adapter's stdout.
//
// Files: reader.go ([Reader]), digest.go ([Reader.Digest]), excerpt.go ([Excerpt], [Keeper]).
//
// Used by: grade, proxy, transcript, client. Uses nothing of toolscore's own.
package jsonstream
