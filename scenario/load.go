package scenario

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/lexer"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/token"
)

// Defaults for the fields a manifest may leave out.
const (
	DefaultRuns    = 3
	DefaultTimeout = 30 * time.Second
	// MinTimeout is the shortest timeout a manifest may set: a run starts a proxy, a server and
	// a client, which takes longer than this, so a shorter one grades every run hung.
	MinTimeout = time.Second
)

// Limits on what a manifest may hold, so that a hostile or mistaken one costs little to refuse.
const (
	// MaxFileSize bounds the manifest file: a real one is a few KiB (scenarios/ledger.yaml is
	// under 2 KiB), this leaves room for the largest arguments, and the YAML parser's cost grows
	// faster than the file (a 128 KiB mapping of 12,000 keys takes it 0.8 s and 67 MiB).
	MaxFileSize = 128 << 10
	// MaxNesting bounds how deeply lists and mappings nest: the parser's cost grows with the
	// square of the depth (64 KiB of brackets took it 18 GiB), and a manifest needs a few levels.
	MaxNesting = 64
	// MaxArgumentsSize bounds the JSON of arguments and of a fault's options: they reach every
	// run in an environment variable or a command-line argument, which Linux caps at 128 KiB.
	MaxArgumentsSize = 64 << 10
	// MaxAliasExpansion bounds what aliases may add to the manifest once expanded: plenty for
	// reusing a few mappings, and an alias bomb (a few lines that expand to gigabytes) stops at it.
	MaxAliasExpansion = 64 << 10
)

// ReadFile reads a manifest file, refusing one over MaxFileSize without reading all of it.
func ReadFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	if len(data) > MaxFileSize {
		// A regular file's size is known; a device or a pipe is only known to be larger.
		size := int64(-1)
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
			size = st.Size()
		}
		return nil, tooLarge(path, size)
	}
	return data, nil
}

// tooLarge refuses a manifest of size bytes, -1 when all that is known is that it is over the
// limit.
func tooLarge(path string, size int64) *Error {
	is := "is " + sizeText(size) + ", over"
	// Unknown, or a size that reads as the limit once rounded ("128 KiB, over the limit of
	// 128 KiB" would be no reason).
	if size <= MaxFileSize || sizeText(size) == sizeText(MaxFileSize) {
		is = "is over"
	}
	return &Error{File: path, Line: 1, Col: 1, Msg: fmt.Sprintf("the manifest %s the limit of %s (a manifest is a few KiB; is this the right file?)", is, sizeText(MaxFileSize))}
}

// sizeText writes a size in bytes the way a person reads it: 512 bytes, 64 KiB, 1.5 MiB.
func sizeText(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d bytes", n)
	case n < 1<<20:
		return strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/(1<<10)), ".0") + " KiB"
	}
	return strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/(1<<20)), ".0") + " MiB"
}

// Load parses the manifest in data, checks it against the known names and
// fills in defaults. path only names the file in errors. Every problem is
// found here, before anything runs: the error is an *Error, or several joined
// with errors.Join, each naming file:line:col and the field.
func Load(path string, data []byte, known Known) (*Scenario, error) {
	if len(data) > MaxFileSize {
		return nil, tooLarge(path, int64(len(data)))
	}
	l := &loader{
		file:    path,
		known:   known,
		nodes:   map[string]entry{},
		paths:   map[*token.Token]string{},
		parents: map[*token.Token]string{},
		anchors: map[string]ast.Node{},
	}
	tokens := lexer.Tokenize(string(data))
	if err := l.checkNesting(tokens); err != nil {
		return nil, err
	}
	// Duplicate keys are allowed here and reported by walk, which knows
	// the path of the mapping they are in.
	f, err := parser.Parse(tokens, 0, parser.AllowDuplicateMapKey())
	if err != nil {
		return nil, l.fromYAML(err)
	}
	body := l.body(f)
	if body == nil {
		return nil, l.result()
	}
	l.walk(body, "", nil)
	if len(l.errs) > 0 {
		return nil, l.result()
	}
	// Before decoding, which would expand every alias.
	if l.checkAliases(body); len(l.errs) > 0 {
		return nil, l.result()
	}
	var s Scenario
	if err := yaml.NodeToValue(body, &s, yaml.Strict()); err != nil {
		return nil, l.fromYAML(err)
	}
	s.File = path
	l.check(&s)
	if len(l.errs) > 0 {
		return nil, l.result()
	}
	return &s, nil
}

// loader keeps the manifest's AST indexed by field path, so that decoding
// errors (which carry a token) get a path and semantic errors (which know a
// path) get a position.
type loader struct {
	file    string
	known   Known
	nodes   map[string]entry        // field path -> its node
	paths   map[*token.Token]string // a value's token -> its field path
	parents map[*token.Token]string // a key's token -> the path of its mapping
	anchors map[string]ast.Node     // anchor name -> the value it names
	errs    []*Error
}

// entry is a value in the manifest and the key it is under, if any.
type entry struct {
	key   ast.Node
	value ast.Node
}

// body returns the manifest's one document, or records why there is none.
func (l *loader) body(f *ast.File) ast.Node {
	var docs []*ast.DocumentNode
	for _, d := range f.Docs {
		if d.Body != nil {
			docs = append(docs, d)
		}
	}
	if len(docs) == 0 {
		l.errs = append(l.errs, &Error{File: l.file, Line: 1, Col: 1, Msg: "the manifest is empty"})
		return nil
	}
	if len(docs) > 1 {
		tk := docs[1].Body.GetToken()
		if docs[1].Start != nil {
			tk = docs[1].Start
		}
		l.errs = append(l.errs, &Error{File: l.file, Line: tk.Position.Line, Col: tk.Position.Column,
			Msg: "a manifest holds one YAML document, and another one starts here"})
		return nil
	}
	return docs[0].Body
}

// walk indexes n and everything below it under path, and reports the
// duplicate keys and undefined aliases the parser let through.
func (l *loader) walk(n ast.Node, path string, key ast.Node) {
	if n == nil {
		return
	}
	switch v := n.(type) {
	case *ast.AnchorNode:
		l.anchors[v.Name.GetToken().Value] = v.Value
		l.walk(v.Value, path, key)
		return
	case *ast.TagNode:
		l.walk(v.Value, path, key)
		return
	}
	l.nodes[path] = entry{key: key, value: n}
	if tk := n.GetToken(); tk != nil {
		if _, seen := l.paths[tk]; !seen {
			l.paths[tk] = path
		}
	}
	switch v := n.(type) {
	case *ast.MappingNode:
		l.walkPairs(v.Values, path)
	case *ast.MappingValueNode:
		l.walkPairs([]*ast.MappingValueNode{v}, path)
	case *ast.SequenceNode:
		for i, item := range v.Values {
			// An empty entry has no token of its own worth pointing at,
			// so it is reported at its dash.
			var dash ast.Node
			if _, null := item.(*ast.NullNode); null && i < len(v.Entries) && v.Entries[i].Start != nil {
				dash = v.Entries[i]
			}
			l.walk(item, fmt.Sprintf("%s[%d]", path, i), dash)
		}
	case *ast.AliasNode:
		if name := v.Value.GetToken().Value; l.anchors[name] == nil {
			l.errorf(path, "alias *%s refers to no anchor defined above it", name)
		}
	}
}

func (l *loader) walkPairs(pairs []*ast.MappingValueNode, path string) {
	// Every unknown key is reported here, in one pass: decoding would stop at the first. A
	// fault's other keys are its options, which the fault checks.
	known := fieldNames(path)
	if indexes.ReplaceAllString(path, "[]") == "faults[]" {
		known = nil
	}
	first := map[string]*token.Token{}
	for _, p := range pairs {
		name := keyName(p.Key)
		child := name
		if path != "" {
			child = path + "." + name
		}
		tk := p.Key.GetToken()
		if prev, dup := first[name]; dup {
			l.errs = append(l.errs, &Error{File: l.file, Line: tk.Position.Line, Col: tk.Position.Column,
				Field: child, Msg: fmt.Sprintf("duplicate key (already set on line %d)", prev.Position.Line)})
			continue
		}
		if known != nil && !slices.Contains(known, name) {
			l.errs = append(l.errs, &Error{File: l.file, Line: tk.Position.Line, Col: tk.Position.Column,
				Field: child, Msg: "unknown field" + knownList(known)})
		}
		first[name] = tk
		l.parents[tk] = path
		l.walk(p.Value, child, p.Key)
	}
}

func keyName(k ast.MapKeyNode) string {
	switch v := k.(type) {
	case *ast.StringNode:
		return v.Value
	case *ast.MappingKeyNode:
		if s, ok := v.Value.(*ast.StringNode); ok {
			return s.Value
		}
		return v.Value.GetToken().Value
	}
	return k.GetToken().Value
}

// checkNesting refuses collections nested deeper than MaxNesting, before they are parsed: flow
// ones by their brackets, block ones by the columns their entries and keys start at (so "- - -"
// on one line counts too). The lexer that finds them costs what the file's size does.
func (l *loader) checkNesting(tokens token.Tokens) error {
	flow := 0
	var block []int // columns of the block collections open here, innermost last
	for i, tk := range tokens {
		col := tk.Position.Column
		switch tk.Type {
		case token.SequenceStartType, token.MappingStartType:
			flow++
		case token.SequenceEndType, token.MappingEndType:
			flow--
			continue
		case token.SequenceEntryType:
		case token.MappingValueType:
			if flow > 0 || i == 0 {
				continue
			}
			col = tokens[i-1].Position.Column // the key's
		default:
			continue
		}
		if tk.Type == token.SequenceEntryType || tk.Type == token.MappingValueType {
			for len(block) > 0 && block[len(block)-1] >= col {
				block = block[:len(block)-1]
			}
			block = append(block, col)
		}
		if flow > MaxNesting || len(block) > MaxNesting {
			return &Error{File: l.file, Line: tk.Position.Line, Col: tk.Position.Column,
				Msg: fmt.Sprintf("collections nested more than %d deep; a manifest needs a few levels", MaxNesting)}
		}
	}
	return nil
}

// checkAliases refuses a manifest whose aliases, expanded, would add more than MaxAliasExpansion
// to it, at the alias that crosses the limit. It counts without expanding: the size of each
// anchor's value is worked out once, where it is defined, and costs what its text does (plus one
// for each value, so a bomb of empty values is counted too).
func (l *loader) checkAliases(body ast.Node) {
	const over = MaxAliasExpansion + 1
	sizes := map[string]int{} // anchor name -> size of its value, expanded, so far in the file
	added := 0
	var size func(n ast.Node) int
	size = func(n ast.Node) int {
		if n == nil || added > MaxAliasExpansion {
			return 0
		}
		total := 1
		switch v := n.(type) {
		case *ast.AnchorNode:
			name := v.Name.GetToken().Value
			delete(sizes, name) // an alias inside the anchor's own value expands to nothing
			sizes[name] = size(v.Value)
			return sizes[name]
		case *ast.AliasNode:
			n := sizes[v.Value.GetToken().Value]
			if added = min(added+n, over); added > MaxAliasExpansion {
				l.aliasError(v)
			}
			return n
		case *ast.TagNode:
			return size(v.Value)
		case *ast.MappingKeyNode:
			return size(v.Value)
		case *ast.MappingValueNode:
			total += size(v.Key) + size(v.Value)
		case *ast.MappingNode:
			for _, p := range v.Values {
				total = min(total+size(p), over)
			}
		case *ast.SequenceNode:
			for _, item := range v.Values {
				total = min(total+size(item), over)
			}
		default:
			if tk := n.GetToken(); tk != nil {
				total += len(tk.Value)
			}
		}
		return min(total, over)
	}
	size(body)
}

func (l *loader) aliasError(v *ast.AliasNode) {
	msg := fmt.Sprintf("aliases expand the manifest by more than %s here (an alias bomb?); write the values out instead", sizeText(MaxAliasExpansion))
	if path, ok := l.paths[v.GetToken()]; ok {
		l.errorf(path, "%s", msg)
		return
	}
	tk := v.GetToken()
	l.errs = append(l.errs, &Error{File: l.file, Line: tk.Position.Line, Col: tk.Position.Column, Msg: msg})
}

// node returns the value at path, looking through an alias, or nil. What
// is below an alias is not indexed, so errors there point at the alias.
func (l *loader) node(path string) ast.Node {
	n := l.nodes[path].value
	if a, ok := n.(*ast.AliasNode); ok {
		return l.anchors[a.Value.GetToken().Value]
	}
	return n
}

// present says whether path is in the manifest with a value other than null.
func (l *loader) present(path string) bool {
	n := l.node(path)
	if n == nil {
		return false
	}
	_, null := n.(*ast.NullNode)
	return !null
}

// pos is where an error about path points: a scalar's value, a container's
// key, a list entry's first key; a missing field points at its parent.
func (l *loader) pos(path string) (line, col int) {
	for {
		if e, ok := l.nodes[path]; ok {
			if tk := e.token(); tk != nil {
				return tk.Position.Line, tk.Position.Column
			}
		}
		if path == "" {
			return 1, 1
		}
		path = parentPath(path)
	}
}

func (e entry) token() *token.Token {
	n := e.value
	if e.key != nil {
		switch n.(type) {
		case *ast.MappingNode, *ast.MappingValueNode, *ast.SequenceNode, *ast.NullNode:
			n = e.key
		}
	}
	switch v := n.(type) {
	case *ast.MappingNode:
		if !v.IsFlowStyle && len(v.Values) > 0 {
			n = v.Values[0].Key
		}
	case *ast.MappingValueNode:
		n = v.Key
	}
	return n.GetToken()
}

// parentPath strips the last key or index from path.
func parentPath(path string) string {
	if strings.HasSuffix(path, "]") {
		return path[:strings.LastIndex(path, "[")]
	}
	if i := strings.LastIndex(path, "."); i >= 0 {
		return path[:i]
	}
	return ""
}

func (l *loader) line(path string) int {
	line, _ := l.pos(path)
	return line
}

// errorf records a problem with the field at path.
func (l *loader) errorf(path, format string, args ...any) {
	line, col := l.pos(path)
	l.errs = append(l.errs, &Error{File: l.file, Line: line, Col: col, Field: path, Msg: fmt.Sprintf(format, args...)})
}

// keyErrorf records a problem with the key at path rather than its value (a misspelt key).
func (l *loader) keyErrorf(path, format string, args ...any) {
	line, col := l.pos(path)
	if k := l.nodes[path].key; k != nil {
		line, col = k.GetToken().Position.Line, k.GetToken().Position.Column
	}
	l.errs = append(l.errs, &Error{File: l.file, Line: line, Col: col, Field: path, Msg: fmt.Sprintf(format, args...)})
}

// result returns the recorded problems in file order.
func (l *loader) result() error {
	slices.SortStableFunc(l.errs, func(a, b *Error) int {
		return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Col, b.Col))
	})
	if len(l.errs) == 1 {
		return l.errs[0]
	}
	errs := make([]error, len(l.errs))
	for i, e := range l.errs {
		errs[i] = e
	}
	return errors.Join(errs...)
}

// fromYAML turns an error from goccy/go-yaml, or one of ours raised while
// decoding, into an *Error worded for the manifest's author.
func (l *loader) fromYAML(err error) error {
	var pe *posError
	if errors.As(err, &pe) {
		if pe.want != "" {
			return l.atToken(pe.tok, fmt.Sprintf("expected %s, got %s", pe.want, l.describe(pe.tok)))
		}
		return l.atToken(pe.tok, pe.msg)
	}
	var ye yaml.Error
	if !errors.As(err, &ye) || ye.GetToken() == nil {
		return &Error{File: l.file, Line: 1, Col: 1, Msg: err.Error()}
	}
	tk := ye.GetToken()
	switch e := ye.(type) {
	case *yaml.UnknownFieldError:
		parent := l.parents[tk]
		field := tk.Value
		if parent != "" {
			field = parent + "." + tk.Value
		}
		msg := "unknown field"
		if names := fieldNames(parent); len(names) > 0 {
			msg += knownList(names)
		}
		return &Error{File: l.file, Line: tk.Position.Line, Col: tk.Position.Column, Field: field, Msg: msg}
	case *yaml.TypeError:
		return l.atToken(tk, fmt.Sprintf("expected %s, got %s", describeType(e.DstType), l.describe(tk)))
	case *yaml.UnexpectedNodeTypeError:
		return l.atToken(tk, fmt.Sprintf("expected %s, got %s", describeNodeType(e.Expected), l.describe(tk)))
	case *yaml.OverflowError:
		return l.atToken(tk, fmt.Sprintf("%s is too large for %s", e.SrcNum, describeType(e.DstType)))
	}
	return l.atToken(tk, ye.GetMessage())
}

// atToken builds an *Error at tk, naming the field when tk is a value's.
func (l *loader) atToken(tk *token.Token, msg string) *Error {
	if path, ok := l.paths[tk]; ok {
		line, col := l.pos(path)
		return &Error{File: l.file, Line: line, Col: col, Field: path, Msg: msg}
	}
	return &Error{File: l.file, Line: tk.Position.Line, Col: tk.Position.Column, Msg: msg}
}

// describe says what the value at tk is, for "expected X, got Y".
func (l *loader) describe(tk *token.Token) string {
	if path, ok := l.paths[tk]; ok {
		return describeNode(l.node(path))
	}
	return fmt.Sprintf("%q", tk.Value)
}

func describeNode(n ast.Node) string {
	switch v := n.(type) {
	case nil:
		return "nothing"
	case *ast.StringNode:
		if len(v.Value) > 80 {
			return fmt.Sprintf("a string of %s starting %q", sizeText(int64(len(v.Value))), strings.ToValidUTF8(v.Value[:60], ""))
		}
		return fmt.Sprintf("the string %q", v.Value)
	case *ast.LiteralNode:
		return "a block of text"
	case *ast.IntegerNode, *ast.FloatNode, *ast.InfinityNode, *ast.NanNode:
		return "the number " + n.GetToken().Value
	case *ast.BoolNode:
		return n.GetToken().Value
	case *ast.NullNode:
		return "null"
	case *ast.MappingNode, *ast.MappingValueNode:
		return "a mapping"
	case *ast.SequenceNode:
		return "a list"
	case *ast.AliasNode:
		return "an alias"
	}
	return strings.ToLower(n.Type().String())
}

func describeType(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Pointer:
		return describeType(t.Elem())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.Map, reflect.Struct:
		return "a mapping"
	}
	return t.String()
}

func describeNodeType(t ast.NodeType) string {
	switch t {
	case ast.MappingType, ast.MappingValueType:
		return "a mapping"
	case ast.SequenceType:
		return "a list"
	case ast.StringType:
		return "a string"
	}
	return strings.ToLower(t.String())
}

var indexes = regexp.MustCompile(`\[[0-9]+\]`)

// fieldNames lists the keys the mapping at path takes, for "unknown field"
// errors; it is empty for free-form mappings such as arguments.
func fieldNames(path string) []string {
	var t reflect.Type
	switch indexes.ReplaceAllString(path, "[]") {
	case "":
		t = reflect.TypeFor[Scenario]()
	case "server":
		t = reflect.TypeFor[Server]()
	case "server.http":
		t = reflect.TypeFor[HTTPServer]()
	case "faults[]":
		t = reflect.TypeFor[Fault]()
	case "tools[]":
		t = reflect.TypeFor[Tool]()
	case "clients[]":
		t = reflect.TypeFor[Client]()
	case "clients[].model":
		t = reflect.TypeFor[Model]()
	case "sandbox":
		t = reflect.TypeFor[Sandbox]()
	case "expect[]":
		t = reflect.TypeFor[Expect]()
	default:
		if !strings.HasPrefix(path, "server.env.") {
			return nil
		}
		t = reflect.TypeFor[envOptions]() // a from_env mapping
	}
	var names []string
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name != "" && name != "-" {
			names = append(names, name)
		}
	}
	return names
}

// knownList formats names as " (known: a, b)", or nothing when the caller
// did not say which names exist.
func knownList[T ~string](names []T) string {
	if names == nil {
		return ""
	}
	s := make([]string, len(names))
	for i, n := range names {
		s[i] = string(n)
	}
	return " (known: " + strings.Join(s, ", ") + ")"
}
