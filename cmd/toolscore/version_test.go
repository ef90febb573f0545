package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/toolscore/toolscore/internal/client"
	"github.com/toolscore/toolscore/internal/install"
)

// TestVersion: toolscore version names the Go client libraries at the versions go.mod
// requires, and what each cell image installs by default as the image's own files pin it.
func TestVersion(t *testing.T) {
	stdout, stderr, code := toolscore(t, ".", "version")
	if code != 0 || !strings.HasPrefix(stdout, "toolscore dev (go") {
		t.Fatalf("exit %d, stdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	images := "../../internal/client/clients/"
	// The Go libraries and the agents' folders are named here; every other client folder adds its
	// row from the registry, its pin read by a pattern of its runtime from the file that pins it.
	rows := []struct{ label, what, file, pin string }{
		{"go-sdk/*", "github.com/modelcontextprotocol/go-sdk", "../../go.mod", `github.com/modelcontextprotocol/go-sdk (v\S+)`},
		{"mcp-go/*", "github.com/mark3labs/mcp-go", "../../go.mod", `github.com/mark3labs/mcp-go (v\S+)`},
		{"claude-code", "npm @anthropic-ai/claude-code", images + "claude-code/Dockerfile", `ARG CLAUDE_CODE_VERSION=(\S+)`},
		{"codex", "npm @openai/codex", images + "codex/Dockerfile", `ARG CODEX_VERSION=(\S+)`},
		{"gemini-cli", "npm @google/gemini-cli", images + "gemini-cli/Dockerfile", `ARG GEMINI_CLI_VERSION=(\S+)`},
		{"qwen-code", "npm @qwen-code/qwen-code", images + "qwen-code/Dockerfile", `ARG QWEN_CODE_VERSION=(\S+)`},
		{"opencode", "npm opencode-ai", images + "opencode/Dockerfile", `ARG OPENCODE_VERSION=(\S+)`},
		{"copilot-cli", "npm @github/copilot", images + "copilot-cli/Dockerfile", `ARG COPILOT_VERSION=(\S+)`},
		{"claude-agent-sdk", "npm @anthropic-ai/claude-agent-sdk", images + "claude-agent-sdk/Dockerfile", `ARG CLAUDE_AGENT_SDK_VERSION=(\S+)`},
		{"claude-agent-sdk-py", "PyPI claude-agent-sdk", images + "claude-agent-sdk-py/Dockerfile", `ARG CLAUDE_AGENT_SDK_PY_VERSION=(\S+)`},
		{"kilo-cli", "npm @kilocode/cli", images + "kilo-cli/Dockerfile", `ARG KILO_VERSION=(\S+)`},
		{"continue-cli", "npm @continuedev/cli", images + "continue-cli/Dockerfile", `ARG CONTINUE_CLI_VERSION=(\S+)`},
		{"cline-cli", "npm cline", images + "cline-cli/Dockerfile", `ARG CLINE_VERSION=(\S+)`},
	}
	folders := 0
	for _, d := range client.Descriptors() {
		f := d.Image.Folder
		if f == nil || d.Agent { // an agent's row is named above, its Dockerfile pinning its CLI
			continue
		}
		folders++
		dir, pkg := "../../internal/client/clients/"+d.Name+"/", regexp.QuoteMeta(f.Package)
		switch f.Runtime {
		case install.Node:
			rows = append(rows, struct{ label, what, file, pin string }{d.Label(), "npm " + f.Package, dir + "package.json", `"` + pkg + `": "(\S+)"`})
		case install.Python:
			rows = append(rows, struct{ label, what, file, pin string }{d.Label(), "PyPI " + f.Package, dir + "requirements.txt", `(?m)^` + pkg + `==(\S+)$`})
		case install.Java:
			// The pom pins the dependency by a property (<mcp.version>, <sdk.version>): the
			// one its <version>${...}</version> names.
			_, artifact, _ := strings.Cut(f.Package, ":")
			ref := regexp.MustCompile(`<artifactId>` + regexp.QuoteMeta(artifact) + `</artifactId>\s*<version>\$\{([^}]+)\}</version>`).FindStringSubmatch(readFile(t, dir+"pom.xml"))
			if ref == nil {
				t.Fatalf("%spom.xml names no version property for %s", dir, f.Package)
			}
			rows = append(rows, struct{ label, what, file, pin string }{d.Label(), "Maven " + f.Package, dir + "pom.xml", `<` + regexp.QuoteMeta(ref[1]) + `>(\S+)</`})
		case install.Rust:
			rows = append(rows, struct{ label, what, file, pin string }{d.Label(), "crates.io " + f.Package, dir + "Cargo.lock", `(?m)^name = "` + pkg + `"\nversion = "(\S+)"$`})
		default:
			t.Errorf("client folder %s: no pin pattern for its runtime %q", d.Name, f.Runtime)
		}
	}
	if folders < 13 {
		t.Errorf("the registry holds %d client folders, want the 13 of internal/client/clients at least", folders)
	}
	for _, w := range rows {
		m := regexp.MustCompile(w.pin).FindStringSubmatch(readFile(t, w.file))
		if m == nil {
			t.Fatalf("%s does not pin %s", w.file, w.what)
		}
		want := regexp.MustCompile(`(?m)^  ` + regexp.QuoteMeta(w.label) + ` +` + regexp.QuoteMeta(w.what+" "+m[1]) + `$`)
		if !want.MatchString(stdout) {
			t.Errorf("toolscore version lacks %s at %s %s:\n%s", w.label, w.what, m[1], stdout)
		}
	}
}

// TestVersionFromGit: built where it has no -X main.version, as go build in a clone or go
// install module@tag does, toolscore reports the version go stamped from the repository.
func TestVersionFromGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	src := t.TempDir()
	copyTree(t, "../..", src)
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.invalid", "-c", "commit.gpgsign=false"}, args...)...)
		// Named outright, so no git command can reach the repository this test runs in.
		cmd.Dir, cmd.Env = src, append(os.Environ(), "GIT_DIR="+filepath.Join(src, ".git"), "GIT_WORK_TREE="+src)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	git("init", "-q")
	git("add", "-A")
	git("commit", "-qm", "toolscore")
	git("tag", "v0.0.1-git")
	bin := filepath.Join(t.TempDir(), "toolscore")
	build := exec.Command("go", "build", "-o", bin, "./cmd/toolscore")
	build.Dir = src
	build.Env = append(os.Environ(), "GOFLAGS=-buildvcs=true", "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "version").Output()
	if err != nil || !strings.HasPrefix(string(out), "toolscore v0.0.1-git (go") {
		t.Errorf("toolscore version: %v\n%s", err, out)
	}
}

// copyTree copies the regular files under from into to, without .git and test outputs.
func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		switch {
		case d.Name() == ".git" && d.IsDir(), d.Name() == "toolscore-out":
			return filepath.SkipDir
		case d.Name() == ".git": // a worktree's pointer to its repository
			return nil
		case d.IsDir():
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		if !d.Type().IsRegular() || strings.HasSuffix(rel, ".test") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}
