// Package scenario holds the scenario manifest: its types, loading it with errors that point
// at file:line:col, and expanding it into the matrix of cells the runner executes. It is the
// first step of the data flow: everything downstream reads a [Scenario] or its cells.
//
// A manifest is used in this order:
//
//	data, err := scenario.ReadFile(path)              // bounded: a huge file is refused unread
//	sc, err := scenario.Load(path, data, known)       // typed, checked, defaults filled in
//	for _, c := range sc.Cells() { ... }              // the matrix, in manifest order
//
// [Load] checks the manifest against a [Known] (the faults, clients, agents and builtin
// servers that exist, and functions that check a fault's options), which the caller fills in
// from the fault and client registries, so this package imports neither. Every problem is
// found before anything runs: each is an [*Error] naming file:line:col and the field, several
// joined, and [Errors] takes them apart again (the Action annotates the manifest's lines with
// them).
//
// A [Scenario] names a [Server] (builtin, command, image or url), one tool call or several
// ([Tool]) with the truth a right answer holds, and the axes of the matrix: [Fault], [SchemaMode],
// [Protocol], [Transport] and [Client]. [Scenario.Cells] expands them into [Cell] values (tool
// outermost, client innermost), each named by a key that stays the same from run to run, the
// key of every result, baseline and diff. [Expect] entries say which outcomes a cell must have;
// [Expect.Matches] picks the cells an expectation applies to.
//
// [Schema] generates the manifest's JSON Schema from these types (checked in as
// schema/scenario.schema.json, which a test keeps in step); [Starter] writes the starter
// manifest of toolscore init.
//
// Files: scenario.go (the types), load.go ([ReadFile], [Load], limits), validate.go (the
// checks the types alone do not catch), errors.go ([Error]), cells.go (the matrix), schema.go
// (the JSON Schema), serverimage.go (server.image), starter.go (toolscore init's manifest).
//
// Used by: the runner, tally, report, the Action and the CLI. Uses: record (a cell's
// coordinates, the outcomes an expectation names).
package scenario
