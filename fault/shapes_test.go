package fault_test

import (
	"bytes"
	"context"
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/toolscore/toolscore/fault"
)

// TestEveryFaultOnAnyShape applies every fault to results of other tools than the ledger's
// balance (lists, objects, booleans and nulls in structuredContent, no text, no structured
// part): none may panic or fail, since a server's result is whatever it sends.
func TestEveryFaultOnAnyShape(t *testing.T) {
	results := []string{
		`{"content":[{"type":"text","text":"ACC-4471, ACC-4476"}],"structuredContent":{"accounts":["ACC-4471","ACC-4476"],"page":{"n":1,"more":false},"note":null,"ok":true,"count":2}}`,
		`{"content":[]}`,
		`{"content":[{"type":"image","data":"AAAA","mimeType":"image/png"}],"structuredContent":{}}`,
		`{"structuredContent":{"nested":[[1,2],[{"a":"B-12"}]]}}`,
	}
	for _, name := range fault.Names() {
		for _, res := range results {
			var r map[string]any
			d := json.NewDecoder(bytes.NewReader([]byte(res)))
			d.UseNumber()
			if err := d.Decode(&r); err != nil {
				t.Fatal(err)
			}
			f, err := fault.New(name, nil)
			if err != nil {
				t.Fatal(err)
			}
			func() {
				defer func() {
					if p := recover(); p != nil {
						t.Errorf("%s on %s panicked: %v", name, res, p)
					}
				}()
				if _, err := f.Apply(context.Background(), &fault.Call{Tool: "list_accounts", Arguments: json.RawMessage(`{}`), Result: r, Rand: rand.New(rand.NewPCG(1, 1))}); err != nil {
					t.Errorf("%s on %s: %v", name, res, err)
				}
			}()
		}
	}
}
