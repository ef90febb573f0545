package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// forgeEntries is what a hostile run does to the caches of the user it runs as, run by
// TestHostileRunCacheEntries's client `hostile` during its run (`badserver forge-entries OWN
// CELLS ONCE`): OWN is its own install, whose folder is named on its command line, CELLS the
// cell cache. Once (ONCE made first), it
//   - plants a file in the install of client one (the one no step of which leaves a mark);
//   - edits client two's script in its install and rewrites that install's own record of its
//     files to match, keeping whatever else the record holds;
//   - of the cell cache's entries of client one, sorted by key: names ../victim in the run
//     record of the first (and escapes and a workflow command in its meta), an absolute path
//     in the second, puts a link to the victim in the
//     run directory of the third, each with its manifest rewritten to match; the fourth stays.
func forgeEntries(own, cells, once string) int {
	if os.Mkdir(once, 0o755) != nil {
		return 0
	}
	root := filepath.Dir(own)
	installs, _ := os.ReadDir(root)
	for _, d := range installs {
		dir := filepath.Join(root, d.Name())
		if !d.IsDir() || dir == own || strings.Contains(d.Name(), ".") {
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, "two-installed")); err == nil {
			script := filepath.Join(dir, "count-two.sh")
			b, _ := os.ReadFile(script)
			os.WriteFile(script, []byte(strings.Replace(string(b), "#!/bin/sh\n", "#!/bin/sh\necho PWNED >> "+once+".pwned\n", 1)), 0o755)
			forgeList(dir, ".toolscore-installed.json")
		} else {
			// Its name a legacy workflow command too, for the CI log that says what was planted.
			os.WriteFile(filepath.Join(dir, "##[error]planted.sh"), []byte("echo PLANTED\n"), 0o755)
		}
	}
	var ones []string
	entries, _ := os.ReadDir(cells)
	for _, d := range entries {
		var meta struct{ Cell string }
		b, _ := os.ReadFile(filepath.Join(cells, d.Name(), "entry.json"))
		if json.Unmarshal(b, &meta) == nil && strings.HasPrefix(meta.Cell, "one|") {
			ones = append(ones, filepath.Join(cells, d.Name()))
		}
	}
	slices.Sort(ones)
	if len(ones) != 4 {
		fmt.Fprintf(os.Stderr, "forge-entries: %d entries of client one in %s, want 4\n", len(ones), cells)
		return 1
	}
	victim := filepath.Join(filepath.Dir(once), "victim")
	for i, tee := range []string{"../victim/tee.jsonl", filepath.Join(victim, "tee.jsonl")} {
		runs := filepath.Join(ones[i], "runs.jsonl")
		b, _ := os.ReadFile(runs)
		var rec map[string]any
		json.Unmarshal(b, &rec)
		rec["tee"] = tee
		b, _ = json.Marshal(rec)
		os.WriteFile(runs, append(b, '\n'), 0o644)
		if i == 0 { // and text for the terminal and the CI log of whoever lists the cache
			meta := filepath.Join(ones[i], "entry.json")
			b, _ = os.ReadFile(meta)
			var m map[string]any
			json.Unmarshal(b, &m)
			m["cell"] = "one|\x1b[2J\n::error::forged"
			b, _ = json.Marshal(m)
			os.WriteFile(meta, b, 0o644)
		}
		forgeList(ones[i], "manifest.json")
	}
	runDirs, _ := filepath.Glob(filepath.Join(ones[2], "files", "runs", "*", "run-1"))
	for _, d := range runDirs {
		os.Symlink(victim, filepath.Join(d, "evil"))
	}
	forgeList(ones[2], "manifest.json")
	return 0
}

// forgeList rewrites dir/name, an entry's own list of its files, to list what dir holds now:
// each regular file's size and sha256, each link's target. Where the list is a field of a
// larger record ("files"), the rest of the record is kept as it was.
func forgeList(dir, name string) {
	files := map[string]map[string]any{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(dir, p)
		switch {
		case err != nil || rel == name:
		case d.Type()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			files[filepath.ToSlash(rel)] = map[string]any{"size": 0, "sha256": "", "link": target}
		case d.Type().IsRegular():
			b, _ := os.ReadFile(p)
			sum := sha256.Sum256(b)
			files[filepath.ToSlash(rel)] = map[string]any{"size": len(b), "sha256": hex.EncodeToString(sum[:])}
		}
		return nil
	})
	var record map[string]json.RawMessage
	old, _ := os.ReadFile(filepath.Join(dir, name))
	b, _ := json.Marshal(files)
	if json.Unmarshal(old, &record) == nil && record["files"] != nil {
		record["files"] = b
		b, _ = json.Marshal(record)
	}
	os.WriteFile(filepath.Join(dir, name), b, 0o644)
}

// TestHostileRunCacheEntries (issue 48): a run on the local backend writes into the caches of
// the user it runs as (forgeEntries): a file planted in one client's install, another's script
// edited with its install's record rewritten to match, cell cache entries whose run records
// name ../victim and an absolute path, and one holding a link to the victim. Its own sweep stops
// before a run of the edited install. The next sweep installs both clients afresh and discards
// the three entries, each with a line naming it and what is wrong; nothing outside its --out is
// removed or written (the victim folder beside the output keeps its file), the edited script
// never runs, and the entry left alone is reused.
func TestHostileRunCacheEntries(t *testing.T) {
	f := newCacheFixture(t, "one", "two")
	cells := filepath.Join(t.TempDir(), "cells")
	once := filepath.Join(f.logs+"-out", "forged")
	victim := filepath.Join(f.logs+"-out", "victim")
	writeFile(t, filepath.Join(victim, "keep"), "the victim's own file\n")
	hostile := filepath.Join(f.dir, "hostile.sh")
	writeFile(t, hostile, fmt.Sprintf("#!/bin/sh\nTOOLSCORE_AS_MAIN=1 %q badserver forge-entries \"$(cd \"$(dirname \"$0\")\" && pwd)\" %q %q || exit 1\nexec %q client raw\n",
		os.Args[0], cells, once, staticToolscore(t)))
	if err := os.Chmod(hostile, 0o755); err != nil {
		t.Fatal(err)
	}
	one := "  - name: one\n    runtime: binary\n    command: [./count-one.sh]\n"
	two := "  - name: two\n    runtime: binary\n    command: [./count-two.sh]\n    install: ['touch two-installed']\n"
	f.manifest(1, one)
	f.sweep(cells)
	f.manifest(1, one+two+"  - name: hostile\n    runtime: binary\n    command: [./hostile.sh]\n    install: ['touch hostile-installed']\n")
	// The hostile runs come before two's runs of tool b: the install they run from is not
	// what was installed any more, and the sweep stops there.
	_, stderr, err := f.try(cells)
	if !dirExists(once) {
		t.Fatalf("the hostile client did not run:\n%s", stderr)
	}
	if want := "client two: the install in "; err == nil || !strings.Contains(stderr, want) ||
		!strings.Contains(stderr, `changed during the sweep: its file "count-two.sh" was written or replaced; a run of this sweep wrote into it, so the sweep stopped`) {
		t.Errorf("the sweep whose run wrote into two's install: %v; want it stopped, saying so:\n%s", err, stderr)
	}

	ls := exec.Command(os.Args[0], "cache", "ls", "--cache", cells)
	if b, err := ls.Output(); err != nil || !strings.Contains(string(b), "forged") || strings.ContainsAny(string(b), "\x1b\a") || strings.Contains(string(b), "\n::error") {
		t.Errorf("toolscore cache ls of the forged entries: %v\n%q", err, b)
	}

	f.manifest(1, one+two)
	before := f.starts()
	res, stderr := f.sweep(cells)
	for _, want := range []string{
		`one: the install in `, "is incomplete or damaged (it has a file \"##\u200d[error]planted.sh\" that was not installed); installing it afresh",
		`two: the install in `, `is incomplete or damaged (its record of the install is not signed with this machine's install key: something other than toolscore wrote it); installing it afresh`,
		`: the cached cell `, ` is damaged (the record of its run 1 names the transcript "../victim/tee.jsonl", not one inside the output's runs folder); it is discarded and the cell runs`,
		` is damaged (the record of its run 1 names the transcript "` + filepath.Join(victim, "tee.jsonl") + `", not one inside the output's runs folder); it is discarded and the cell runs`,
		` is damaged (it has a link "files/runs/`, `/run-1/evil", which is never stored); it is discarded and the cell runs`,
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("the sweep after the hostile run does not say %q:\n%s", want, stderr)
		}
	}
	if strings.Contains(stderr, "##[") {
		t.Errorf("the sweep's log holds a workflow command of the hostile run's:\n%s", stderr)
	}
	if b, err := os.ReadFile(filepath.Join(victim, "keep")); err != nil || string(b) != "the victim's own file\n" {
		t.Errorf("the victim beside the output: %q, %v", b, err)
	}
	if entries, _ := os.ReadDir(victim); len(entries) != 1 {
		t.Errorf("the victim beside the output holds %d files, want its own alone", len(entries))
	}
	if _, err := os.Stat(once + ".pwned"); err == nil {
		t.Error("client two's edited script ran")
	}
	if got := diffStarts(before, f.starts()); got["one"] != 3 || ranByClient(res)["one"] != 3 {
		t.Errorf("client one started %d times, ran %d cells; want its 3 forged cells run, its untouched one reused\n%s", got["one"], ranByClient(res)["one"], stderr)
	}
	for _, c := range res.Cells {
		if c.Outcome["passed"] != 1 && c.Outcome["rpc-error"] != 1 {
			t.Errorf("cell %s: %v", c.Key(), c.Outcome)
		}
	}
}

func dirExists(p string) bool {
	info, err := os.Stat(p)
	return err == nil && info.IsDir()
}

// TestPythonClientLeavesItsInstall: a defined Python client whose adapter imports a module of
// its own folder runs every run of its sweep. Python writes its bytecode cache beside the
// modules it imports, which is inside the install, and the install is checked before every
// run: without PYTHONDONTWRITEBYTECODE in the run's environment the sweep stopped after the
// first run as if a hostile run had written there.
func TestPythonClientLeavesItsInstall(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not on PATH")
	}
	t.Setenv("TOOLSCORE_CACHE", t.TempDir())
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "helper.py"), "X = 1\n")
	writeFile(t, filepath.Join(dir, "adapter.py"), "import os, helper\nos.execv("+pyQuote(staticToolscore(t))+", ['toolscore', 'client', 'raw'])\n")
	writeFile(t, filepath.Join(dir, "m.yaml"), "name: own module\nserver: {builtin: ledger}\ntool: get_account_balance\narguments: {account_id: ACC-4471}\n"+
		"faults: [clean]\nschema_modes: [hidden]\nclients:\n  - name: mine\n    runtime: python\n    command: [python3, ./adapter.py]\nruns: 3\n")
	out := filepath.Join(t.TempDir(), "out")
	cmd := exec.Command(os.Args[0], "run", "m.yaml", "--backend", "local", "--no-cache", "--out", out)
	cmd.Dir = dir
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the sweep: %v\n%s", err, b)
	}
	res := readResultsDir(t, out)
	if c := res.Cells[0]; c.Runs != 3 || c.Outcome["passed"] != 3 {
		t.Errorf("the cell: %d runs, %v; want passed 3/3\n%s", c.Runs, c.Outcome, b)
	}
}
