package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestCellCacheCheckProgress (issue 52, item 5): the cache check, which plays every recorded
// session to the live server before a cell is reused (minutes on a big matrix), says what it
// checks and how far it is, with the elapsed time and an ETA, instead of minutes of silence.
// Built-in Go clients, so the sessions differ by client and there are enough to show parts.
func TestCellCacheCheckProgress(t *testing.T) {
	f := newCacheFixture(t)
	f.manifest(1, "  - raw\n  - go-sdk/call\n  - go-sdk/list-then-call\n  - mcp-go/call\n  - mcp-go/list-then-call\n")
	cache := filepath.Join(t.TempDir(), "cells")
	f.sweep(cache)
	res, stderr := f.sweep(cache)
	if res.RunsReused != 20 {
		t.Fatalf("the second sweep reused %d runs, want its 20:\n%s", res.RunsReused, stderr)
	}
	head := regexp.MustCompile(`cell cache: checking the live server against 20 cached cells: (\d+) recorded sessions to play, one after the other\n`).FindStringSubmatch(stderr)
	if head == nil {
		t.Fatalf("no line says what the cache check does:\n%s", stderr)
	}
	parts := regexp.MustCompile(`cell cache: \[\d+/`+head[1]+` sessions, \d+:\d\d elapsed, ETA \d+:\d\d\] checking the server\n`).FindAllString(stderr, -1)
	if len(parts) == 0 || !regexp.MustCompile(`cell cache: the server checked in \d+:\d\d\n`).MatchString(stderr) {
		t.Errorf("%s sessions checked with %d lines of progress, want some, and the time it took:\n%s", head[1], len(parts), stderr)
	}
	if strings.Count(stderr, "cell cache: checking the live server") != 1 {
		t.Errorf("the check announced more than once:\n%s", stderr)
	}
}
