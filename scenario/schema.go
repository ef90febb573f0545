package scenario

import (
	"encoding/json"

	"github.com/invopop/jsonschema"
)

// SchemaID is where the checked-in schema/scenario.schema.json is served
// from, so editors can validate manifests against it.
const SchemaID = "https://raw.githubusercontent.com/toolscore/toolscore/main/schema/scenario.schema.json"

// Schema returns the JSON Schema of the manifest, generated from the Go
// types so the two cannot drift apart.
func Schema() ([]byte, error) {
	r := &jsonschema.Reflector{
		RequiredFromJSONSchemaTags: true,
		ExpandedStruct:             true,
	}
	s := r.Reflect(&Scenario{})
	s.ID = SchemaID
	s.Title = "toolscore scenario"
	s.Description = "A scenario manifest: an MCP server, one tool call with its truth, and the matrix of faults, schema modes and clients to run it through."
	// Load keeps a number in truth as written, so the schema allows numbers too.
	if truth, ok := s.Properties.Get("truth"); ok {
		truth.Items = &jsonschema.Schema{OneOf: []*jsonschema.Schema{{Type: "string"}, {Type: "number"}}}
	}
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// JSONSchemaExtend lets a fault be written as its bare name, as Load does, and lets its mapping
// carry the fault's own options: the fault package knows them and Load has it check them, so
// the schema names them only in words rather than keep a second list.
func (Fault) JSONSchemaExtend(s *jsonschema.Schema) {
	s.AdditionalProperties = nil
	s.Description = "A fault with its settings. Any other key is an option of the fault itself, e.g. latency: 1500ms for latency or decoy_args: {account_id: ACC-4476} for corrupt-plausible (docs/faults.md lists them); toolscore checks them when it loads the manifest."
	shorthand(s, "Name of the fault, with default options.")
}

// JSONSchemaExtend asks an expect entry for an outcome or stable: true, one of them, as Load does.
func (Expect) JSONSchemaExtend(s *jsonschema.Schema) {
	stable := jsonschema.NewProperties()
	stable.Set("stable", &jsonschema.Schema{Const: true})
	s.OneOf = []*jsonschema.Schema{
		{Required: []string{"outcome"}, Not: &jsonschema.Schema{Required: []string{"stable"}}},
		{Required: []string{"stable"}, Properties: stable},
	}
}

// JSONSchemaExtend lets a client be written as its bare name, as Load does.
func (Client) JSONSchemaExtend(s *jsonschema.Schema) {
	shorthand(s, "Name of the client, at the adapter's default version.")
}

// JSONSchemaExtend lets a tool be written as its bare name, as Load does.
func (Tool) JSONSchemaExtend(s *jsonschema.Schema) {
	shorthand(s, "Name of the tool, called with no arguments.")
}

// shorthand turns the object schema s into "a string, or that object".
func shorthand(s *jsonschema.Schema, nameDescription string) {
	object := *s
	*s = jsonschema.Schema{OneOf: []*jsonschema.Schema{
		{Type: "string", Description: nameDescription},
		&object,
	}}
}

// JSONSchema describes a server.env value as Load takes it: a scalar, or {from_env: NAME}.
func (EnvValue) JSONSchema() *jsonschema.Schema {
	from := jsonschema.NewProperties()
	from.Set("from_env", &jsonschema.Schema{Type: "string", Pattern: envName.String(),
		Description: "A variable of the runner's environment whose value the server gets; the value is masked in every output."})
	return &jsonschema.Schema{OneOf: []*jsonschema.Schema{
		{Type: "string", Description: "The value, as written."},
		{Type: "number"},
		{Type: "boolean"},
		{Type: "object", Properties: from, Required: []string{"from_env"}, AdditionalProperties: jsonschema.FalseSchema},
	}}
}

// JSONSchema lists the schema modes.
func (SchemaMode) JSONSchema() *jsonschema.Schema {
	return enum(SchemaModes(), "hidden removes the outputSchema, published shows the server's (or the manifest's output_schema), as-is passes what the server sends.")
}

// JSONSchema lists the protocol entries.
func (Protocol) JSONSchema() *jsonschema.Schema {
	return enum(Protocols(), "as-is leaves the handshake to server and client; a version makes the proxy answer as a server whose newest version it is.")
}

// JSONSchema lists the transports.
func (Transport) JSONSchema() *jsonschema.Schema {
	return enum(Transports(), "stdio runs the server as the client's child process; http relays streamable HTTP on the cell's loopback.")
}

// JSONSchema lists the outcomes.
func (Outcome) JSONSchema() *jsonschema.Schema {
	return enum(Outcomes(), "What the client did with a run's result.")
}

// enum is a string schema that takes only values.
func enum[T ~string](values []T, description string) *jsonschema.Schema {
	s := &jsonschema.Schema{Type: "string", Description: description}
	for _, v := range values {
		s.Enum = append(s.Enum, string(v))
	}
	return s
}

// JSONSchema describes a duration string.
func (Duration) JSONSchema() *jsonschema.Schema {
	return &jsonschema.Schema{
		Type:        "string",
		Pattern:     `^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$`,
		Description: "A duration with a unit, like 2s, 500ms or 1m30s.",
		Examples:    []any{"30s", "1m30s"},
	}
}
