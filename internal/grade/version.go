package grade

// GraderVersion is the version of how toolscore grades and faults a run: the cell cache keys
// every cell by it, so a cell graded or faulted by other code is never served from the cache.
// Bump it in the commit that changes what the grader, the faults or the proxy make of the same
// bytes; TestGraderVersionBumped fails when their source changes without a new hash beside it.
const GraderVersion = 1
