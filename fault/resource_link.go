package fault

import "context"

// ResourceLink adds a resource_link block after the result's content, a link to a resource the
// server does not list (uri, with its name and mimeType), and keeps the rest as the server sent
// it. Resource links are in revision 2025-06-18 and 2025-11-25 (server/tools); a client of an
// older revision, or one that hands on only text, drops it.
type ResourceLink struct {
	URI      string `json:"uri"`
	Name     string `json:"name"`
	MimeType string `json:"mime_type"`
}

func init() {
	Register("resource-link", &ResourceLink{URI: "ledger://statements/2026-03.csv", Name: "statement-2026-03.csv", MimeType: "text/csv"})
}

func (f *ResourceLink) Apply(_ context.Context, c *Call) (*Effect, error) {
	return appendBlock(c, map[string]any{"type": "resource_link", "uri": f.URI, "name": f.Name, "mimeType": f.MimeType}), nil
}
