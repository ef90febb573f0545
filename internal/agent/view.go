package agent

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/toolscore/toolscore/record"
)

// Classify names the kind of a model view from the tool result as the model got it: whether
// the agent flagged it as an error, and its text parts. JSON (an object or an array) in a part
// is the structured view, words are the text view, nothing is none.
func Classify(isError bool, parts []string) string {
	joined := strings.TrimSpace(strings.Join(parts, "\n"))
	switch {
	case isError || strings.HasPrefix(joined, "<tool_use_error>"):
		return record.ViewError
	case joined == "":
		return record.ViewNone
	}
	for _, p := range parts {
		if isJSONContainer(p) {
			return record.ViewStructured
		}
	}
	return record.ViewText
}

func isJSONContainer(s string) bool {
	s = strings.TrimSpace(s)
	if s == "" || (s[0] != '{' && s[0] != '[') {
		return false
	}
	return json.Valid([]byte(s))
}

// excerpt cuts s at n characters (on a rune boundary).
func excerpt(s string, n int) string {
	r := []rune(s)
	if len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// npmVersion is the version of the npm package pkg whose bin is on PATH as bin, read from the
// package.json beside it (bin links to the package's bin/ or bundle/ directory), or "".
func npmVersion(bin, pkg string) string {
	path, err := exec.LookPath(bin)
	if err != nil {
		return ""
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return ""
	}
	var p struct{ Name, Version string }
	b, err := os.ReadFile(filepath.Join(filepath.Dir(real), "..", "package.json"))
	if err != nil || json.Unmarshal(b, &p) != nil || p.Name != pkg {
		return ""
	}
	return p.Version
}
