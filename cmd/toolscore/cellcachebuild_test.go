package main

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/docker/docker/api/types/image"
	"github.com/docker/docker/client"
)

// TestDockerCellCacheBuildsOnlyWhatRuns (issue 55): on docker a sweep builds the cell images of
// the clients with a cell to run, and the first client's, where the server's checks run. Two
// clients of the manifest's own, each with an install step of its own (so an image of its own,
// built by this test alone), after raw: once their images are removed, a sweep whose cells all
// come from the cell cache builds neither, and says so; with beta's install step changed, a
// sweep builds beta's image, not acme's, and runs beta's cell alone.
func TestDockerCellCacheBuildsOnlyWhatRuns(t *testing.T) {
	api := engine(t)
	dir := copyHarness(t)
	cache := filepath.Join(t.TempDir(), "cells")
	mark := fmt.Sprint(time.Now().UnixNano())
	manifest := func(beta string) {
		writeFile(t, filepath.Join(dir, "m.yaml"), "name: builds\nserver: {builtin: ledger}\ntool: get_account_balance\n"+
			"arguments: {account_id: ACC-4471}\nfaults: [clean]\nschema_modes: [hidden]\nclients:\n  - raw\n"+
			"  - name: acme\n    runtime: python\n    command: [python3, harness/sdk.py]\n    install: ['echo acme "+mark+" > acme.txt']\n"+
			"  - name: beta\n    runtime: python\n    command: [python3, harness/sdk.py]\n    install: ['echo beta "+mark+beta+" > beta.txt']\nruns: 1\n")
	}
	n := 0
	sweep := func() (ran map[string]int, res string, stderr string) {
		t.Helper()
		n++
		out := filepath.Join(t.TempDir(), fmt.Sprint(n))
		code, _, stderr := runStatic(t, filepath.Join(dir, "m.yaml"), "--backend", "docker", "--cache", cache, "--out", out)
		if code != 0 {
			t.Fatalf("sweep %d exited %d:\n%s", n, code, stderr)
		}
		r := readResultsDir(t, out)
		return ranByClient(r), fmt.Sprintf("built or found %q, not built %q", r.Installed, r.NotInstalled), stderr + readFile(t, filepath.Join(out, "summary.md"))
	}
	built := regexp.MustCompile(`built (toolscore/cell-\S+) for (acme|beta) in`)
	tags := func(log string) map[string]string {
		m := map[string]string{}
		for _, g := range built.FindAllStringSubmatch(log, -1) {
			m[g[2]] = g[1]
		}
		return m
	}
	manifest("")
	ran, said, log := sweep()
	first := tags(log)
	if !reflect.DeepEqual(ran, map[string]int{"raw": 1, "acme": 1, "beta": 1}) || len(first) != 2 || said != `built or found ["raw" "acme" "beta"], not built []` {
		t.Fatalf("first sweep: ran %v, images built %v, %s; want every cell run, acme's and beta's images built\n%s", ran, first, said, log)
	}
	remove := func(tag string) {
		t.Helper()
		if _, err := api.ImageRemove(context.Background(), tag, image.RemoveOptions{}); err != nil && !client.IsErrNotFound(err) {
			t.Fatal(err)
		}
	}
	there := func(tag string) bool {
		_, err := api.ImageInspect(context.Background(), tag)
		return err == nil
	}
	for _, tag := range first {
		remove(tag)
		t.Cleanup(func() { remove(tag) })
	}

	ran, said, log = sweep()
	if len(ran) != 0 || len(tags(log)) != 0 || there(first["acme"]) || there(first["beta"]) || said != `built or found ["raw"], not built ["acme" "beta"]` {
		t.Errorf("every cell in the cache: ran %v, images built %v, %s; want nothing run, neither acme's nor beta's image built\n%s", ran, tags(log), said, log)
	}
	if !strings.Contains(log, "no cell image built, every cell of it is in the cell cache: acme, beta") ||
		!strings.Contains(log, "no cell image built, every cell in the cache: acme, beta; cell images built or found for the cells that ran or the server's checks: raw") {
		t.Errorf("the log and summary.md do not say what was built, and why:\n%s", log)
	}

	manifest(" changed")
	ran, said, log = sweep()
	third := tags(log)
	for _, tag := range third {
		t.Cleanup(func() { remove(tag) })
	}
	if !reflect.DeepEqual(ran, map[string]int{"beta": 1}) || len(third) != 1 || third["beta"] == "" || there(first["acme"]) || said != `built or found ["raw" "beta"], not built ["acme"]` {
		t.Errorf("beta's install changed: ran %v, images built %v, %s; want beta's cell run and its image alone built\n%s", ran, third, said, log)
	}
}
