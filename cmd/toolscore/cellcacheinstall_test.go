package main

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/toolscore/toolscore/internal/install"
	"github.com/toolscore/toolscore/tally"
)

// TestCellCacheInstallsOnlyWhatRuns (issue 55): a sweep installs only the clients that have a
// cell to run. Each sweep after the first starts with an empty install cache (a fresh
// TOOLSCORE_CACHE, as on a fresh CI runner), and each client's install step counts its runs
// in a log outside the manifest's folder: a sweep whose cells all come from the cell cache
// installs no client; one client's pin changed, only that client is installed; a cell whose
// entry turns out damaged runs, and its client is installed for it (and checked, as every
// install a run uses is).
func TestCellCacheInstallsOnlyWhatRuns(t *testing.T) {
	f := newCacheFixture(t, "one", "two")
	cache := filepath.Join(t.TempDir(), "cells")
	// One's adapter writes into its own install once the marker is there: the check before
	// each run must see it in an install made for a cell the cache did not give, too.
	marker := filepath.Join(f.logs+"-out", "write-into-install")
	writeFile(t, filepath.Join(f.dir, "count-one.sh"), "#!/bin/sh\necho started >> "+filepath.Join(f.logs, "one")+
		"\n[ -e "+marker+" ] && echo written > \"$(dirname \"$0\")/written-$$\"\nexec "+staticToolscore(t)+" client raw\n")
	// The install's log is counted by starts() under install-NAME.
	clients := func(pin string) string {
		step := func(name, pin string) string {
			return "    install: ['echo started >> " + filepath.Join(f.logs, "install-"+name) + " # " + pin + "']\n"
		}
		return "  - name: one\n    runtime: binary\n    command: [./count-one.sh]\n" + step("one", "v1") +
			"  - name: two\n    runtime: binary\n    command: [./count-two.sh]\n" + step("two", pin)
	}
	fresh := func() string { return "TOOLSCORE_CACHE=" + t.TempDir() }
	f.manifest(1, clients("v1"))
	first, stderr := f.sweep(cache)
	if s := f.starts(); first.RunsExecuted != 8 || !reflect.DeepEqual(s, map[string]int{"one": 4, "two": 4, "install-one": 1, "install-two": 1}) {
		t.Fatalf("first sweep: %d runs executed, starts and installs %v; want 8 runs, each client installed once\n%s", first.RunsExecuted, s, stderr)
	}

	before := f.starts()
	second, stderr := f.sweep(cache, fresh())
	if s := diffStarts(before, f.starts()); second.RunsReused != 8 || len(s) != 0 {
		t.Errorf("every cell in the cache, no install: %d runs reused, starts and installs %v; want 8 reused, nothing started or installed\n%s", second.RunsReused, s, stderr)
	}
	if !strings.Contains(stderr, "not installed, every cell of it is in the cell cache: one, two") {
		t.Errorf("the log does not say why no client was installed:\n%s", stderr)
	}
	said := func(sweep string, res *tally.Results, installed, notInstalled []string) {
		t.Helper()
		if !reflect.DeepEqual(res.Installed, installed) || !reflect.DeepEqual(res.NotInstalled, notInstalled) {
			t.Errorf("%s: results.json says installed %q, not installed %q; want %q and %q", sweep, res.Installed, res.NotInstalled, installed, notInstalled)
		}
		// The summary (the job summary's text) of the sweep just run says it where it says what
		// the cache gave.
		summary := readFile(t, filepath.Join(f.logs+"-out", fmt.Sprint(f.n), "summary.md"))
		if !strings.Contains(summary, "not installed, every cell in the cache: "+strings.Join(notInstalled, ", ")) {
			t.Errorf("%s: summary.md does not say what was not installed:\n%s", sweep, summary)
		}
		if len(installed) > 0 && !strings.Contains(summary, "installed for the cells that ran: "+strings.Join(installed, ", ")) {
			t.Errorf("%s: summary.md does not say what was installed, and why:\n%s", sweep, summary)
		}
	}
	said("every cell in the cache", second, nil, []string{"one", "two"})

	before = f.starts()
	f.manifest(1, clients("v2"))
	third, stderr := f.sweep(cache, fresh())
	if got, s := ranByClient(third), diffStarts(before, f.starts()); !reflect.DeepEqual(got, map[string]int{"two": 4}) || !reflect.DeepEqual(s, map[string]int{"two": 4, "install-two": 1}) {
		t.Errorf("two's pin changed: cells ran by client %v, starts and installs %v; want two's 4 cells run and only two installed\n%s", got, s, stderr)
	}
	said("two's pin changed", third, []string{"two"}, []string{"one"})

	// Every entry of one's cells gets a file its manifest does not list: each is discarded when
	// read, and its cell runs, from an install made for it.
	damage := func() {
		t.Helper()
		entries, err := filepath.Glob(filepath.Join(cache, "*", "entry.json"))
		if err != nil {
			t.Fatal(err)
		}
		damaged := 0
		for _, e := range entries {
			if strings.Contains(readFile(t, e), `"one|`) {
				writeFile(t, filepath.Join(filepath.Dir(e), "extra"), "not stored")
				damaged++
			}
		}
		if damaged != 4 {
			t.Fatalf("found %d entries of client one's cells to damage, want 4: %v", damaged, entries)
		}
	}
	damage()
	before = f.starts()
	fourth, stderr := f.sweep(cache, fresh())
	if got, s := ranByClient(fourth), diffStarts(before, f.starts()); !reflect.DeepEqual(got, map[string]int{"one": 4}) || !reflect.DeepEqual(s, map[string]int{"one": 4, "install-one": 1}) {
		t.Errorf("one's entries damaged: cells ran by client %v, starts and installs %v; want one's 4 cells run and only one installed\n%s", got, s, stderr)
	}
	said("one's entries damaged", fourth, []string{"one"}, []string{"two"})

	// The install made for those cells is checked before each run as any other: a run that
	// writes into it stops the sweep before the next run of it.
	damage()
	writeFile(t, marker, "")
	_, stderr, err := f.try(cache, fresh())
	if err == nil || !strings.Contains(stderr, "client one: the install in ") || !strings.Contains(stderr, "changed during the sweep") {
		t.Errorf("a run wrote into the install made for a damaged entry's cell: %v; want the sweep stopped, saying so:\n%s", err, stderr)
	}
}

// TestCellCacheVenvPython (issue 55): a Python client started as python3, which its install's
// venv holds once made, has the same cells' keys whether its install is there or not: the
// second sweep, its install made by the first, reuses every cell; a third, on a fresh install
// cache, reuses them too and makes no venv. The keys are made before any install, and the
// program was the venv's python3 after one but PATH's before.
func TestCellCacheVenvPython(t *testing.T) {
	needRuntimes(t)
	f := newCacheFixture(t)
	cache := filepath.Join(t.TempDir(), "cells")
	writeFile(t, filepath.Join(f.dir, "count.py"), "import os\nopen("+pyQuote(filepath.Join(f.logs, "py"))+", 'a').write('started\\n')\n"+
		"os.execv("+pyQuote(staticToolscore(t))+", ['toolscore', 'client', 'raw'])\n")
	f.manifest(1, "  - name: py\n    runtime: python\n    command: [python3, ./count.py]\n")
	first, stderr := f.sweep(cache)
	if first.RunsExecuted != 4 || !reflect.DeepEqual(first.Installed, []string{"py"}) {
		t.Fatalf("first sweep: %d runs executed, installed %q; want 4, py installed\n%s", first.RunsExecuted, first.Installed, stderr)
	}
	venvs := func(root string) []string {
		found, _ := filepath.Glob(filepath.Join(root, "clients", "*", install.VenvDir))
		return found
	}
	if v := venvs(os.Getenv("TOOLSCORE_CACHE")); len(v) != 1 {
		t.Fatalf("first sweep: venvs %v in the install cache; want py's", v)
	}
	before := f.starts()
	second, stderr := f.sweep(cache)
	if s := diffStarts(before, f.starts()); second.RunsReused != 4 || len(s) != 0 {
		t.Errorf("second sweep, the install there: %d runs reused, starts %v; want every cell reused\n%s", second.RunsReused, s, stderr)
	}
	installs := t.TempDir()
	third, stderr := f.sweep(cache, "TOOLSCORE_CACHE="+installs)
	if s := diffStarts(before, f.starts()); third.RunsReused != 4 || len(s) != 0 || !reflect.DeepEqual(third.NotInstalled, []string{"py"}) {
		t.Errorf("third sweep, a fresh install cache: %d runs reused, starts %v, not installed %q; want every cell reused, py not installed\n%s", third.RunsReused, s, third.NotInstalled, stderr)
	}
	if v := venvs(installs); len(v) != 0 {
		t.Errorf("third sweep made a venv, every cell in the cell cache: %v", v)
	}
}
