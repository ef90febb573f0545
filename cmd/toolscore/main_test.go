package main

import (
	"os"
	"strconv"
	"testing"

	"github.com/toolscore/toolscore/internal/grade"
)

// TestMain lets the test binary stand in for the toolscore binary (and for a few misbehaving
// servers), so the end-to-end tests start real processes over real pipes without a build step.
func TestMain(m *testing.M) {
	if os.Getenv("TOOLSCORE_AS_MAIN") == "1" {
		if len(os.Args) > 2 && os.Args[1] == "badserver" {
			os.Exit(badServer(os.Args[2], os.Args[3:]))
		}
		runsBinary = os.Getenv(runsBinaryEnv)
		if v, err := strconv.Atoi(os.Getenv(graderVersionEnv)); err == nil {
			grade.GraderVersion = v
		}
		os.Exit(asMain(os.Args[1:]))
	}
	os.Setenv("TOOLSCORE_AS_MAIN", "1")
	// No sweep of a test reuses another's cells: the static build's have no cell cache, and
	// this binary's as toolscore an empty one of their own (asMain), unless a test names one.
	os.Setenv(cacheDirEnv, "off")
	// A race-instrumented process sleeps 1 s at exit by default; every session here ends two.
	os.Setenv("GORACE", "atexit_sleep_ms=0 "+os.Getenv("GORACE"))
	// A sweep this test binary runs (toolscore run) is race-instrumented, and starts its runs'
	// proxies, Go adapters and built-in servers from the plain static build: instrumented, they
	// took twice the CPU, and their own concurrency is covered where it is tested in-process
	// (internal/proxy under -race) and by the tests here that start os.Args[0] proxy directly.
	if p, err := buildStatic(); err == nil {
		os.Setenv(runsBinaryEnv, p)
	}
	code := m.Run()
	for _, c := range cleanups {
		c()
	}
	os.Exit(code)
}

// asMain runs this binary as toolscore, with a cell cache of its own, empty, unless the test
// named one in TOOLSCORE_CACHE_DIR: every sweep a test runs stores cells as a user's does, and
// none finds another test's.
func asMain(args []string) int {
	if os.Getenv(cacheDirEnv) != "off" || len(args) == 0 || args[0] != "run" {
		return mainCode(args)
	}
	dir, err := os.MkdirTemp("", "toolscore-cells-")
	if err != nil {
		return mainCode(args)
	}
	os.Setenv(cacheDirEnv, dir)
	code := mainCode(args)
	os.RemoveAll(dir)
	return code
}

// runsBinaryEnv names the binary a sweep of the test binary starts its runs from (runsBinary).
const runsBinaryEnv = "TOOLSCORE_TEST_RUNS_BINARY"

// graderVersionEnv, when set, is the grader version this binary sweeps with as toolscore, in
// place of grade.GraderVersion: a sweep as a later grader's.
const graderVersionEnv = "TOOLSCORE_TEST_GRADER_VERSION"

// cleanups run after every test, for what tests share (a built binary).
var cleanups []func()
