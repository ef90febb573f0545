package proxy

import (
	"encoding/json"
	"fmt"
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

// rewriteToolsList applies the mode to one tools/list response. It returns the tools' declared
// outputSchemas (the server's, or the manifest's where it inserted one) for the faults to use,
// and the new frame, or nil when the frame must pass unchanged.
func (p *Proxy) rewriteToolsList(frame []byte) (map[string]map[string]any, []byte, error) {
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
	changed := false
	for _, t := range tools {
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
				changed = true
			}
		case Published:
			if !has && wantsInsert {
				t["outputSchema"] = p.cfg.OutputSchema
				changed = true
			}
		}
	}
	if !changed {
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
