package fault

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"reflect"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/toolscore/toolscore/record"
)

// Fault rewrites the server's answer to one target tools/call.
type Fault interface {
	Apply(ctx context.Context, c *Call) (*Effect, error)
}

// Call is one target tools/call as the proxy saw it, with the server's answer.
type Call struct {
	Tool      string
	Arguments json.RawMessage
	// Result is the server's result object, decoded with json.Number so numbers survive intact.
	Result map[string]any
	// Schema is the tool's outputSchema as the server publishes it (or the manifest's, where the
	// server declares none), or nil; the proxy looks it up only for a fault that UsesSchema, the
	// same way whatever the client asked.
	Schema map[string]any
	// SchemaFrom says where Schema came from, or why there is none, for a fault's note.
	SchemaFrom string
	// Rand is seeded per call, so the same seed gives the same bytes whatever else runs.
	Rand *rand.Rand
	// Fetch calls the same tool on a fresh instance of the server with other arguments; nil when
	// the proxy cannot (then faults that want a real record make one up).
	Fetch func(ctx context.Context, args json.RawMessage) (map[string]any, error)
	// Protocol is the MCP revision of the session (the call's own, under 2026-07-28), or ""
	// when the proxy saw no handshake settle one.
	Protocol string
}

// Effect is what a fault puts on the wire instead of the server's answer.
type Effect struct {
	// Result replaces the server's result; nil with RPCError nil keeps the server's bytes.
	Result map[string]any
	// RPCError, when set, is sent as a JSON-RPC error response instead of any result.
	RPCError *RPCError
	// Delay holds the answer back this long before it is sent.
	Delay time.Duration
	// Introduced lists the values the fault put on the wire that the server never said.
	Introduced []Introduced
	// Note says anything else a reader of the transcript should know (e.g. a decoy fallback).
	Note string
	// Task, when set, says Result is the handle of this task, which the proxy then serves with
	// the server's result (see TaskHandle).
	Task *Task
}

// RPCError is a JSON-RPC error object.
type RPCError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	// Data is the error's data member, left out when nil.
	Data any `json:"data,omitempty"`
}

// Introduced is one value a fault put on the wire, where it put it, and what stood there before:
// the record's (record.Introduced), which each run's grade keeps.
type Introduced = record.Introduced

// schemaFault is a fault that picks what it breaks from the tool's outputSchema.
type schemaFault interface{ usesSchema() }

// UsesSchema says whether f picks what it breaks from Call.Schema, so the proxy looks the
// schema up (which may take a fresh server) only for such a fault.
func UsesSchema(f Fault) bool {
	_, ok := f.(schemaFault)
	return ok
}

// NeedsSchema says whether the fault registered as name picks what it breaks from the tool's
// outputSchema: on a tool that has none, its cells are not applicable.
func NeedsSchema(name string) bool { return UsesSchema(registry[name]) }

var registry = map[string]Fault{}

// Register makes a fault available by name; its value, a pointer to a struct of its settings,
// is the template New copies.
func Register(name string, f Fault) {
	if t := reflect.TypeOf(f); t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		panic("fault: " + name + " must be registered as a pointer to a struct")
	}
	if _, dup := registry[name]; dup {
		panic("fault: registered twice: " + name)
	}
	registry[name] = f
}

// Names lists the registered faults, sorted.
func Names() []string {
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// New returns a fresh fault of the named kind with its settings decoded from options, a JSON
// object of the fault's own settings (may be empty). A problem with one option is an
// *OptionError naming it.
func New(name string, options json.RawMessage) (Fault, error) {
	tmpl, ok := registry[name]
	if !ok {
		return nil, fmt.Errorf("unknown fault %q (known: %s)", name, strings.Join(Names(), ", "))
	}
	v := reflect.New(reflect.TypeOf(tmpl).Elem())
	v.Elem().Set(reflect.ValueOf(tmpl).Elem())
	var opts map[string]json.RawMessage
	if len(options) > 0 {
		if err := json.Unmarshal(options, &opts); err != nil {
			return nil, fmt.Errorf("fault %s: options: %w", name, valueError(err))
		}
	}
	fields := settings(v.Elem())
	for _, key := range slices.Sorted(maps.Keys(opts)) {
		field, ok := fields[key]
		if !ok {
			return nil, &OptionError{Fault: name, Option: key, Options: Options(name)}
		}
		if err := json.Unmarshal(opts[key], field.Addr().Interface()); err != nil {
			return nil, &OptionError{Fault: name, Option: key, Options: Options(name), Err: valueError(err)}
		}
	}
	f := v.Interface().(Fault)
	if c, ok := f.(checker); ok {
		if err := c.check(); err != nil {
			err.Fault, err.Options = name, Options(name)
			return nil, err
		}
	}
	return f, nil
}

// Check says whether options would make a good fault of the named kind, for a caller (the
// manifest loader) that checks them before anything runs.
func Check(name string, options json.RawMessage) error {
	_, err := New(name, options)
	return err
}

// Options lists the settings the named fault takes, as they are spelled in options.
func Options(name string) []string {
	tmpl, ok := registry[name]
	if !ok {
		return nil
	}
	return slices.Sorted(maps.Keys(settings(reflect.ValueOf(tmpl).Elem())))
}

// settings maps each option's name (its JSON tag) to the struct field it sets.
func settings(v reflect.Value) map[string]reflect.Value {
	out := map[string]reflect.Value{}
	for i := range v.NumField() {
		name, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			out[name] = v.Field(i)
		}
	}
	return out
}

// checker is a fault whose settings need more than their types to be right (a latency is not
// negative); the error it returns names the option.
type checker interface {
	check() *OptionError
}

// OptionError is a fault's objection to one option: one it does not take (Err is nil), or a
// value it cannot use.
type OptionError struct {
	Fault   string
	Option  string
	Options []string // the options the fault takes
	Err     error
}

func (e *OptionError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("fault %s, option %s: %v", e.Fault, e.Option, e.Err)
	}
	takes := "it takes none"
	if len(e.Options) > 0 {
		takes = "its options: " + strings.Join(e.Options, ", ")
	}
	return fmt.Sprintf("fault %s has no option %q (%s)", e.Fault, e.Option, takes)
}

// Unwrap returns what is wrong with the value, nil for an option the fault does not take.
func (e *OptionError) Unwrap() error { return e.Err }

// KnownOptions lists the options the fault takes, for a caller that words its own message.
func (e *OptionError) KnownOptions() []string { return e.Options }

// valueError words encoding/json's complaint about a value's type as what the option wants.
func valueError(err error) error {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) {
		return err
	}
	want := te.Type.Kind().String()
	switch te.Type.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		want = "a whole number"
	case reflect.Float32, reflect.Float64:
		want = "a number"
	case reflect.String:
		want = "a string"
	case reflect.Bool:
		want = "true or false"
	case reflect.Map, reflect.Struct:
		want = "an object"
	case reflect.Slice:
		want = "a list"
	}
	return fmt.Errorf("want %s, got %s", want, article(te.Value))
}

// article puts "a" or "an" before the JSON kind encoding/json names ("number 1.5" stays as is).
func article(kind string) string {
	switch {
	case strings.HasPrefix(kind, "number "):
		return "the " + kind
	case strings.HasPrefix(kind, "object"), strings.HasPrefix(kind, "array"):
		return "an " + kind
	}
	return "a " + kind
}

// Duration is a time.Duration written as "2s" in JSON and YAML.
type Duration time.Duration

func (d Duration) String() string { return time.Duration(d).String() }

func (d Duration) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalJSON reads a duration string; a bare number has no unit, so it is refused, and null
// keeps the default, as it does for every other option.
func (d *Duration) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("want a duration like 2s or 150ms, got %s", b)
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("want a duration like 2s or 150ms, got %q", s)
	}
	*d = Duration(v)
	return nil
}
