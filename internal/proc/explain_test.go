package proc

import "testing"

// TestExplaining quotes the line that says why, not the notice a package manager printed last.
func TestExplaining(t *testing.T) {
	tests := []struct{ stderr, want string }{
		{"cannot open the database\n", "cannot open the database"},
		// npx with a ':' in its PATH, as a multi-tool run directory once had.
		{"sh: 1: mcp-server-everything: not found\nnpm notice\nnpm notice New major version of npm available! 10.8.2 -> 11.6.2\nnpm notice To update run: npm install -g npm@11.6.2\nnpm notice\n",
			"sh: 1: mcp-server-everything: not found"},
		{"Traceback (most recent call last):\n  File \"x.py\", line 1, in <module>\nKeyError: 'API_KEY'\n", "KeyError: 'API_KEY'"},
		{"starting up\nlistening on stdio\n", "listening on stdio"},
		{"npm notice only\n", "npm notice only"},
		{"Error: API_KEY is not set\n    at main (/srv/index.js:3:9)\nnpm WARN exec whatever\n", "Error: API_KEY is not set"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := Explaining(tt.stderr, 300); got != tt.want {
			t.Errorf("Explaining(%q) = %q, want %q", tt.stderr, got, tt.want)
		}
	}
}
