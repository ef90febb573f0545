package grade

// GraderVersion is the version of how toolscore grades and faults a run: the cell cache keys
// every cell by it, so a cell graded or faulted by other code is never served from the cache.
// Bump it in the commit that changes what the grader, the faults or the proxy make of the same
// bytes; TestGraderVersionBumped fails when their source changes without a new hash beside it.
// It is a variable only so that cmd/toolscore's test binary, sweeping as toolscore, can play a
// later grader and show that every cell then runs again; nothing else sets it.
var GraderVersion = 5
