package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/toolscore/toolscore/fault"
	"github.com/toolscore/toolscore/internal/transcript"
)

// SchemaMode says what the proxy does to outputSchema in tools/list results.
type SchemaMode string

const (
	// Hidden removes every outputSchema, as if the server declared none.
	Hidden SchemaMode = "hidden"
	// Published keeps the server's outputSchema, or inserts the manifest's where it has none.
	Published SchemaMode = "published"
	// AsIs leaves tools/list byte for byte.
	AsIs SchemaMode = "as-is"
)

// ParseSchemaMode checks a schema mode's name.
func ParseSchemaMode(s string) (SchemaMode, error) {
	switch m := SchemaMode(s); m {
	case Hidden, Published, AsIs:
		return m, nil
	}
	return "", fmt.Errorf("unknown schema mode %q (known: hidden, published, as-is)", s)
}

// rewriteToolsList applies the mode, then a fault of the listing (fault.ListFault), to one
// tools/list response. It returns the tools' declared outputSchemas (the server's, or the
// manifest's where it inserted one) for the faults to use, and the new frame, or nil when the
// frame must pass unchanged; what it did is noted on rec.
func (p *Proxy) rewriteToolsList(ctx context.Context, frame []byte, rec *transcript.Record) (map[string]map[string]any, []byte, error) {
	var msg map[string]json.RawMessage
	if err := json.Unmarshal(frame, &msg); err != nil {
		return nil, nil, err
	}
	var result map[string]json.RawMessage
	if err := json.Unmarshal(msg["result"], &result); err != nil || result == nil {
		return nil, nil, nil // an error response: nothing to rewrite
	}
	var tools []map[string]json.RawMessage
	if err := json.Unmarshal(result["tools"], &tools); err != nil {
		return nil, nil, fmt.Errorf("tools/list result has no tools array: %w", err)
	}
	schemas := map[string]map[string]any{}
	changed, modeChanged := false, false
	d := p.activeDrift()
	for i, t := range tools {
		var name string
		_ = json.Unmarshal(t["name"], &name)
		own, has := t["outputSchema"]
		if has && string(own) == "null" {
			has = false
		}
		if has {
			var s map[string]any
			if json.Unmarshal(own, &s) == nil {
				schemas[name] = s
			}
		}
		wantsInsert := len(p.cfg.OutputSchema) > 0 && (p.cfg.Tool == "" || p.cfg.Tool == name)
		if !has && wantsInsert {
			var s map[string]any
			if json.Unmarshal(p.cfg.OutputSchema, &s) == nil {
				schemas[name] = s
			}
		}
		switch p.cfg.Schema {
		case Hidden:
			if _, present := t["outputSchema"]; present {
				delete(t, "outputSchema")
				modeChanged = true
			}
		case Published:
			if !has && wantsInsert {
				t["outputSchema"] = p.cfg.OutputSchema
				modeChanged = true
			}
		}
		if lf, ok := p.cfg.Fault.(fault.ListFault); ok && (p.cfg.Tool == "" || p.cfg.Tool == name) {
			if p.listFault(ctx, lf, name, i, t, rec) {
				changed = true
			}
		}
		if p.driftTool(d, name, t) {
			changed = true
		}
	}
	if modeChanged {
		rec.Note = strings.TrimSuffix("schema mode "+string(p.cfg.Schema)+"; "+rec.Note, "; ")
	}
	if !changed && !modeChanged {
		return schemas, nil, nil
	}
	toolsJSON, err := marshal(tools)
	if err != nil {
		return nil, nil, err
	}
	result["tools"] = toolsJSON
	if msg["result"], err = marshal(result); err != nil {
		return nil, nil, err
	}
	out, err := marshal(msg)
	return schemas, out, err
}

// listStream is the seed's stream for a fault of the listing: every listing of the session gets
// the same draws, apart from the streams of the calls (stream n is the n-th matching call).
const listStream = 1 << 63

// listFault hands tool t's outputSchema, as the cell publishes it, to the fault of the listing and
// puts the schema it returns in its place, noting on rec what it did; it says whether t changed.
// A cell whose schema mode publishes none (hidden, or as-is without one) leaves it nothing to
// change, and the note says so.
func (p *Proxy) listFault(ctx context.Context, lf fault.ListFault, name string, i int, t map[string]json.RawMessage, rec *transcript.Record) bool {
	rec.Fault = p.cfg.FaultName
	note := func(s string) { rec.Note = strings.TrimPrefix(rec.Note+"; "+s, "; ") }
	raw, has := t["outputSchema"]
	var schema map[string]any
	if has {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		_ = dec.Decode(&schema)
	}
	if why := schemaTooLarge(schema); why != "" {
		note(fmt.Sprintf("%s could not be applied to the outputSchema of %s, which went as published: it is too large for the proxy to work on: %s", p.cfg.FaultName, name, why))
		return false
	}
	if schema == nil {
		note(fmt.Sprintf("%s had nothing to change: the cell publishes no outputSchema for %s (schema mode %s)", p.cfg.FaultName, name, p.cfg.Schema))
		return false
	}
	eff, err := lf.RewriteSchema(ctx, &fault.Published{
		Tool: name, Schema: schema,
		Rand:  rand.New(rand.NewPCG(p.cfg.Seed, listStream)),
		Serve: p.serveRef,
	})
	if err != nil {
		note(fmt.Sprintf("%s could not be applied to the outputSchema of %s, which went as published: %v", p.cfg.FaultName, name, err))
		return false
	}
	if eff.Note != "" {
		note(eff.Note)
	}
	if eff.Schema == nil {
		return false
	}
	out, err := marshal(eff.Schema)
	if err != nil {
		note(fmt.Sprintf("the outputSchema %s made for %s could not be encoded, and went as published: %v", p.cfg.FaultName, name, err))
		return false
	}
	t["outputSchema"] = out
	for _, in := range eff.Introduced {
		in.Path = fmt.Sprintf("tools[%d].outputSchema", i) + "." + in.Path
		rec.Introduced = append(rec.Introduced, in)
	}
	return true
}

// listSchemas asks a fresh instance of the server for its tools (every page of tools/list) and
// returns each tool's outputSchema, by name: what the server publishes, whatever the client of
// the session under test asks.
func listSchemas(ctx context.Context, srv Server, tee *transcript.Tee) (map[string]map[string]any, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	f, err := startFresh(ctx, srv, "toolscore-schema")
	if err != nil {
		return nil, err
	}
	defer f.close()
	return recordedSchemas(f.request, tee)
}

// listSchemasHTTP does what listSchemas does over a session of its own with an HTTP server.
func listSchemasHTTP(ctx context.Context, up Upstream, tee *transcript.Tee) (map[string]map[string]any, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	s, err := startFreshHTTP(ctx, up, "toolscore-schema")
	if err != nil {
		return nil, err
	}
	defer s.close()
	return recordedSchemas(s.request, tee)
}

// recordedSchemas is pagedSchemas with the pages it read written to the transcript (event
// schema-session), so the cell cache can ask a live server the same before it reuses the cell.
func recordedSchemas(request func(id, method string, params any) (json.RawMessage, error), tee *transcript.Tee) (map[string]map[string]any, error) {
	schemas, pages, err := pagedSchemas(request)
	if err == nil {
		tee.Write(&transcript.Record{Dir: transcript.Event, Event: "schema-session", Note: "the proxy's own session with a fresh server: the tools/list pages it read", Detail: map[string]any{"pages": pages}})
	}
	return schemas, err
}

// pagedSchemas reads every page of tools/list through request and returns each tool's
// outputSchema, by name, and the pages' results as the server sent them.
func pagedSchemas(request func(id, method string, params any) (json.RawMessage, error)) (map[string]map[string]any, []json.RawMessage, error) {
	var pages []json.RawMessage
	schemas := map[string]map[string]any{}
	params := map[string]any{}
	for page := 1; ; page++ {
		raw, err := request(fmt.Sprintf("toolscore-schema-list-%d", page), "tools/list", params)
		if err != nil {
			return nil, nil, err
		}
		pages = append(pages, raw)
		var list struct {
			Tools []struct {
				Name         string          `json:"name"`
				OutputSchema json.RawMessage `json:"outputSchema"`
			} `json:"tools"`
			NextCursor string `json:"nextCursor"`
		}
		if err := json.Unmarshal(raw, &list); err != nil {
			return nil, nil, fmt.Errorf("the fresh server's tools/list: %w", err)
		}
		for _, t := range list.Tools {
			var s map[string]any
			if json.Unmarshal(t.OutputSchema, &s) == nil && s != nil {
				schemas[t.Name] = s
			}
		}
		// A server that pages for ever is cut off: the schemas seen so far are what it publishes.
		if list.NextCursor == "" || page == 100 {
			return schemas, pages, nil
		}
		params = map[string]any{"cursor": list.NextCursor}
	}
}

// faultSchema returns the outputSchema a schema fault picks from for tool, and where it came
// from (or why there is none): the server's own, asked of a fresh instance (or over a session of
// the proxy's own, over HTTP) once per proxy session, so that it is the same whether or not the
// client listed the tools; else the manifest's. Only where the proxy cannot ask does it fall back
// on this session's tools/list, if the client asked for one, and says so.
func (p *Proxy) faultSchema(ctx context.Context, tool string) (map[string]any, string) {
	p.schemaMu.Lock()
	defer p.schemaMu.Unlock()
	if p.cfg.Schemas != nil && p.published == nil && p.listErr == nil {
		p.published, p.listErr = p.cfg.Schemas(ctx)
		detail := map[string]any{}
		if p.listErr != nil {
			detail["error"] = p.listErr.Error()
		} else {
			detail["tools"] = slices.Sorted(maps.Keys(p.published))
		}
		p.record(&transcript.Record{Dir: transcript.Event, Event: "schema", Note: "asked the server for its tools/list, for the schema faults to pick from the outputSchema it publishes", Detail: detail})
	}
	why := "the server publishes none for " + tool
	if p.cfg.Schemas == nil || p.listErr != nil {
		why = "the proxy cannot ask the server itself"
		if p.listErr != nil {
			why = "the proxy could not ask the server: " + p.listErr.Error()
		}
		p.mu.Lock()
		seen := p.schemas[tool]
		p.mu.Unlock()
		if seen != nil {
			return seen, "this session's tools/list, as " + why
		}
		why += ", and this session's tools/list (if the client asked for one) had none for " + tool
	} else if s := p.published[tool]; s != nil {
		return s, "the server's tools/list, asked by the proxy"
	}
	var manifest map[string]any
	if len(p.cfg.OutputSchema) > 0 && json.Unmarshal(p.cfg.OutputSchema, &manifest) == nil && manifest != nil {
		return manifest, "the manifest's output_schema, as " + why
	}
	return nil, why + "; the manifest sets no output_schema"
}

// Bounds of the proxy's own work on an outputSchema: a schema fault, a fault of the listing and
// a drift read the schema whole (its $refs and allOf parts), so one past these (a composition
// bomb a server publishes) is not worked on, and the answer goes as the server sent it.
const (
	maxSchemaValues = 10000
	maxSchemaDepth  = 64
)

// schemaTooLarge says why the proxy does not work on schema, "" when it does (nil is fine).
func schemaTooLarge(schema map[string]any) string {
	if schema == nil {
		return ""
	}
	n := 0
	var walk func(v any, depth int) string
	walk = func(v any, depth int) string {
		if n++; n > maxSchemaValues {
			return fmt.Sprintf("it holds more than %d values", maxSchemaValues)
		}
		if depth > maxSchemaDepth {
			return fmt.Sprintf("it is nested deeper than %d", maxSchemaDepth)
		}
		switch c := v.(type) {
		case map[string]any:
			for _, e := range c {
				if why := walk(e, depth+1); why != "" {
					return why
				}
			}
		case []any:
			for _, e := range c {
				if why := walk(e, depth+1); why != "" {
					return why
				}
			}
		}
		return ""
	}
	return walk(schema, 0)
}
