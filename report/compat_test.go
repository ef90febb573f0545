package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/toolscore/toolscore/tally"
)

// TestCompatSample: the sample sweep as the compatibility table (golden file).
func TestCompatSample(t *testing.T) {
	var b bytes.Buffer
	if err := Compat(&b, sample()); err != nil {
		t.Fatal(err)
	}
	golden(t, "sample.compat.md", b.Bytes())
}

// TestCompatAxes: a cell whose protocols and transports disagree is split by exactly those
// coordinates, the library is named once per client, and hostile text stays in its cell.
func TestCompatAxes(t *testing.T) {
	r := &tally.Results{Scenario: "axes"}
	for _, proto := range []string{"2025-11-25", "2026-07-28"} {
		for _, transport := range []string{"stdio", "http"} {
			c := mkCell("go-sdk/call", "type-swap", "published", 1, "passed:1")
			c.Protocol, c.Transport, c.Library = proto, transport, "go-sdk v1.8.0 | x"
			if proto == "2026-07-28" && transport == "http" {
				c.Outcome = map[string]int{"threw": 1}
			}
			r.Cells = append(r.Cells, c)
		}
	}
	var b bytes.Buffer
	if err := Compat(&b, r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"- **go-sdk/call**: go-sdk v1.8.0 \\| x\n",
		"| type-swap | 2025-11-25, stdio: passed 1/1; 2025-11-25, http: passed 1/1; 2026-07-28, stdio: passed 1/1; 2026-07-28, http: threw 1/1 |\n",
		"else per protocol × transport",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the table lacks %q:\n%s", want, b.String())
		}
	}
}
