package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/toolscore/toolscore/internal/client"
)

// The faults of the listing rewrite the outputSchema tools/list publishes for the target tool
// and pass the call's answer as the server sent it; this file holds what the wire tests check
// of the listing they publish.

// listedSchemas reads a tools/list answer's tools by name, numbers kept exact.
func listedSchemas(t *testing.T, frame []byte) map[string]map[string]any {
	t.Helper()
	var msg struct {
		Result struct {
			Tools []map[string]any `json:"tools"`
		} `json:"result"`
	}
	dec := json.NewDecoder(bytes.NewReader(frame))
	dec.UseNumber()
	if err := dec.Decode(&msg); err != nil || len(msg.Result.Tools) == 0 {
		t.Fatalf("not a tools/list answer (%v): %s", err, frame)
	}
	out := map[string]map[string]any{}
	for _, tool := range msg.Result.Tools {
		name, _ := tool["name"].(string)
		out[name] = tool
	}
	return out
}

// listCheck checks the listing a fault of the listing published (list) against the server's
// (direct) under a schema mode, and hands the fault's own check the target's two outputSchemas.
func listCheck(check func(t *testing.T, got, was map[string]any)) func(t *testing.T, schema string, list, direct []byte) {
	return func(t *testing.T, schema string, list, direct []byte) {
		t.Helper()
		if schema == "hidden" {
			if bytes.Contains(list, []byte("outputSchema")) {
				t.Errorf("hidden left an outputSchema in tools/list: %s", list)
			}
			return
		}
		got, want := listedSchemas(t, list), listedSchemas(t, direct)
		for name, tool := range want {
			if name == "get_account_balance" {
				continue
			}
			if !reflect.DeepEqual(got[name], tool) {
				t.Errorf("the fault changed %s, which is not the target:\n got %v\nwant %v", name, got[name], tool)
			}
		}
		g, w := got["get_account_balance"], want["get_account_balance"]
		gs, _ := g["outputSchema"].(map[string]any)
		ws, _ := w["outputSchema"].(map[string]any)
		if gs == nil || ws == nil {
			t.Fatalf("no outputSchema to compare: got %v, the server's %v", g, w)
		}
		for k := range w {
			if k != "outputSchema" && !reflect.DeepEqual(g[k], w[k]) {
				t.Errorf("the fault changed the target's %s: %v", k, g[k])
			}
		}
		check(t, gs, ws)
	}
}

// refURL is the $ref schema-ref publishes: a loopback URL the proxy serves.
var refURL = regexp.MustCompile(`^http://127\.0\.0\.1:\d+/schemas/get_account_balance/[0-9a-f]{8}\.json$`)

// checkListFault holds, per fault of the listing, what its published outputSchema must be.
var checkListFault = map[string]func(t *testing.T, schema string, list, direct []byte){
	"schema-ref": listCheck(func(t *testing.T, got, was map[string]any) {
		gp, wp := got["properties"].(map[string]any), was["properties"].(map[string]any)
		refs := 0
		for k, v := range wp {
			if reflect.DeepEqual(gp[k], v) {
				continue
			}
			m, _ := gp[k].(map[string]any)
			u, _ := m["$ref"].(string)
			if len(m) != 1 || !refURL.MatchString(u) {
				t.Errorf("property %s is %v, want only a $ref to the proxy's loopback listener", k, gp[k])
			}
			refs++
		}
		delete(got, "properties")
		delete(was, "properties")
		if refs != 1 || !reflect.DeepEqual(got, was) {
			t.Errorf("want exactly one property changed (got %d) and the rest of the schema as the server's: %v", refs, got)
		}
	}),
	"schema-dialect": listCheck(func(t *testing.T, got, was map[string]any) {
		if got["$schema"] != "https://json-schema.toolscore.invalid/draft/2099-01/schema" {
			t.Errorf("$schema is %v, want the unknown default", got["$schema"])
		}
		delete(got, "$schema")
		if !reflect.DeepEqual(got, was) {
			t.Errorf("the rest of the schema changed:\n got %v\nwant %v", got, was)
		}
	}),
	"schema-bomb": listCheck(func(t *testing.T, got, was map[string]any) {
		defs, _ := got["$defs"].(map[string]any)
		if len(defs) != 13 {
			t.Errorf("want levels 0 to 12 in $defs, got %d", len(defs))
		}
		for level := 1; level <= 12; level++ {
			def, _ := defs[fmt.Sprint("toolscore_bomb_", level)].(map[string]any)
			all, _ := def["allOf"].([]any)
			some, _ := def["anyOf"].([]any)
			if len(def) != 1 || len(all)+len(some) != 10 {
				t.Errorf("level %d is not an allOf or anyOf of 10 branches: %v", level, def)
			}
		}
		gp, wp := got["properties"].(map[string]any), was["properties"].(map[string]any)
		bombed := 0
		for k, v := range wp {
			if !reflect.DeepEqual(gp[k], v) {
				bombed++
				if !reflect.DeepEqual(gp[k], map[string]any{"$ref": "#/$defs/toolscore_bomb_12"}) || !reflect.DeepEqual(defs["toolscore_bomb_0"], v) {
					t.Errorf("property %s is %v (level 0 %v), want a $ref to the top level, and its own schema at level 0", k, gp[k], defs["toolscore_bomb_0"])
				}
			}
		}
		if bombed != 1 {
			t.Errorf("want one property bombed, got %d", bombed)
		}
	}),
}

// isListing says whether a transcript record is a tools/list answer.
func isListing(r map[string]any) bool {
	wire, _ := r["wire"].(string)
	return r["dir"] == "to-client" && strings.Contains(wire, `"tools":[`)
}

// checkListTee reads the transcript's record of the listing the client got: the fault named
// on it, what it introduced (each value on the wire, inside the target's outputSchema) or, with
// no schema published, a note that it had nothing to change.
func checkListTee(t *testing.T, path, name, schema string, list []byte) {
	t.Helper()
	var rec map[string]any
	listening := 0
	for _, r := range readTee(t, path) {
		if isListing(r) && strings.TrimRight(r["wire"].(string), "\n") == string(list) {
			rec = r
		}
		if r["event"] == "schema-ref-listening" {
			listening++
		}
	}
	if rec == nil {
		t.Fatalf("the transcript has no record of the listing the client got")
	}
	if rec["fault"] != name {
		t.Errorf("the listing's record names fault %v, want %s", rec["fault"], name)
	}
	note, _ := rec["note"].(string)
	introduced, _ := rec["introduced"].([]any)
	if schema == "hidden" {
		if !strings.Contains(note, name+" had nothing to change") || len(introduced) != 0 || listening != 0 {
			t.Errorf("hidden: note %q, introduced %v, listeners %d; want a note that there was nothing to change", note, introduced, listening)
		}
		return
	}
	if len(introduced) == 0 || rec["original"] == nil {
		t.Fatalf("the listing's record lacks what the fault introduced or the server's original: %v", rec)
	}
	for _, in := range introduced {
		m := in.(map[string]any)
		p, _ := m["path"].(string)
		b, _ := json.Marshal(m["value"])
		if !strings.HasPrefix(p, "tools[0].outputSchema.") || !bytes.Contains(list, b) {
			t.Errorf("introduced %s = %s: not in the target's outputSchema on the wire", p, b)
		}
	}
	if want := 0; name == "schema-ref" && listening != 1 || name != "schema-ref" && listening != want {
		t.Errorf("%s: %d $ref listeners opened", name, listening)
	}
}

// TestSchemaRefFetched: the $ref schema-ref publishes is served by the proxy while the session
// lives, each fetch recorded with its request line and headers, and the listener is closed with
// the session. Over stdio and HTTP, under both protocol generations.
func TestSchemaRefFetched(t *testing.T) {
	for _, transport := range []string{"stdio", "http"} {
		for _, protocol := range []string{"2025-11-25", modernRevision} {
			t.Run(transport+"/"+protocol, func(t *testing.T) {
				t.Parallel()
				var list []byte
				var teePath string
				var stop func()
				flags := []string{"--protocol", protocol, "--seed", "3"}
				if transport == "stdio" {
					cmd, tee := proxyCommand(t, "schema-ref", "published", flags...)
					teePath = tee
					if protocol == modernRevision {
						s := startWire(t, cmd)
						s.request(t, 1, "server/discover", modernMeta(map[string]any{}))
						list = s.request(t, 2, "tools/list", modernMeta(map[string]any{}))
						stop = func() { s.close(t) }
					} else {
						ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
						defer cancel()
						s, _, err := client.StartRaw(ctx, cmd)
						if err != nil {
							t.Fatal(err)
						}
						if list, err = s.Request(ctx, "tools/list", map[string]any{}); err != nil {
							t.Fatal(err)
						}
						stop = func() { s.Close() }
					}
				} else {
					var ledgerFlags []string
					if protocol == modernRevision {
						ledgerFlags = []string{"--stateless"}
					}
					h := startHTTPProxy(t, append([]string{"--fault", "schema-ref", "--tool", "get_account_balance", "--schema", "published"}, flags...), ledgerFlags)
					teePath = h.tee
					s := newHTTPSession(h.url, protocol == modernRevision)
					if protocol == modernRevision {
						s.post(t, 1, "server/discover", map[string]any{})
					} else {
						init := s.post(t, 1, "initialize", map[string]any{"protocolVersion": protocol, "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "raw-http", "version": "1"}})
						s.sid, s.version = init.resp.Header.Get("Mcp-Session-Id"), protocol
					}
					list = s.post(t, 2, "tools/list", map[string]any{}).msg
					stop = func() { h.stop(t) }
				}
				ref := regexp.MustCompile(`http://127\.0\.0\.1:\d+/schemas/get_account_balance/[0-9a-f]{8}\.json`).Find(list)
				if ref == nil {
					t.Fatalf("no $ref to the proxy's listener in the listing: %s", list)
				}
				req, _ := http.NewRequest(http.MethodGet, string(ref), nil)
				req.Header.Set("User-Agent", "toolscore-wire-test")
				req.Header.Set("Authorization", "Bearer not-for-the-transcript")
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				var doc map[string]any
				if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/schema+json" || json.Unmarshal(body, &doc) != nil || doc["type"] == nil {
					t.Errorf("the $ref answered %d %q: %s; want the property's own schema", resp.StatusCode, resp.Header.Get("Content-Type"), body)
				}
				stop()
				if _, err := http.Get(string(ref)); err == nil {
					t.Errorf("the $ref listener outlived the session")
				}
				fetches := teeEvents(t, teePath, "schema-ref-fetch")
				if len(fetches) != 1 {
					t.Fatalf("want the one fetch recorded, got %v", fetches)
				}
				f := fetches[0]
				facts := f["http"].(map[string]any)
				hdr := facts["header"].(map[string]any)
				line := f["detail"].(map[string]any)["request"]
				if facts["method"] != "GET" || facts["status"] != 200.0 || !strings.HasSuffix(string(ref), facts["path"].(string)) ||
					line != "GET "+facts["path"].(string)+" HTTP/1.1" || hdr["User-Agent"].([]any)[0] != "toolscore-wire-test" {
					t.Errorf("the fetch's record: %v", f)
				}
				if b, _ := json.Marshal(f); bytes.Contains(b, []byte("not-for-the-transcript")) {
					t.Errorf("the fetch's record keeps a credential: %s", b)
				}
			})
		}
	}
}
