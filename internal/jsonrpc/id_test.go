package jsonrpc

import "testing"

func TestIDKey(t *testing.T) {
	same := [][]string{
		{"3", "3.0", "3e0", "3E+0", "30e-1", "0.3e1", " 3 ", "3.000"},
		{"-12", "-1.2e1", "-120E-1"},
		{"0", "-0", "0.0", "0e7"},
		{"12345678901234567890123", "1.2345678901234567890123e22"},
		{"1e400", "10e399", "0.1e401"},
		{"3.5", "35e-1"},
		{`"3"`, `"\u0033"`},
		{`"a/b"`, `"a\/b"`},
	}
	seen := map[string]string{}
	for _, group := range same {
		want := IDKey([]byte(group[0]))
		for _, id := range group[1:] {
			if got := IDKey([]byte(id)); got != want {
				t.Errorf("IDKey(%s) = %q, IDKey(%s) = %q: want one key", id, got, group[0], want)
			}
		}
		if other, dup := seen[want]; dup {
			t.Errorf("%s and %s have one key %q", group[0], other, want)
		}
		seen[want] = group[0]
	}
	for id, want := range map[string]string{
		"3": "3", "3.0": "3", "300": "300", "3.5": "35e-1", "1e400": "1e400", `"3"`: `"3"`,
		"": "", "null": "", " null ": "", "[1, 2]": "[1,2]", "true": "true", "3x": "3x", "01": "01", "1e": "1e",
	} {
		if got := IDKey([]byte(id)); got != want {
			t.Errorf("IDKey(%q) = %q, want %q", id, got, want)
		}
	}
}
