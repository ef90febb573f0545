package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestVersion: toolscore version names the Go client libraries at the versions go.mod
// requires, and what each cell image installs by default as the image's own files pin it.
func TestVersion(t *testing.T) {
	stdout, stderr, code := toolscore(t, ".", "version")
	if code != 0 || !strings.HasPrefix(stdout, "toolscore dev (go") {
		t.Fatalf("exit %d, stdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	images := "../../internal/backend/images/"
	for _, w := range []struct{ label, what, file, pin string }{
		{"go-sdk/*", "github.com/modelcontextprotocol/go-sdk", "../../go.mod", `github.com/modelcontextprotocol/go-sdk (v\S+)`},
		{"mcp-go/*", "github.com/mark3labs/mcp-go", "../../go.mod", `github.com/mark3labs/mcp-go (v\S+)`},
		{"ts-sdk/*", "npm @modelcontextprotocol/sdk", images + "ts-sdk/package.json", `"@modelcontextprotocol/sdk": "(\S+)"`},
		{"ts-client-v2/*", "npm @modelcontextprotocol/client", images + "ts-client-v2/package.json", `"@modelcontextprotocol/client": "(\S+)"`},
		{"python-sdk/*", "PyPI mcp", images + "python-sdk/requirements.txt", `(?m)^mcp==(\S+)$`},
		{"openai-agents-py", "PyPI openai-agents", images + "openai-agents-py/requirements.txt", `(?m)^openai-agents==(\S+)$`},
		{"langchain-py", "PyPI langchain-mcp-adapters", images + "langchain-py/requirements.txt", `(?m)^langchain-mcp-adapters==(\S+)$`},
		{"openai-agents-js/*", "npm @openai/agents", images + "openai-agents-js/package.json", `"@openai/agents": "(\S+)"`},
		{"langchain-js", "npm @langchain/mcp-adapters", images + "langchain-js/package.json", `"@langchain/mcp-adapters": "(\S+)"`},
		{"fastmcp/*", "PyPI fastmcp", images + "fastmcp/requirements.txt", `(?m)^fastmcp==(\S+)$`},
		{"pydantic-ai", "PyPI pydantic-ai-slim", images + "pydantic-ai/requirements.txt", `(?m)^pydantic-ai-slim==(\S+)$`},
		{"java-sdk/*", "Maven io.modelcontextprotocol.sdk:mcp", images + "java-sdk/pom.xml", `<mcp.version>(\S+)</mcp.version>`},
		{"claude-code", "npm @anthropic-ai/claude-code", images + "claude-code/Dockerfile", `ARG CLAUDE_CODE_VERSION=(\S+)`},
		{"codex", "npm @openai/codex", images + "codex/Dockerfile", `ARG CODEX_VERSION=(\S+)`},
		{"gemini-cli", "npm @google/gemini-cli", images + "gemini-cli/Dockerfile", `ARG GEMINI_CLI_VERSION=(\S+)`},
		{"ai-sdk/*", "npm @ai-sdk/mcp", images + "ai-sdk/package.json", `"@ai-sdk/mcp": "(\S+)"`},
		{"mastra", "npm @mastra/mcp", images + "mastra/package.json", `"@mastra/mcp": "(\S+)"`},
		{"qwen-code", "npm @qwen-code/qwen-code", images + "qwen-code/Dockerfile", `ARG QWEN_CODE_VERSION=(\S+)`},
		{"opencode", "npm opencode-ai", images + "opencode/Dockerfile", `ARG OPENCODE_VERSION=(\S+)`},
		{"copilot-cli", "npm @github/copilot", images + "copilot-cli/Dockerfile", `ARG COPILOT_VERSION=(\S+)`},
		{"rmcp", "crates.io rmcp", images + "rmcp/Cargo.lock", `(?m)^name = "rmcp"\nversion = "(\S+)"$`},
	} {
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
