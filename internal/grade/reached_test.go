package grade

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestReached: what a library returned its caller, part by part against the result on the wire
// (each content block by its index and type, the text of an isError result, structuredContent,
// _meta): reached as it was (wherever a block moved to), changed, or dropped; and nothing said
// where the client returned no result.
func TestReached(t *testing.T) {
	dir := t.TempDir()
	text := `{"type":"text","text":"ACC-4471"}`
	image := `{"type":"image","data":"AAAA","mimeType":"image/png"}`
	link := `{"type":"resource_link","uri":"ledger://s.csv","name":"s.csv","mimeType":"text/csv"}`
	sc := `"structuredContent":{"n":1}`
	for _, c := range []struct {
		name, wire, observation, want string
	}{
		{"every part as it was", `{"content":[` + text + `,` + image + `],` + sc + `,"_meta":{"k":"v"}}`,
			`"returned":{"_meta":{"k":"v"},"content":[` + text + `,` + image + `],"isError":false,` + sc + `}`,
			`[{"part":"content[0] text","state":"reached"},{"part":"content[1] image","state":"reached"},{"part":"structuredContent","state":"reached"},{"part":"_meta","state":"reached"}]`},
		{"structuredContent dropped (a summary split)", `{"content":[` + text + `],` + sc + `}`,
			`"returned":{"content":[` + text + `]}`,
			`[{"part":"content[0] text","state":"reached"},{"part":"structuredContent","state":"dropped"}]`},
		{"a block given a member the wire lacked (mcp-go's description)", `{"content":[` + text + `,` + link + `]}`,
			`"returned":{"content":[` + text + `,{"type":"resource_link","uri":"ledger://s.csv","name":"s.csv","mimeType":"text/csv","description":""}]}`,
			`[{"part":"content[0] text","state":"reached"},{"part":"content[1] resource_link","state":"changed"}]`},
		{"blocks moved, one dropped", `{"content":[` + text + `,` + image + `,` + link + `]}`,
			`"returned":{"content":[` + image + `,` + text + `]}`,
			`[{"part":"content[0] text","state":"reached"},{"part":"content[1] image","state":"reached"},{"part":"content[2] resource_link","state":"dropped"}]`},
		{"an error's text and its structured detail", `{"content":[{"type":"text","text":"The tool failed."}],"isError":true,` + sc + `}`,
			`"returned":{"content":[{"type":"text","text":"The tool failed."}],"isError":true}`,
			`[{"part":"content[0] error text","state":"reached"},{"part":"structuredContent","state":"dropped"}]`},
		{"the library's own spelling, and a changed value", `{"content":[],` + sc + `,"_meta":{"k":"v"}}`,
			`"returned":{"content":[],"structured_content":{"n":1},"_meta":{"k":"w"}}`,
			`[{"part":"structuredContent","state":"reached"},{"part":"_meta","state":"changed"}]`},
		{"it raised: nothing said", `{"content":[` + text + `]}`, `"raised":{"class":"E","message":"m"}`, `null`},
		{"a framework's handed text: nothing said", `{"content":[` + text + `]}`, `"handed":{"kind":"text","excerpt":"ACC-4471"}`, `null`},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(dir, "stdout")
			os.WriteFile(out, []byte(`{"client":"c",`+c.observation+"}\n"), 0o644)
			g := SDK(Run{Stdout: out}, callOfT(t, dir, c.wire))
			got, _ := json.Marshal(g.Reached)
			if string(got) != c.want {
				t.Errorf("%s (%s): reached\n%s\nwant\n%s", g.Outcome, g.Evidence, got, c.want)
			}
		})
	}
}
