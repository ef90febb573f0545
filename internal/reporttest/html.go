package reporttest

import (
	"bytes"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// ourElements are the elements report.html is made of; any other came from outside.
var ourElements = map[string]bool{
	"html": true, "head": true, "meta": true, "title": true, "style": true, "body": true, "h1": true, "h2": true,
	"h3": true, "h4": true, "p": true, "label": true, "select": true, "option": true, "span": true, "sup": true,
	"table": true, "thead": true, "tbody": true, "tr": true, "th": true, "td": true, "a": true, "ul": true, "li": true,
	"strong": true, "pre": true, "div": true, "section": true, "dl": true, "dt": true, "dd": true, "code": true, "script": true, "wbr": true,
}

// CheckHTML parses page as a browser would and fails t where anything from outside became
// markup: an element or attribute the report does not write, a second script, a comment, a
// link out of the page, or a control character or bidi override in the text.
func CheckHTML(t *testing.T, what string, page []byte) *html.Node {
	t.Helper()
	return checkHTML(t, what, page, 1, "#cell-", nil)
}

// compatElements are the elements the compatibility page writes besides report.html's.
var compatElements = map[string]bool{"details": true, "summary": true}

// CheckCompatHTML is CheckHTML for the compatibility page (report --format compat-html): no
// script at all, links only to its own anchors (#f-...).
func CheckCompatHTML(t *testing.T, what string, page []byte) *html.Node {
	t.Helper()
	return checkHTML(t, what, page, 0, "#f-", compatElements)
}

func checkHTML(t *testing.T, what string, page []byte, wantScripts int, linkPrefix string, extra map[string]bool) *html.Node {
	t.Helper()
	doc, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		t.Fatalf("%s does not parse: %v", what, err)
	}
	scripts := 0
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		switch n.Type {
		case html.CommentNode:
			t.Errorf("%s has a comment: %.200q", what, n.Data)
		case html.ElementNode:
			if !ourElements[n.Data] && !extra[n.Data] {
				t.Errorf("%s has an element the report does not write: <%s>", what, n.Data)
			}
			if n.Data == "script" {
				scripts++
			}
			for _, a := range n.Attr {
				switch {
				case strings.HasPrefix(a.Key, "on") || a.Key == "style" || a.Key == "src":
					t.Errorf("%s: <%s> has the attribute %s=%.100q", what, n.Data, a.Key, a.Val)
				case a.Key == "href" && a.Val != "#" && !strings.HasPrefix(a.Val, linkPrefix):
					t.Errorf("%s: a link out of the page: %.100q", what, a.Val)
				}
			}
		case html.TextNode:
			for _, r := range n.Data {
				if r != '\n' && r != '\t' && IsControl(r) {
					t.Errorf("%s: text holds the control %U: %.100q", what, r, n.Data)
					break
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	if scripts != wantScripts {
		t.Errorf("%s has %d script elements, want %d of the page's own", what, scripts, wantScripts)
	}
	return doc
}

// TextOf is the text of n and its descendants, as a browser shows it (scripts and styles aside).
func TextOf(n *html.Node) string {
	var b strings.Builder
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && (n.Data == "script" || n.Data == "style") {
			return
		}
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

// IsControl says whether r is a control character or a bidirectional embedding, override or
// isolate, as the report package replaces them.
func IsControl(r rune) bool {
	return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) ||
		(r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0x200e || r == 0x200f || r == 0x061c
}
