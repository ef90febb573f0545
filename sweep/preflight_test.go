package sweep

import "testing"

// TestExplaining picks the line of a server's stderr that says why it exited: not the package
// runner's last notice, nor a stack frame after the reason.
func TestExplaining(t *testing.T) {
	for _, c := range []struct {
		lines []string
		want  string
	}{
		{[]string{"npm notice Downloading x@1", "Error: API_KEY environment variable is not set", "npm notice New minor version of npm available! 10.8.2 -> 10.9.0"},
			"Error: API_KEY environment variable is not set"},
		{[]string{"Error: Missing GITHUB_TOKEN", "    at main (/app/index.js:3:9)", "", "Node.js v22.1.0"}, "Error: Missing GITHUB_TOKEN"},
		{[]string{"starting", "listening on stdio", "npm notice update available"}, "listening on stdio"},
		{[]string{"npm notice only"}, "npm notice only"},
		{nil, ""},
	} {
		if got := explaining(c.lines); got != c.want {
			t.Errorf("explaining(%q) = %q, want %q", c.lines, got, c.want)
		}
	}
}
