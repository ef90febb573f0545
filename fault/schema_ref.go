package fault

import (
	"context"
	"fmt"
	"net/url"
)

// SchemaRef points one property of the published outputSchema at a $ref on a loopback URL that
// the proxy serves (the property's own schema) and records for the session, so a client that
// dereferences a network $ref, which the 2026-07-28 spec says it MUST NOT, is seen fetching it;
// field names the property, else the seed picks one of the required ones (and the URL's path; its
// port is the listener's). The call's answer goes as the server sent it.
type SchemaRef struct {
	passResult
	// Field names the property to point elsewhere; empty lets the seed choose.
	Field string `json:"field,omitempty"`
}

func init() { Register("schema-ref", &SchemaRef{}) }

func (f *SchemaRef) RewriteSchema(_ context.Context, s *Published) (*SchemaEffect, error) {
	field := pickProperty(s, f.Field)
	token := fmt.Sprintf("%08x", s.Rand.Uint32())
	where := "/schemas/" + url.PathEscape(s.Tool) + "/" + token + ".json"
	out := copySchema(s.Schema)
	var doc any = map[string]any{}
	at := "$ref"
	if field != "" {
		doc = out["properties"].(map[string]any)[field]
		at = path("properties", field)
	}
	u, err := s.Serve(where, doc)
	if err != nil {
		return nil, fmt.Errorf("serving the $ref: %w", err)
	}
	ref := map[string]any{"$ref": u}
	eff := &SchemaEffect{Schema: out}
	if field == "" {
		// No property to point elsewhere: the whole schema gets the $ref beside its own keywords.
		out["$ref"] = u
		eff.Introduced = []Introduced{{Path: at, Value: u, Was: s.Schema["$ref"]}}
		eff.Note = noProperty(s.Tool, f.Field) + ": its root points at the $ref, which serves {}"
		return eff, nil
	}
	out["properties"].(map[string]any)[field] = ref
	eff.Introduced = []Introduced{{Path: at, Value: ref, Was: doc}}
	return eff, nil
}

// noProperty says the schema has no property a fault could rewrite: none at all, or not the
// one the field option names.
func noProperty(tool, field string) string {
	if field == "" {
		return "the outputSchema of " + tool + " declares no properties"
	}
	return fmt.Sprintf("the outputSchema of %s declares no property %q", tool, field)
}
