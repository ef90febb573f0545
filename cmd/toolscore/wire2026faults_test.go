package main

import (
	"bytes"
	"strings"
	"testing"
)

// The result shapes and the faults of retries and limits (issue 49), checked on the wire by
// TestEveryFaultOnTheWire and TestEveryFaultOverHTTP as the faults above them are.
func init() {
	for name, check := range map[string]func(t *testing.T, w wireResult, clean, got []byte){
		"summary-split": func(t *testing.T, w wireResult, _, _ []byte) {
			if w.Result == nil || len(w.Result.Content) != 1 || w.Result.Content[0]["type"] != "text" || strings.Contains(w.text(), "40,718.77") || w.object()["balance_minor"] == nil {
				t.Errorf("want one text block naming no data and structuredContent kept, got %v", w.raw)
			}
		},
		"structured-only": func(t *testing.T, w wireResult, _, got []byte) {
			if w.Result == nil || !bytes.Contains(got, []byte(`"content":[]`)) || w.object()["balance_minor"] == nil {
				t.Errorf("want content: [] and structuredContent kept, got %s", got)
			}
		},
		"text-only": func(t *testing.T, w wireResult, _, _ []byte) {
			if w.Result == nil || w.Result.StructuredContent != nil || !strings.Contains(w.text(), "40,718.77") || w.Result.IsError {
				t.Errorf("want the text with the data and no structuredContent, got %v", w.raw)
			}
		},
		"error-structured-detail": func(t *testing.T, w wireResult, _, _ []byte) {
			if w.Result == nil || !w.Result.IsError || len(w.Result.Content) != 1 || w.object()["error"] == nil {
				t.Errorf("want isError, one text block and the detail in structuredContent, got %v", w.raw)
			}
		},
		"image-and-text": func(t *testing.T, w wireResult, _, _ []byte) {
			if w.Result == nil || len(w.Result.Content) < 2 || !strings.Contains(w.text(), "40,718.77") {
				t.Fatalf("want the text and an image after it, got %v", w.raw)
			}
			if img := w.Result.Content[len(w.Result.Content)-1]; img["type"] != "image" || img["mimeType"] != "image/png" || img["data"] == "" {
				t.Errorf("want a PNG image block last, got %v", img)
			}
		},
		"resource-link": func(t *testing.T, w wireResult, _, _ []byte) {
			if w.Result == nil || len(w.Result.Content) < 2 {
				t.Fatalf("want the text and a link after it, got %v", w.raw)
			}
			if l := w.Result.Content[len(w.Result.Content)-1]; l["type"] != "resource_link" || l["uri"] == nil || l["name"] == nil {
				t.Errorf("want a resource_link block last, got %v", l)
			}
		},
		"oversize-25k":  oversizeOf(100_000),
		"oversize-100k": oversizeOf(400_000),
		"oversize-1mb":  oversizeOf(1 << 20),
		"rate-limited": func(t *testing.T, w wireResult, _, _ []byte) {
			e, _ := w.raw["error"].(map[string]any)
			data, _ := e["data"].(map[string]any)
			if w.Error == nil || w.Error.Code != -32023 || w.Result != nil || data["retryAfter"] == nil {
				t.Errorf("want the JSON-RPC error -32023 with a retryAfter, got %v", w.raw)
			}
		},
		"unknown-tool": func(t *testing.T, w wireResult, _, _ []byte) {
			if w.Error == nil || w.Error.Code != -32602 || !strings.Contains(w.Error.Message, "Unknown tool") || w.Result != nil {
				t.Errorf("want the JSON-RPC error -32602 Unknown tool, got %v", w.raw)
			}
		},
		"not-retryable": func(t *testing.T, w wireResult, _, _ []byte) {
			r, _ := w.raw["result"].(map[string]any)
			meta, _ := r["_meta"].(map[string]any)
			class, _ := meta["io.modelcontextprotocol/toolFailure"].(map[string]any)
			if w.Result == nil || !w.Result.IsError || w.text() == "" || class["retryable"] != false {
				t.Errorf("want isError with a text and a failure class retryable: false, got %v", w.raw)
			}
		},
		// The test makes one call, the first: it fails with the inner fault, error by default.
		"transient": checkFault["error"],
	} {
		checkFault[name] = check
	}
}

// oversizeOf checks that the first text block grew to n bytes, starting with the server's text,
// and that structuredContent still holds the data.
func oversizeOf(n int) func(t *testing.T, w wireResult, _, _ []byte) {
	return func(t *testing.T, w wireResult, _, _ []byte) {
		if s := w.text(); len(s) != n || !strings.HasPrefix(s, "ACC-4471: balance 40,718.77") || w.object()["balance_minor"] == nil {
			t.Errorf("want a first text block of %d bytes starting with the server's text and structuredContent kept, got %d bytes, %.80q", n, len(s), s)
		}
	}
}
