package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolscore/toolscore/record"
)

// TestRepro sweeps the hostile server's markup tool under a hostile scenario name and client
// version, writes the repro of one cell, and checks it: the transcript and the record are the
// run's, the README renders to no element of the server's or the manifest's (GitHub's
// cmark-gfm where installed), and reproduce.sh, with no server, prints the observation the run
// printed.
func TestRepro(t *testing.T) {
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, "hostile.yaml"), hostileReportManifest("markup"))
	if _, stderr, code := toolscore(t, ws, "run", "hostile.yaml", "--backend", "local", "--out", "out"); code != 1 {
		t.Fatalf("toolscore run: exit %d, want 1 (the unmet expectation); stderr:\n%s", code, stderr)
	}
	cell := record.Cell{Client: "raw", Fault: "clean", Schema: "hidden", Protocol: "as-is", Transport: "stdio"}.Key()
	stdout, stderr, code := toolscore(t, ws, "repro", "out", cell, "--scenario", "hostile.yaml", "--out", "repro")
	if code != 0 {
		t.Fatalf("toolscore repro: exit %d\n%s%s", code, stdout, stderr)
	}
	repro := filepath.Join(ws, "repro")
	run := filepath.Join(ws, "out", "runs", "raw__clean__hidden__stdio", "run-1")
	if readFile(t, filepath.Join(repro, "tee.jsonl")) != readFile(t, filepath.Join(run, "tee.jsonl")) {
		t.Errorf("the repro's tee.jsonl is not the run's transcript")
	}
	readme := readFile(t, filepath.Join(repro, "README.md"))
	checkMarkdown(t, "the repro's README.md", readme, "", "")
	for _, want := range []string{"outcome: **passed**", "toolscore replay tee.jsonl", "sh reproduce.sh"} {
		if !strings.Contains(readme, want) {
			t.Errorf("the README lacks %q:\n%s", want, readme)
		}
	}
	if cellJSON := readFile(t, filepath.Join(repro, "cell.json")); !strings.Contains(cellJSON, `"tool": "markup"`) || !strings.Contains(cellJSON, `"client": "raw"`) {
		t.Errorf("cell.json is not the cell's excerpt:\n%s", cellJSON)
	}

	// reproduce.sh finds toolscore on PATH: the test binary stands in under that name.
	bin := t.TempDir()
	if err := os.Symlink(os.Args[0], filepath.Join(bin, "toolscore")); err != nil {
		t.Fatal(err)
	}
	sh := exec.Command("sh", filepath.Join(repro, "reproduce.sh"))
	sh.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	got, err := sh.Output()
	if err != nil {
		t.Fatalf("reproduce.sh: %v", err)
	}
	if want := readFile(t, filepath.Join(run, "stdout")); string(got) != want {
		t.Errorf("reproduce.sh printed\n%s\nwant the run's observation\n%s", got, want)
	}

	// A cell that is not there, or that names several, is refused with the cells to choose from.
	if _, stderr, code := toolscore(t, ws, "repro", "out", "raw × clean", "--scenario", "hostile.yaml"); code != 2 || !strings.Contains(stderr, "want client|fault|schema") {
		t.Errorf("a short cell: exit %d, %s", code, stderr)
	}
	if _, stderr, code := toolscore(t, ws, "repro", "out", "nope|clean|hidden", "--scenario", "hostile.yaml"); code != 2 || !strings.Contains(stderr, `is not in out`) {
		t.Errorf("a cell not in the sweep: exit %d, %s", code, stderr)
	}
}
