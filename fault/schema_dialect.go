package fault

import (
	"context"
	"fmt"
	"net/url"
)

// SchemaDialect declares in the published outputSchema a $schema dialect no client can know
// (dialect, by default a made-up URI on a name that never resolves), where the 2026-07-28 spec
// says a client MUST validate by the declared dialect and handle an unsupported one gracefully.
// The call's answer goes as the server sent it.
type SchemaDialect struct {
	passResult
	// Dialect is the $schema URI to declare.
	Dialect string `json:"dialect"`
}

// unknownDialect is the default dialect: the .invalid name never resolves, so no client can
// have it or fetch it.
const unknownDialect = "https://json-schema.toolscore.invalid/draft/2099-01/schema"

func init() { Register("schema-dialect", &SchemaDialect{Dialect: unknownDialect}) }

func (f *SchemaDialect) RewriteSchema(_ context.Context, s *Published) (*SchemaEffect, error) {
	out := copySchema(s.Schema)
	out["$schema"] = f.Dialect
	return &SchemaEffect{Schema: out, Introduced: []Introduced{{Path: "$schema", Value: f.Dialect, Was: s.Schema["$schema"]}}}, nil
}

func (f *SchemaDialect) check() *OptionError {
	if u, err := url.Parse(f.Dialect); err != nil || !u.IsAbs() {
		return &OptionError{Option: "dialect", Err: fmt.Errorf("want an absolute URI, as $schema holds, got %q", f.Dialect)}
	}
	return nil
}
