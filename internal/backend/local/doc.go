// Package local is the local backend: each run a fresh process group on this machine
// ([Backend]), killed whole afterwards with what left it. Each live group is noted on disk
// ([GroupDir]) so the next sweep kills what a killed runner left ([SweepGroups]).
//
// Files: local.go (a run), groups.go (the groups on record).
//
// Used by: the runner (package runner), execute's and the CLI's local runs. Uses: backend (the
// run's Spec and Result, Owner), proc, runenv.
package local
