package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolscore/toolscore/internal/client"
)

// TestClientFolder: adding a client is adding one folder. In a copy of the repository a folder
// internal/client/clients/toolscore-throwaway is added, made of ts-sdk's adapter and lockfiles
// with a client.yaml and a doc.md of its own, and no other file is touched: the toolscore built
// from that copy lists it in toolscore clients at the version its lockfile pins, sweeps it on the
// local backend (installed from the folder with npm) and, where a Docker engine answers, on
// docker (its image rendered from the node template), and docs/clients.md's generated blocks
// render its row and its section from the folder.
func TestClientFolder(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command to build the copy with")
	}
	src := t.TempDir()
	copyTree(t, "../..", src)
	const name = "toolscore-throwaway"
	folder := filepath.Join(src, "internal", "client", "clients", name)
	if err := os.Mkdir(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	from := filepath.Join("..", "..", "internal", "client", "clients", "ts-sdk")
	for _, f := range []string{"package.json", "package-lock.json", "adapter.mjs"} {
		b, err := os.ReadFile(filepath.Join(from, f))
		if err != nil {
			t.Fatal(err)
		}
		if f == "adapter.mjs" { // the observation names the client it is
			b = []byte(strings.ReplaceAll(string(b), `"ts-sdk/"`, `"`+name+`/"`))
		}
		writeFile(t, filepath.Join(folder, f), string(b))
	}
	writeFile(t, filepath.Join(folder, "client.yaml"), `# A client of the test alone: ts-sdk's adapter under another name.
paths: [list-then-call]
runtime: node
package: "@modelcontextprotocol/sdk"
does: 'the throwaway adapter of TestClientFolder'
`)
	const section = "## `" + name + "`: a client of a test\n\nIt lives in its folder alone.\n"
	writeFile(t, filepath.Join(folder, "doc.md"), section)

	// Documented: the blocks TestDocsAreGenerated keeps in docs/clients.md, rendered from the
	// copy's client folders and the registry's other clients, hold its row and its section.
	folders, err := client.ReadFolders(os.DirFS(filepath.Join(src, "internal", "client", "clients")))
	if err != nil {
		t.Fatal(err)
	}
	ds := slices.DeleteFunc(client.Descriptors(), func(d client.Descriptor) bool { return d.Image.Folder != nil })
	ds = append(ds, folders...)
	slices.SortFunc(ds, func(a, b client.Descriptor) int { return strings.Compare(a.Name, b.Name) })
	row := "| `" + name + "/list-then-call` | `@modelcontextprotocol/sdk` 1.32.2 (npm) | the throwaway adapter of TestClientFolder | `internal/client/clients/" + name + "` |  |\n"
	if table := clientTable(t, ds); !strings.Contains(table, row) {
		t.Errorf("the table of docs/clients.md lacks the row\n%s\nrendered:\n%s", row, table)
	}
	if sections := clientSections(ds); !strings.Contains(sections, section) {
		t.Errorf("the sections of docs/clients.md lack the folder's doc.md:\n%s", sections)
	}

	bin := filepath.Join(t.TempDir(), "toolscore")
	build := exec.Command("go", "build", "-o", bin, "./cmd/toolscore")
	build.Dir = src
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build in the copy: %v\n%s", err, out)
	}
	t.Setenv("TOOLSCORE_CACHE", t.TempDir())
	run := func(t *testing.T, args ...string) (string, string) {
		t.Helper()
		cmd := exec.Command(bin, args...)
		var o, e strings.Builder
		cmd.Stdout, cmd.Stderr = &o, &e
		if err := cmd.Run(); err != nil {
			t.Fatalf("toolscore %s: %v\n%s", strings.Join(args, " "), err, e.String())
		}
		return o.String(), e.String()
	}

	// Listed.
	stdout, _ := run(t, "clients", "--format", "json")
	var rows []clientRow
	if err := json.Unmarshal([]byte(stdout), &rows); err != nil {
		t.Fatalf("toolscore clients --format json: %v\n%s", err, stdout)
	}
	i := slices.IndexFunc(rows, func(r clientRow) bool { return r.Name == name+"/list-then-call" })
	if i < 0 {
		t.Fatalf("toolscore clients does not list %s/list-then-call:\n%s", name, stdout)
	}
	if r := rows[i]; r.Kind != "SDK client" || r.Library != "npm @modelcontextprotocol/sdk" || r.Version != "1.32.2" {
		t.Errorf("toolscore clients lists %+v; want an SDK client on npm @modelcontextprotocol/sdk 1.32.2", r)
	}

	// Swept.
	manifest := filepath.Join(t.TempDir(), "throwaway.yaml")
	writeFile(t, manifest, `name: throwaway
server: {builtin: ledger}
tool: get_account_balance
arguments: {account_id: ACC-4471}
faults: [clean, type-swap]
schema_modes: [published]
protocols: [2025-11-25]
transports: [stdio]
clients: [`+name+`/list-then-call]
runs: 1
`)
	sweep := func(t *testing.T, backend string) {
		out := filepath.Join(t.TempDir(), "out")
		run(t, "run", manifest, "--backend", backend, "--out", out)
		got := map[string]string{}
		for _, c := range readResultsDir(t, out).Cells {
			got[c.Client+" "+c.Fault] = c.Counts()
		}
		// ts-sdk/list-then-call's counts, which this client's adapter and library are.
		want := map[string]string{name + "/list-then-call clean": "passed 1/1", name + "/list-then-call type-swap": "threw 1/1"}
		if len(got) != len(want) {
			t.Errorf("%s cells: %v, want %v", backend, got, want)
		}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%s: %s is %q, want %q", backend, k, got[k], v)
			}
		}
	}
	t.Run("local", func(t *testing.T) {
		if _, err := exec.LookPath("npm"); err != nil {
			t.Skip("no npm: the local backend cannot install a node client")
		}
		sweep(t, "local")
	})
	t.Run("docker", func(t *testing.T) {
		serialEngine(t)
		sweep(t, "docker")
	})
}
