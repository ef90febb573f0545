package main

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/invopop/jsonschema"

	"github.com/toolscore/toolscore/fault"
	"github.com/toolscore/toolscore/internal/client"
	"github.com/toolscore/toolscore/scenario"
)

// docsRoot is the repository, seen from this package's directory (where go test runs).
var docsRoot = filepath.Join("..", "..")

// The generated blocks of docs/, each between "<!-- generated: NAME -->" and
// "<!-- end generated -->" in its page: the prose around them is written by hand, the block is
// rendered from the code it describes, so the two cannot drift apart.
var generatedBlocks = []struct {
	file, name string
	render     func(t *testing.T) string
}{
	{"docs/cli.md", "usage", cliReference},
	{"docs/faults.md", "faults", faultTable},
	{"docs/manifest.md", "reference", manifestReference},
	{"docs/clients.md", "clients", func(t *testing.T) string { return clientTable(t, client.Descriptors()) }},
	{"docs/clients.md", "client-sections", func(*testing.T) string { return clientSections(client.Descriptors()) }},
	{"docs/clients.md", "agent-sections", func(*testing.T) string { return agentSections(client.Descriptors()) }},
}

// TestDocsAreGenerated: every generated block of docs/ is what the code renders today (the
// commands' usage text, the fault registry, the manifest's JSON Schema, the client registry). Rewrite them with
// UPDATE_DOCS=1 go test ./cmd/toolscore -run TestDocsAreGenerated.
func TestDocsAreGenerated(t *testing.T) {
	for _, b := range generatedBlocks {
		path := filepath.Join(docsRoot, b.file)
		page, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		begin, end := "<!-- generated: "+b.name+" -->\n", "<!-- end generated -->\n"
		before, rest, ok := strings.Cut(string(page), begin)
		block, after, ok2 := strings.Cut(rest, end)
		if !ok || !ok2 {
			t.Fatalf("%s has no %q ... %q block", b.file, strings.TrimSpace(begin), strings.TrimSpace(end))
		}
		want := b.render(t)
		if block == want {
			continue
		}
		if os.Getenv("UPDATE_DOCS") == "1" {
			if err := os.WriteFile(path, []byte(before+begin+want+end+after), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		t.Errorf("the %s block of %s is not what the code renders (run UPDATE_DOCS=1 go test ./cmd/toolscore -run TestDocsAreGenerated):\n%s",
			b.name, b.file, firstDifference(block, want))
	}
}

// firstDifference shows the first line where the page and the rendering part.
func firstDifference(have, want string) string {
	h, w := strings.Split(have, "\n"), strings.Split(want, "\n")
	for i := range max(len(h), len(w)) {
		var hl, wl string
		if i < len(h) {
			hl = h[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if hl != wl {
			return fmt.Sprintf("line %d of the block:\n  page:   %q\n  renders: %q", i+1, hl, wl)
		}
	}
	return "(equal)"
}

// cliCommands are the commands whose -h the reference shows, in the order of the top-level
// usage. Left out: action (its inputs are the Action's, in docs/action.md), version (it prints
// the version), and client, agent and cell, which run inside a cell.
var cliCommands = []string{"init", "run", "report", "merge", "diff", "baseline", "proxy", "replay", "repro", "bisect", "history",
	"plan", "kube", "ledger", "hostile", "demo", "images", "clean", "clients", "check-client", "serve-stdio", "connect"}

// cliReference renders the top-level usage and every command's -h, as toolscore prints them.
func cliReference(t *testing.T) string {
	var b strings.Builder
	b.WriteString("### toolscore\n\n```\n")
	stdout, stderr, code := toolscore(t, "", "help")
	if code != 0 {
		t.Fatalf("toolscore help: exit %d: %s", code, stderr)
	}
	b.WriteString(stdout)
	b.WriteString("```\n")
	for _, cmd := range cliCommands {
		stdout, stderr, code := toolscore(t, "", cmd, "-h")
		if code != 0 && stdout == "" && strings.HasPrefix(stderr, "usage: ") {
			// A command with no flags prints its usage as it does for a wrong argument.
			stdout, stderr, code = stderr, "", 0
		}
		if code != 0 || stderr != "" {
			t.Fatalf("toolscore %s -h: exit %d: %s", cmd, code, stderr)
		}
		fmt.Fprintf(&b, "\n### toolscore %s\n\n```\n%s", cmd, stdout)
		if !strings.HasSuffix(stdout, "\n") {
			b.WriteString("\n")
		}
		b.WriteString("```\n")
	}
	return b.String()
}

// faultTable renders the fault registry: each fault's name, what it does (its type's doc
// comment, read from fault's source), its options with their defaults, and the
// transports that carry it.
func faultTable(t *testing.T) string {
	docs := typeDocs(t, filepath.Join(docsRoot, "fault"))
	var b strings.Builder
	b.WriteString("| fault | what it does | options (default) | transports |\n|---|---|---|---|\n")
	for _, name := range fault.Names() {
		f, err := fault.New(name, nil)
		if err != nil {
			t.Fatal(err)
		}
		typ := reflect.TypeOf(f).Elem().Name()
		what, ok := docs[typ]
		if !ok {
			t.Fatalf("fault %s: its type %s has no doc comment", name, typ)
		}
		// "Latency sends ..." reads, in the row of latency, as "sends ...".
		what = strings.TrimPrefix(what, typ+" ")
		defaults := map[string]any{}
		raw, err := json.Marshal(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(raw, &defaults); err != nil {
			t.Fatal(err)
		}
		var options []string
		for _, o := range fault.Options(name) {
			s := "`" + o + "`"
			if d, ok := defaults[o]; ok {
				v, _ := json.Marshal(d)
				s += " (`" + strings.Trim(string(v), `"`) + "`)"
			}
			options = append(options, s)
		}
		transports := "stdio, http"
		if fault.Transport(name) {
			transports = "http"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", name, cell(what), strings.Join(options, ", "), transports)
	}
	return b.String()
}

// typeDocs maps each type of the package in dir to its doc comment, on one line.
func typeDocs(t *testing.T, dir string) map[string]string {
	fset := token.NewFileSet()
	matches, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, m := range matches {
		if strings.HasSuffix(m, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, m, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	p, err := doc.NewFromFiles(fset, files, "github.com/toolscore/toolscore/fault", doc.AllDecls)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, typ := range p.Types {
		out[typ.Name] = strings.Join(strings.Fields(typ.Doc), " ")
	}
	return out
}

// cell makes text one Markdown table cell.
func cell(s string) string {
	return strings.ReplaceAll(strings.Join(strings.Fields(s), " "), "|", `\|`)
}

// manifestReference renders the manifest's JSON Schema (generated from scenario's
// types): every key of the manifest, then every type the keys refer to.
func manifestReference(t *testing.T) string {
	raw, err := scenario.Schema()
	if err != nil {
		t.Fatal(err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "### The manifest\n\n%s", s.Description)
	var either []string
	for _, o := range s.OneOf {
		either = append(either, "`"+strings.Join(o.Required, "`, `")+"`")
	}
	if len(either) > 0 {
		fmt.Fprintf(&b, " It needs exactly one of %s.", strings.Join(either, " or "))
	}
	b.WriteString("\n\n")
	propertyTable(&b, &s)
	names := make([]string, 0, len(s.Definitions))
	for name := range s.Definitions {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		d := s.Definitions[name]
		fmt.Fprintf(&b, "\n### %s\n\n", name)
		object := d
		var intro []string
		switch {
		case len(d.OneOf) == 2 && d.OneOf[0].Type == "string" && d.OneOf[1].Type == "object":
			// A name, or a mapping (faults, clients, tools).
			object = d.OneOf[1]
			intro = append(intro, "A string ("+strings.ToLower(strings.TrimSuffix(d.OneOf[0].Description, "."))+"), or a mapping.", object.Description)
		case len(d.OneOf) > 0 && d.Properties == nil:
			var kinds []string
			for _, o := range d.OneOf {
				kinds = append(kinds, typeOf(o))
			}
			intro = append(intro, "One of: "+strings.Join(kinds, "; ")+".")
			for _, o := range d.OneOf {
				if o.Properties != nil {
					object = o
				}
			}
		default:
			intro = append(intro, d.Description)
		}
		if len(object.OneOf) > 0 && object.Properties != nil {
			var either []string
			for _, o := range object.OneOf {
				either = append(either, "`"+strings.Join(o.Required, "`, `")+"`")
			}
			intro = append(intro, "It needs exactly one of "+strings.Join(either, ", ")+".")
		}
		if len(d.Enum) > 0 {
			intro = append(intro, "One of: "+enumList(d.Enum)+".")
		}
		if d.Pattern != "" {
			intro = append(intro, "Written as `"+d.Pattern+"`.")
		}
		if text := strings.Join(strings.Fields(strings.Join(intro, " ")), " "); text != "" {
			b.WriteString(text + "\n")
		}
		if object.Properties != nil {
			if !strings.HasSuffix(b.String(), "\n\n") {
				b.WriteString("\n")
			}
			propertyTable(&b, object)
		}
	}
	return b.String()
}

// propertyTable writes one row per key of the object schema s, in the schema's order.
func propertyTable(b *strings.Builder, s *jsonschema.Schema) {
	b.WriteString("| key | type | required | meaning |\n|---|---|---|---|\n")
	for p := s.Properties.Oldest(); p != nil; p = p.Next() {
		required := ""
		if slices.Contains(s.Required, p.Key) {
			required = "yes"
		}
		meaning := p.Value.Description
		if len(p.Value.Enum) > 0 {
			meaning += " One of: " + enumList(p.Value.Enum) + "."
		}
		if p.Value.Default != nil {
			meaning += fmt.Sprintf(" Default: `%v`.", p.Value.Default)
		}
		var bounds []string
		if p.Value.Minimum != "" {
			bounds = append(bounds, "At least "+string(p.Value.Minimum))
		}
		if p.Value.Maximum != "" {
			bounds = append(bounds, string(p.Value.Maximum))
		}
		if len(bounds) > 0 {
			meaning += " " + strings.Join(bounds, ", at most ") + "."
		}
		fmt.Fprintf(b, "| `%s` | %s | %s | %s |\n", p.Key, typeOf(p.Value), required, cell(meaning))
	}
}

// typeOf names the type of a schema, linking a named type to its section.
func typeOf(s *jsonschema.Schema) string {
	switch {
	case s.Ref != "":
		name := strings.TrimPrefix(s.Ref, "#/$defs/")
		return "[" + name + "](#" + strings.ToLower(name) + ")"
	case s.Type == "array" && s.Items != nil:
		return "list of " + typeOf(s.Items)
	case len(s.OneOf) > 0:
		var kinds []string
		for _, o := range s.OneOf {
			kinds = append(kinds, typeOf(o))
		}
		return strings.Join(kinds, " or ")
	case s.Type == "object" && s.AdditionalProperties != nil && s.AdditionalProperties.Ref != "":
		return "map of " + typeOf(s.AdditionalProperties)
	case s.Type == "object" && s.Properties != nil:
		var keys []string
		for p := s.Properties.Oldest(); p != nil; p = p.Next() {
			keys = append(keys, "`"+p.Key+"`")
		}
		return "mapping of " + strings.Join(keys, ", ")
	case s.Type != "":
		return s.Type
	}
	return "any"
}

func enumList(values []any) string {
	var out []string
	for _, v := range values {
		out = append(out, fmt.Sprintf("`%v`", v))
	}
	return strings.Join(out, ", ")
}

// TestDocLinksResolve: every relative link in README.md, CONTRIBUTING.md, bench/README.md and
// docs/*.md names a file that exists and, with #anchor, a heading (or an <a id>) of that file,
// by GitHub's rules for a heading's anchor.
func TestDocLinksResolve(t *testing.T) {
	pages, err := filepath.Glob(filepath.Join(docsRoot, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	pages = append(pages, filepath.Join(docsRoot, "README.md"), filepath.Join(docsRoot, "CONTRIBUTING.md"), filepath.Join(docsRoot, "bench", "README.md"))
	anchorsOf := map[string]map[string]bool{}
	anchors := func(path string) map[string]bool {
		if a, ok := anchorsOf[path]; ok {
			return a
		}
		text, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		a := markdownAnchors(string(text))
		anchorsOf[path] = a
		return a
	}
	links := 0
	for _, page := range pages {
		text, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(docsRoot, page)
		for _, link := range markdownLinks(string(text)) {
			if strings.Contains(link, "://") || strings.HasPrefix(link, "mailto:") {
				continue
			}
			links++
			target, anchor, _ := strings.Cut(link, "#")
			path := page
			if target != "" {
				path = filepath.Join(filepath.Dir(page), filepath.FromSlash(target))
				if _, err := os.Stat(path); err != nil {
					t.Errorf("%s: link %q: %v", rel, link, err)
					continue
				}
			}
			if anchor == "" {
				continue
			}
			if !strings.HasSuffix(path, ".md") {
				t.Errorf("%s: link %q: an anchor in a file that is not Markdown", rel, link)
				continue
			}
			if !anchors(path)[anchor] {
				t.Errorf("%s: link %q: no heading in %s has the anchor #%s", rel, link, filepath.Base(path), anchor)
			}
		}
	}
	if links < 20 {
		t.Errorf("found %d relative links in %d pages; the link reader is broken", links, len(pages))
	}
}

var (
	fence      = regexp.MustCompile("(?ms)^ *```.*?^ *```[^\n]*$")
	inlineCode = regexp.MustCompile("`[^`\n]+`")
	linkRe     = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	anchorTag  = regexp.MustCompile(`<a id="([^"]+)"`)
	headLink   = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
)

// withoutCode blanks fenced blocks and code spans, which hold no links or headings.
func withoutCode(text string, keepCodeText bool) string {
	text = fence.ReplaceAllStringFunc(text, func(s string) string { return strings.Repeat("\n", strings.Count(s, "\n")) })
	if keepCodeText {
		return text
	}
	return inlineCode.ReplaceAllStringFunc(text, func(s string) string { return strings.Repeat("x", len(s)) })
}

// markdownLinks lists the targets of the links and images in text.
func markdownLinks(text string) []string {
	var out []string
	for _, m := range linkRe.FindAllStringSubmatch(withoutCode(text, false), -1) {
		out = append(out, m[1])
	}
	return out
}

// markdownAnchors lists the anchors GitHub gives text's headings: the heading's text lowered,
// every character but letters, digits, spaces, - and _ dropped, spaces made -, and -1, -2, ...
// added to a repeat; and the ids of <a id="..."> tags.
func markdownAnchors(text string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	for line := range strings.SplitSeq(withoutCode(text, true), "\n") {
		for _, m := range anchorTag.FindAllStringSubmatch(line, -1) {
			out[m[1]] = true
		}
		hashes := len(line) - len(strings.TrimLeft(line, "#"))
		if hashes == 0 || hashes > 6 || !strings.HasPrefix(line[hashes:], " ") {
			continue
		}
		heading := strings.TrimSpace(line[hashes:])
		// A link in a heading anchors on its text.
		heading = headLink.ReplaceAllString(heading, "$1")
		var slug strings.Builder
		for _, r := range strings.ToLower(heading) {
			switch {
			case r == ' ':
				slug.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r):
				slug.WriteRune(r)
			}
		}
		s := slug.String()
		if n := seen[s]; n > 0 {
			out[fmt.Sprintf("%s-%d", s, n)] = true
		} else {
			out[s] = true
		}
		seen[s]++
	}
	return out
}

// TestReadmeManifestLoads: the README's small manifest is one toolscore takes: run with it gets
// past the loader (every manifest error is reported before anything else) to the server check,
// which refuses only its made-up server command.
func TestReadmeManifestLoads(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(docsRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(readme), "## A manifest for your server\n")
	_, rest, ok := strings.Cut(section, "```yaml\nname:")
	manifest, _, ok2 := strings.Cut(rest, "```\n")
	if !ok || !ok2 {
		t.Fatal("the README's section \"A manifest for your server\" has no ```yaml block starting with name:")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "scenario.yaml")
	if err := os.WriteFile(path, []byte("name:"+manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := toolscore(t, dir, "run", path, "--backend", "local", "--out", filepath.Join(dir, "out"))
	if code != 2 || !strings.Contains(stderr, `the server command "my-mcp-server" cannot be started`) {
		t.Errorf("toolscore run on the README's manifest: exit %d, want 2 at the server check only:\n%s", code, stderr)
	}
}

// TestLayoutMatchesPackages: CONTRIBUTING's layout table names every package `go list ./...`
// finds (a row's path or a folder above it), and every path it names exists: the map of the
// code cannot fall behind the code.
func TestLayoutMatchesPackages(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(docsRoot, "CONTRIBUTING.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(b), "| path | what it holds |")
	if !ok {
		t.Fatal("CONTRIBUTING.md has no layout table (| path | what it holds |)")
	}
	var rows []string
	for _, line := range strings.Split(table, "\n")[2:] {
		if !strings.HasPrefix(line, "|") {
			break
		}
		first := strings.SplitN(line, "|", 3)[1]
		for _, m := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(first, -1) {
			rows = append(rows, strings.TrimSuffix(m[1], "/"))
		}
	}
	for _, r := range rows {
		if _, err := os.Stat(filepath.Join(docsRoot, r)); err != nil {
			t.Errorf("the layout table names %s, which is not there", r)
		}
	}
	cmd := exec.Command("go", "list", "./...")
	cmd.Dir = docsRoot
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list ./...: %v", err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		rel := strings.TrimPrefix(strings.TrimPrefix(pkg, "github.com/toolscore/toolscore"), "/")
		if !slices.ContainsFunc(rows, func(r string) bool { return rel == r || strings.HasPrefix(rel, r+"/") }) {
			t.Errorf("CONTRIBUTING's layout table does not name the package %s", rel)
		}
	}
}
