package scenario

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml/ast"
)

// serverHint shows the two ways to start a server, for errors about server.
const serverHint = "builtin: ledger, command: [program, args...], or url: https://..."

// check finds the problems the types alone do not catch, records each
// entry's line and fills in defaults.
func (l *loader) check(s *Scenario) {
	l.requireText("name", s.Name, "give the scenario a name")
	l.checkServer(&s.Server)
	s.serverAt = cmp.Or(l.valueAt("server.command[0]"), l.valueAt("server.url"))
	l.checkTools(s)
	l.checkFaults(s.Faults)
	l.checkDecoys(s)
	l.checkSchemaModes(s.SchemaModes)
	l.checkProtocols(s)
	l.checkTransports(s)
	l.checkClients(s.Clients)
	l.checkSettings(s)
	l.checkExpect(s)
	l.checkPlaceholders()
}

// keyAt is where the key of path is written (its value's place for a list entry, which has no
// key); none when the manifest does not write path.
func (l *loader) keyAt(path string) position {
	if !l.present(path) {
		return position{}
	}
	line, col := l.pos(path)
	if k := l.nodes[path].key; k != nil {
		line, col = k.GetToken().Position.Line, k.GetToken().Position.Column
	}
	return position{line: line, col: col, field: path}
}

// valueAt is where the value at path is written (a scalar's value, not its key), for an error
// about the value found after loading (a misspelt tool, a command that does not exist).
func (l *loader) valueAt(path string) position {
	if !l.present(path) {
		return position{}
	}
	line, col := l.pos(path)
	return position{line: line, col: col, field: path}
}

// checkPlaceholders refuses the values toolscore init left for the user to fill in.
func (l *loader) checkPlaceholders() {
	for _, p := range slices.Sorted(maps.Keys(l.nodes)) {
		if n, ok := l.nodes[p].value.(*ast.StringNode); ok && strings.HasPrefix(n.Value, Placeholder) {
			l.errorf(p, "fill this in: toolscore init could not tell what to put here (%s)", n.Value)
		}
	}
}

func (l *loader) requireText(path, value, hint string) {
	switch {
	case !l.present(path):
		l.errorf(path, "missing (%s)", hint)
	case strings.TrimSpace(value) == "":
		l.errorf(path, "must not be empty")
	}
}

func (l *loader) checkServer(srv *Server) {
	if !l.present("server") {
		l.errorf("server", "missing (%s)", serverHint)
		return
	}
	// The ways to reach a server, in the order errors list them (an image
	// goes with a command).
	var set []string
	for _, kind := range []string{"builtin", "command", "url"} {
		if l.present("server." + kind) {
			set = append(set, kind)
		}
	}
	if l.present("server.image") && !l.present("server.command") {
		set = append(set, "image")
	}
	switch {
	case len(set) == 0:
		l.errorf("server", "say how to start the server (%s)", serverHint)
	case len(set) > 1:
		l.errorf("server", "%s cannot be combined; pick one", strings.Join(set, " and "))
	}
	if l.present("server.builtin") {
		switch {
		case strings.TrimSpace(srv.Builtin) == "":
			l.errorf("server.builtin", "must not be empty")
		case l.known.Builtins != nil && !slices.Contains(l.known.Builtins, srv.Builtin):
			l.errorf("server.builtin", "%s", unknownName("builtin server", srv.Builtin, l.known.Builtins))
		}
		if l.present("server.image") {
			l.errorf("server.image", "only applies to a command server")
		}
	}
	if !l.present("server.command") && !l.present("server.image") {
		for _, f := range []string{"env", "install", "http"} {
			// A builtin is a command toolscore knows: its env picks how it behaves (the hostile
			// server's HOSTILE_MODE).
			switch {
			case !l.present("server." + f):
			case f != "env":
				l.errorf("server."+f, "only applies to a command server")
			case !l.present("server.builtin"):
				l.errorf("server."+f, "only applies to a command or builtin server")
			}
		}
	}
	if l.present("server.install") && strings.TrimSpace(srv.Install) == "" {
		l.errorf("server.install", "must not be empty (leave it out when the client image has the server)")
	}
	if l.present("server.command") {
		switch {
		case len(srv.Command) == 0:
			l.errorf("server.command", "must name the program to run")
		case strings.TrimSpace(srv.Command[0]) == "":
			l.errorf("server.command[0]", "must name the program to run")
		case l.present("server.http") && !slices.ContainsFunc(srv.Command, func(a string) bool { return strings.Contains(a, PortPlaceholder) }):
			l.errorf("server.command", "the server serves HTTP (server.http), so an argument must carry %s, where the proxy writes the loopback port it picked (e.g. --port, %q)", PortPlaceholder, PortPlaceholder)
		}
	}
	l.checkServerImage(*srv)
	if l.present("server.http") && srv.HTTP != nil && srv.HTTP.Path != "" && !strings.HasPrefix(srv.HTTP.Path, "/") {
		l.errorf("server.http.path", "must start with / (the path of the MCP endpoint, e.g. /mcp), got %q", srv.HTTP.Path)
	}
	l.checkRemote(srv)
	l.checkEnv(srv.Env)
}

// checkRemote checks a url server: an http(s) URL without credentials in it, the network its
// cells reach it on, and the variable its Authorization header comes from.
func (l *loader) checkRemote(srv *Server) {
	if !l.present("server.url") {
		for _, f := range []string{"auth_env", "network"} {
			if l.present("server." + f) {
				l.errorf("server."+f, "only applies to a url server")
			}
		}
		return
	}
	u, err := url.Parse(srv.URL)
	switch {
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		l.errorf("server.url", "must be the server's streamable HTTP endpoint, an http or https URL, got %q", srv.URL)
	case u.User != nil:
		l.errorf("server.url", "must not carry credentials (name the variable holding the Authorization header in auth_env)")
	}
	switch {
	case !l.present("server.network"):
		l.errorf("server", "a url server's cells need a network to reach it (network: host, bridge or a Docker network's name); the other cells keep none")
	case strings.TrimSpace(srv.Network) == "" || srv.Network == "none":
		l.errorf("server.network", "must name a network the cells can reach the server on (host, bridge or a Docker network's name), got %q", srv.Network)
	}
	if l.present("server.auth_env") {
		if !envName.MatchString(srv.AuthEnv) {
			l.errorf("server.auth_env", "%q is not an environment variable name", srv.AuthEnv)
		}
		srv.authLine, srv.authCol = l.pos("server.auth_env")
	}
}

// checkEnv checks server.env's names and from_env entries, and records where each from_env
// is written, for the error when the variable is not set.
func (l *loader) checkEnv(env map[string]EnvValue) {
	for _, name := range slices.Sorted(maps.Keys(env)) {
		p, v := "server.env."+name, env[name]
		// A name's error points at the name, not at its value.
		switch {
		case !envName.MatchString(name):
			l.keyErrorf(p, "%q is not an environment variable name", name)
		case strings.HasPrefix(name, "TOOLSCORE_"):
			l.keyErrorf(p, "TOOLSCORE_ variables are the client contract's; give the server another name")
		}
		switch l.node(p).(type) {
		case *ast.MappingNode, *ast.MappingValueNode:
			from := p + ".from_env"
			switch {
			case !l.present(from):
				l.errorf(p, "write a string, or {from_env: NAME} to pass the runner's variable NAME on")
			case !envName.MatchString(v.FromEnv):
				l.errorf(from, "%q is not an environment variable name", v.FromEnv)
			}
			v.line, v.col = l.pos(from)
			env[name] = v
		}
	}
}

// checkTruth keeps numbers as the author wrote them: decoding 40718.70
// as a string would give "40718.7", which is not what an answer contains.
// checkTools checks the tool the matrix calls, or each of a tools: list, which replaces the
// single tool's fields at the top level.
func (l *loader) checkTools(s *Scenario) {
	if !l.present("tools") {
		l.requireText("tool", s.Tool, "name the tool every run calls")
		s.toolAt, s.argsAt = l.valueAt("tool"), l.keyAt("arguments")
		l.checkJSONSize("arguments", s.Arguments)
		l.checkTruth("truth", s.Truth)
		l.checkOutputSchema("output_schema", s.OutputSchema)
		l.checkVolatile("volatile", s.Volatile)
		return
	}
	for _, k := range []string{"tool", "arguments", "truth", "output_schema", "volatile"} {
		if l.present(k) {
			l.keyErrorf(k, "a scenario with tools: says this for each tool, under tools[]")
		}
	}
	if len(s.Tools) == 0 {
		l.errorf("tools", "list at least one tool (each a name, or a mapping with name, arguments and truth)")
		return
	}
	seen := map[string]int{}
	for i := range s.Tools {
		t := &s.Tools[i]
		p := fmt.Sprintf("tools[%d]", i)
		t.Line, t.axis = l.line(p), true
		t.at, t.argsAt = l.valueAt(l.namePath(p)), l.keyAt(p+".arguments")
		if strings.TrimSpace(t.Name) == "" {
			l.errorf(l.namePath(p), "name the tool")
		} else if j, dup := seen[t.Name]; dup {
			l.errorf(l.namePath(p), "duplicate tool %q (first at tools[%d])", t.Name, j)
		} else {
			seen[t.Name] = i
		}
		l.checkJSONSize(p+".arguments", t.Arguments)
		l.checkJSONSize(p+".decoy_args", t.DecoyArgs)
		l.checkTruth(p+".truth", t.Truth)
		l.checkOutputSchema(p+".output_schema", t.OutputSchema)
		l.checkVolatile(p+".volatile", t.Volatile)
		if t.Prompt == "" {
			t.Prompt = s.Prompt
		}
	}
}

// checkDecoys marks the faults that take decoy_args, which a tool's decoy_args fills, and
// refuses a tool's decoy_args that no fault of the scenario would use.
func (l *loader) checkDecoys(s *Scenario) {
	if l.known.FaultOptions == nil || !slices.ContainsFunc(s.Tools, func(t Tool) bool { return len(t.DecoyArgs) > 0 }) {
		return
	}
	taken := false
	for i := range s.Faults {
		err := l.known.FaultOptions(s.Faults[i].Name, json.RawMessage(`{"decoy_args":{}}`))
		var opt interface {
			KnownOptions() []string
			Unwrap() error
		}
		s.Faults[i].decoys = err == nil || (errors.As(err, &opt) && opt.Unwrap() != nil)
		taken = taken || s.Faults[i].decoys
	}
	for i, t := range s.Tools {
		if len(t.DecoyArgs) > 0 && !taken {
			l.errorf(fmt.Sprintf("tools[%d].decoy_args", i), "no fault of the scenario takes decoy_args (corrupt-plausible does)")
		}
	}
}

// checkTruth checks the truth list at path, keeping numbers as written.
func (l *loader) checkTruth(path string, truth []string) {
	seen := map[string]int{}
	for i := range truth {
		p := fmt.Sprintf("%s[%d]", path, i)
		switch n := l.node(p).(type) {
		case *ast.IntegerNode, *ast.FloatNode, *ast.InfinityNode, *ast.NanNode, *ast.BoolNode:
			truth[i] = n.GetToken().Value
		}
		if strings.TrimSpace(truth[i]) == "" {
			l.errorf(p, "must not be empty (every answer would contain it)")
			continue
		}
		if j, dup := seen[truth[i]]; dup {
			l.errorf(p, "duplicate value %q (first at %s[%d])", truth[i], path, j)
			continue
		}
		seen[truth[i]] = i
	}
}

// checkJSONSize checks that a mapping sent to every run as JSON can be sent, and is not too large
// to travel in an environment variable or an argument.
func (l *loader) checkJSONSize(path string, v map[string]any) {
	if len(v) == 0 {
		return
	}
	b, err := json.Marshal(v)
	switch {
	case err != nil:
		l.errorf(path, "cannot be sent as JSON: %v", err)
	case len(b) > MaxArgumentsSize:
		l.errorf(path, "is %s as JSON, over the limit of %s (it reaches every run in an environment variable or an argument, which Linux caps at 128 KiB)", sizeText(int64(len(b))), sizeText(MaxArgumentsSize))
	}
}

// checkVolatile checks that each volatile entry is a JSON pointer (RFC 6901) into the result.
func (l *loader) checkVolatile(path string, ptrs []string) {
	for i, p := range ptrs {
		if p != "" && !strings.HasPrefix(p, "/") {
			l.errorf(fmt.Sprintf("%s[%d]", path, i), "must be a JSON pointer into the tools/call result, starting with / (e.g. /structuredContent/as_of), got %q", p)
		}
	}
}

func (l *loader) checkOutputSchema(path string, schema map[string]any) {
	if !l.present(path) {
		return
	}
	switch t, ok := schema["type"]; {
	case !ok:
		l.errorf(path, "needs type: object (MCP requires an object schema)")
	case t != "object":
		l.errorf(path+".type", "must be \"object\" (MCP requires an object schema), got %s", describeNode(l.node(path+".type")))
	}
}

func (l *loader) checkFaults(faults []Fault) {
	if len(faults) == 0 {
		l.errorf("faults", "the matrix needs at least one fault%s", knownList(l.known.Faults))
		return
	}
	seen := map[string]int{}
	for i := range faults {
		f := &faults[i]
		p := fmt.Sprintf("faults[%d]", i)
		f.Line = l.line(p)
		named := l.checkEntryName(p, f.Name, "fault", l.known.Faults)
		if named {
			if j, dup := seen[f.Name]; dup {
				l.errorf(l.namePath(p), "duplicate fault %q (first at faults[%d])", f.Name, j)
			} else {
				seen[f.Name] = i
			}
		}
		if f.Probability != nil {
			if v := *f.Probability; !(v >= 0 && v <= 1) {
				l.errorf(p+".probability", "must be between 0 and 1, got %v", v)
			}
		}
		if l.wholeNumber(p+".nth") && l.present(p+".nth") && f.Nth < 1 {
			l.errorf(p+".nth", "must be 1 or more, got %d", f.Nth)
		}
		l.wholeNumber(p + ".seed")
		if named {
			l.checkFaultOptions(p, f)
		}
	}
}

// checkFaultOptions has the fault check its options one by one, so each problem points at its
// own key, and checks that all of them together can travel to the proxy.
func (l *loader) checkFaultOptions(p string, f *Fault) {
	if len(f.Options) == 0 {
		return
	}
	largest, size := "", 0
	for _, key := range slices.Sorted(maps.Keys(f.Options)) {
		one, err := json.Marshal(map[string]any{key: f.Options[key]})
		if err != nil {
			l.errorf(p+"."+key, "cannot be sent as JSON: %v", err)
			continue
		}
		if len(one) > size {
			largest, size = key, len(one)
		}
		if len(one) > MaxArgumentsSize || l.known.FaultOptions == nil {
			continue
		}
		err = l.known.FaultOptions(f.Name, one)
		var opt interface {
			KnownOptions() []string
			Unwrap() error
		}
		switch {
		case err == nil:
		case !errors.As(err, &opt):
			l.errorf(p+"."+key, "%v", err)
		case opt.Unwrap() == nil:
			l.keyErrorf(p+"."+key, "unknown field%s", knownList(append(fieldNames("faults[]"), opt.KnownOptions()...)))
		default:
			l.errorf(p+"."+key, "%v", opt.Unwrap())
		}
	}
	// The options are measured together, since they travel together, and blamed on the largest.
	l.checkJSONSize(p+"."+largest, f.Options)
}

func (l *loader) checkSchemaModes(modes []SchemaMode) {
	checkAxis(l, "schema_modes", "schema mode", modes, SchemaModes())
}

// checkProtocols checks the protocol axis; a manifest without one runs as-is alone.
func (l *loader) checkProtocols(s *Scenario) {
	if !l.present("protocols") {
		s.Protocols = []Protocol{ProtocolAsIs}
		return
	}
	checkAxis(l, "protocols", "protocol", s.Protocols, Protocols())
}

// checkTransports checks the transport axis, each entry one the server serves; a manifest
// without one runs on stdio alone, or on http alone for a server that serves only HTTP.
func (l *loader) checkTransports(s *Scenario) {
	served := l.served(s.Server)
	if !l.present("transports") {
		s.Transports = served[:1]
		l.checkHTTPFaults(s)
		return
	}
	checkAxis(l, "transports", "transport", s.Transports, Transports())
	l.checkHTTPFaults(s)
	for i, t := range s.Transports {
		if !slices.Contains(Transports(), t) || slices.Contains(served, t) {
			continue
		}
		p := fmt.Sprintf("transports[%d]", i)
		switch {
		case t == TransportHTTP && s.Server.Builtin != "":
			l.errorf(p, "the built-in server %s serves stdio alone", s.Server.Builtin)
		case t == TransportHTTP:
			l.errorf(p, "the command server serves stdio; to run it on http, give server.http (e.g. http: {path: /mcp}) and %s in the argument naming its port", PortPlaceholder)
		case s.Server.URL != "":
			l.errorf(p, "a url server is reached over http alone")
		default:
			l.errorf(p, "the command server serves HTTP (server.http), so its cells run on http alone")
		}
	}
}

// checkHTTPFaults marks the faults of the HTTP exchange, whose cells are on http alone, and
// refuses one in a scenario with no http cell.
func (l *loader) checkHTTPFaults(s *Scenario) {
	if l.known.NeedsSchema != nil {
		for i := range s.Faults {
			s.Faults[i].needsSchema = l.known.NeedsSchema(s.Faults[i].Name)
		}
	}
	if l.known.HTTPOnly == nil {
		return
	}
	for i := range s.Faults {
		f := &s.Faults[i]
		if f.httpOnly = l.known.HTTPOnly(f.Name); f.httpOnly && !slices.Contains(s.Transports, TransportHTTP) {
			l.errorf(l.namePath(fmt.Sprintf("faults[%d]", i)), "%s is a fault of the HTTP exchange, which a stdio cell does not have: it needs the http transport (transports: [stdio, http], and a server that serves HTTP)", f.Name)
		}
	}
}

// served lists the transports the server can be reached on: a builtin both (unless it serves
// stdio alone), a command server the one it serves, a url server http alone.
func (l *loader) served(srv Server) []Transport {
	switch {
	case srv.Builtin != "" && (l.known.HTTPBuiltins == nil || slices.Contains(l.known.HTTPBuiltins, srv.Builtin)):
		return Transports()
	case srv.URL != "" || srv.HTTP != nil:
		return []Transport{TransportHTTP}
	}
	return []Transport{TransportStdio}
}

// checkAxis checks the entries of an axis whose values are a fixed list: at least one, each
// known, none twice.
func checkAxis[T ~string](l *loader, path, kind string, entries, known []T) {
	if len(entries) == 0 {
		l.errorf(path, "the matrix needs at least one %s%s", kind, knownList(known))
		return
	}
	seen := map[T]int{}
	for i, m := range entries {
		p := fmt.Sprintf("%s[%d]", path, i)
		switch j, dup := seen[m]; {
		case !l.present(p):
			l.errorf(p, "empty entry (write one of %s)", joinNames(known))
		case !slices.Contains(known, m):
			l.errorf(p, "%s", unknownName(kind, string(m), known))
		case dup:
			l.errorf(p, "duplicate %s %q (first at %s[%d])", kind, m, path, j)
		default:
			seen[m] = i
		}
	}
}

func (l *loader) checkClients(clients []Client) {
	if len(clients) == 0 {
		l.errorf("clients", "the matrix needs at least one client%s", knownList(l.known.Clients))
		return
	}
	seen := map[string]int{}
	for i := range clients {
		c := &clients[i]
		p := fmt.Sprintf("clients[%d]", i)
		c.Line = l.line(p)
		defined := l.defines(p)
		if defined {
			l.checkDefined(p, c)
		} else if !l.checkEntryName(p, c.Name, "client", l.known.Clients) {
			continue
		}
		// Two entries of one name would be one column, their runs in one directory.
		if j, dup := seen[c.ID()]; dup {
			l.errorf(l.namePath(p), "duplicate client %q (first at clients[%d])", c.ID(), j)
			continue
		}
		seen[c.ID()] = i
		switch {
		case c.Cache != "" && c.Cache != "reuse":
			l.errorf(p+".cache", "must be reuse (or unset), got %q", c.Cache)
		case c.Cache != "" && c.Model == nil:
			l.errorf(p+".cache", "cache: reuse is for a client with a real model (model set); every other client's cells are reused whenever nothing they would see changed")
		}
		if defined {
			continue
		}
		if c.Version != "" && l.known.Versioned != nil && !slices.Contains(l.known.Versioned, c.Name) {
			l.errorf(p+".version", "%q has no library whose version toolscore can install: a version pin means nothing for it (clients that take one: %s)", c.Name, strings.Join(l.known.Versioned, ", "))
		}
		if c.Model != nil {
			l.checkModel(p+".model", c)
		}
		switch {
		case c.Retries < 0:
			l.errorf(p+".retries", "must be 0 or more, got %d", c.Retries)
		case c.Retries > 0 && c.Model != nil:
			l.errorf(p+".retries", "retries is the scripted model's; a real model (model set) decides for itself whether to try again")
		case c.Retries > 0 && l.known.Agents != nil && !slices.Contains(l.known.Agents, c.Name):
			l.errorf(p+".retries", "only an agent has a model to try again; %q is not one (agents: %s)", c.Name, strings.Join(l.known.Agents, ", "))
		}
	}
}

// definingFields are the fields of a client entry that define a client of the manifest's own.
var definingFields = []string{"runtime", "command", "install", "files", "agent"}

// defines says whether the client entry at p defines a client rather than naming a built-in.
func (l *loader) defines(p string) bool {
	return slices.ContainsFunc(definingFields, func(f string) bool { return l.present(p + "." + f) })
}

// clientName is what a defined client may be called: one word, since a name with / reads as a
// built-in's path, @ as a version and : as a model in a cell's key.
var clientName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// checkDefined checks a client the manifest defines: a name of its own, a known runtime, a
// command whose files are in the manifest's folder, and none of a built-in's settings.
func (l *loader) checkDefined(p string, c *Client) {
	np := l.namePath(p)
	if !l.present(np) {
		l.errorf(p, "name is missing (a client you define needs a name of its own)")
		return
	}
	if l.known.Clients != nil && slices.Contains(l.known.Clients, c.Name) {
		if c.Runtime != "" {
			l.errorf(np, "shadows the built-in client %s; pick another name", c.Name)
		} else {
			for _, f := range definingFields {
				if l.present(p + "." + f) {
					l.keyErrorf(p+"."+f, "%s defines a client: pick a name not taken by a built-in (without it, %s is toolscore's own)", f, c.Name)
					break
				}
			}
		}
		return
	}
	if !clientName.MatchString(c.Name) {
		l.errorf(np, "%q cannot name a client you define: use letters, digits, '.', '_' and '-' (no '/', '@' or ':')", c.Name)
	}
	switch {
	case c.Runtime == "":
		l.errorf(p, "runtime is missing: a client you define says what it needs to run%s", knownList(Runtimes))
	case !slices.Contains(Runtimes, c.Runtime):
		l.errorf(p+".runtime", "%s", unknownName("runtime", c.Runtime, Runtimes))
	}
	if len(c.Command) == 0 {
		l.errorf(p, "command is missing: a client you define needs the command that runs its adapter, e.g. [python3, harness/acme.py]")
	}
	dir := filepath.Dir(l.file)
	for j, w := range c.Command {
		wp := fmt.Sprintf("%s.command[%d]", p, j)
		if strings.TrimSpace(w) == "" {
			l.errorf(wp, "must not be empty")
			continue
		}
		if !IsManifestFile(w) {
			continue
		}
		rel := filepath.FromSlash(strings.TrimPrefix(w, "./"))
		if !filepath.IsLocal(rel) {
			l.errorf(wp, "%q leaves the manifest's folder: a command's files are the folder's own, which is what the client's install copies", w)
			continue
		}
		switch info, err := os.Stat(filepath.Join(dir, rel)); {
		case err != nil:
			l.errorf(wp, "%s does not exist in the manifest's folder (a path in command is from there)", w)
		case info.IsDir():
			l.errorf(wp, "%s is a folder; command names a file of the manifest's folder", w)
		default:
			if why := linkedOut(dir, rel); why != "" {
				l.errorf(wp, "%s %s: the client's install copies the folder's own files, and links to files in it; copy the file in", w, why)
			}
		}
	}
	for j, w := range c.Files {
		wp := fmt.Sprintf("%s.files[%d]", p, j)
		rel := filepath.FromSlash(strings.TrimSuffix(strings.TrimPrefix(w, "./"), "/"))
		switch _, err := os.Stat(filepath.Join(dir, rel)); {
		case strings.TrimSpace(w) == "":
			l.errorf(wp, "must not be empty")
		case !filepath.IsLocal(rel):
			l.errorf(wp, "%q leaves the manifest's folder: the client's files are the folder's own, which is what its install copies", w)
		case err != nil:
			l.errorf(wp, "%s does not exist in the manifest's folder (a path in files is from there)", w)
		default:
			if why := linkedOut(dir, rel); why != "" {
				l.errorf(wp, "%s %s: the client's install copies the folder's own files, and links to files in it; copy the file in", w, why)
			}
		}
	}
	if l.present(p + ".install") {
		c.installAt.line, c.installAt.col = l.pos(p + ".install")
		c.installAt.field = p + ".install"
	}
	for j, step := range c.Install {
		if strings.TrimSpace(step) == "" {
			l.errorf(fmt.Sprintf("%s.install[%d]", p, j), "must not be empty")
		}
	}
	for _, f := range []struct{ name, why string }{
		{"version", "a version pins a built-in client's library; your client installs what its install steps say"},
		{"model", "a real model is for a built-in agent; a defined agent talks to the scripted model at TOOLSCORE_MODEL_URL"},
	} {
		if l.present(p + "." + f.name) {
			l.keyErrorf(p+"."+f.name, "not for a client you define: %s", f.why)
		}
	}
}

// linkedOut says why the install would not copy the file rel of dir although it exists there
// ("" when it would): it is reached through a linked folder, or is a link out of the folder.
func linkedOut(dir, rel string) string {
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return ""
	}
	if parent, err := filepath.EvalSymlinks(filepath.Join(dir, filepath.Dir(rel))); err == nil && parent != filepath.Join(root, filepath.Dir(rel)) {
		return "is in a folder that is a link"
	}
	real, err := filepath.EvalSymlinks(filepath.Join(dir, rel))
	if err != nil {
		return ""
	}
	if r, err := filepath.Rel(root, real); err != nil || !filepath.IsLocal(r) {
		return "is a link to " + real + ", outside the manifest's folder"
	}
	return ""
}

// IsManifestFile says whether a word of a defined client's command names a file of the
// manifest's folder: a relative path (with a /, or starting ./).
func IsManifestFile(w string) bool {
	return strings.HasPrefix(w, "./") || (strings.Contains(w, "/") && !filepath.IsAbs(w))
}

// checkModel checks a real model: only agents take one, and it needs a name and an http(s) URL.
func (l *loader) checkModel(p string, c *Client) {
	if l.known.Agents != nil && !slices.Contains(l.known.Agents, c.Name) {
		l.errorf(p, "only an agent takes a model; %q is not one (agents: %s)", c.Name, strings.Join(l.known.Agents, ", "))
		return
	}
	m := c.Model
	if strings.TrimSpace(m.Name) == "" {
		l.errorf(p+".name", "the model needs a name (the vendor's, e.g. the one you would pass to the CLI's --model)")
	}
	if u, err := url.Parse(m.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		l.errorf(p+".url", "the model needs the base URL of the vendor's API (http or https), got %q", m.URL)
	}
	if m.KeyEnv != "" && !envName.MatchString(m.KeyEnv) {
		l.errorf(p+".key_env", "%q is not an environment variable name", m.KeyEnv)
	}
}

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// namePath is where the name of the list entry at p is: the entry itself
// for the bare-name form, its name field for the mapping form.
func (l *loader) namePath(p string) string {
	switch l.node(p).(type) {
	case *ast.MappingNode, *ast.MappingValueNode:
		return p + ".name"
	}
	return p
}

// checkEntryName checks the name of a fault or client entry and says
// whether it is usable.
func (l *loader) checkEntryName(p, name, kind string, known []string) bool {
	np := l.namePath(p)
	switch {
	case !l.present(p):
		l.errorf(p, "empty entry (write a %s name)", kind)
	case !l.present(np):
		l.errorf(p, "name is missing")
	case strings.TrimSpace(name) == "":
		l.errorf(np, "must not be empty")
	case known != nil && !slices.Contains(known, name):
		l.errorf(np, "%s", unknownName(kind, name, known))
	default:
		return true
	}
	return false
}

// wholeNumber rejects what goccy/go-yaml would quietly turn into an
// integer, such as 1.5 (to 1) or "3", and says whether path is fine.
func (l *loader) wholeNumber(path string) bool {
	if !l.present(path) {
		return true
	}
	if _, ok := l.node(path).(*ast.IntegerNode); !ok {
		l.errorf(path, "expected a whole number, got %s", describeNode(l.node(path)))
		return false
	}
	return true
}

func (l *loader) checkSettings(s *Scenario) {
	switch {
	case !l.present("runs"):
		s.Runs = DefaultRuns
	case l.wholeNumber("runs") && s.Runs < 1:
		l.errorf("runs", "must be 1 or more, got %d", s.Runs)
	}
	switch {
	case !l.present("timeout"):
		s.Timeout = Duration(DefaultTimeout)
	case s.Timeout < Duration(MinTimeout):
		l.errorf("timeout", "must be %s or more (a run starts a proxy, a server and a client), got %s", MinTimeout, s.Timeout)
	}
	if l.present("parallel") && l.wholeNumber("parallel") && s.Parallel < 1 {
		l.errorf("parallel", "must be 1 or more, got %d", s.Parallel)
	}
}

func (l *loader) checkExpect(s *Scenario) {
	var clients, faults []string
	for _, c := range s.Clients {
		clients = append(clients, c.ID())
	}
	for _, f := range s.Faults {
		faults = append(faults, f.Name)
	}
	seen := map[[7]string]int{}
	for i := range s.Expect {
		e := &s.Expect[i]
		p := fmt.Sprintf("expect[%d]", i)
		e.Line = l.line(p)
		if !l.present(p) {
			l.errorf(p, "empty entry (write an outcome, and the client, fault, schema, protocol or transport it applies to)")
			continue
		}
		switch {
		case l.present(p+".stable") && !e.Stable:
			l.errorf(p+".stable", "false asks nothing: write stable: true, or leave it out")
		case e.Stable && l.present(p+".outcome"):
			l.errorf(p+".stable", "an outcome already asks that every run agree: write the outcome or stable: true, not both")
		case e.Stable:
		case !l.present(p + ".outcome"):
			l.errorf(p, "outcome is missing: write one, or stable: true%s", knownList(Outcomes()))
		case !slices.Contains(Outcomes(), e.Outcome):
			l.errorf(p+".outcome", "%s", unknownName("outcome", string(e.Outcome), Outcomes()))
		}
		if !isAny(e.Client) && !slices.ContainsFunc(s.Clients, func(c Client) bool { return c.Name == e.Client || c.ID() == e.Client }) {
			l.errorf(p+".client", "%q is not among the scenario's clients (%s)", e.Client, strings.Join(clients, ", "))
		}
		if !isAny(e.Fault) && !slices.Contains(faults, e.Fault) {
			l.errorf(p+".fault", "%q is not among the scenario's faults (%s)", e.Fault, strings.Join(faults, ", "))
		}
		if !isAny(e.Schema) && !slices.Contains(s.SchemaModes, SchemaMode(e.Schema)) {
			l.errorf(p+".schema", "%q is not among the scenario's schema modes (%s)", e.Schema, joinNames(s.SchemaModes))
		}
		if !isAny(e.Protocol) && !slices.Contains(s.Protocols, Protocol(e.Protocol)) {
			l.errorf(p+".protocol", "%q is not among the scenario's protocols (%s)", e.Protocol, joinNames(s.Protocols))
		}
		if !isAny(e.Transport) && !slices.Contains(s.Transports, Transport(e.Transport)) {
			l.errorf(p+".transport", "%q is not among the scenario's transports (%s)", e.Transport, joinNames(s.Transports))
		}
		if !isAny(e.Tool) && !slices.ContainsFunc(s.Tools, func(t Tool) bool { return t.Name == e.Tool }) {
			if len(s.Tools) == 0 {
				l.errorf(p+".tool", "the scenario calls one tool, so there is no tool to select (tool selects one of tools:)")
			} else {
				l.errorf(p+".tool", "%q is not among the scenario's tools (%s)", e.Tool, joinNames(toolNames(s.Tools)))
			}
		}
		key := [7]string{anyOr(e.Client), anyOr(e.Fault), anyOr(e.Schema), anyOr(e.Protocol), anyOr(e.Transport), anyOr(e.Tool), strconv.FormatBool(e.Stable)}
		if j, dup := seen[key]; dup {
			what := "client, fault, schema, protocol and transport"
			if len(s.Tools) > 0 {
				what = "client, fault, schema, protocol, transport and tool"
			}
			l.errorf(p, "duplicate of expect[%d] (same %s)", j, what)
			continue
		}
		seen[key] = i
	}
}

func toolNames(tools []Tool) []string {
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.Name
	}
	return names
}

// isAny says whether an expectation's selector matches every value.
func isAny(sel string) bool {
	return sel == "" || sel == "*"
}

// anyOr writes both spellings of "any" as "*", so duplicates are found.
func anyOr(sel string) string {
	if isAny(sel) {
		return "*"
	}
	return sel
}

func joinNames[T ~string](names []T) string {
	s := make([]string, len(names))
	for i, m := range names {
		s[i] = string(m)
	}
	return strings.Join(s, ", ")
}
