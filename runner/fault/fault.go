// Package fault holds the faults toolscore applies to a target tool's tools/call result on the
// wire. Each fault is one small file: a struct of its settings with JSON tags and one Apply
// method, registered by name (the shape of toxiproxy's toxics).
package fault

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"sort"
	"strings"
	"time"
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
	// Schema is the tool's outputSchema as the server (or the manifest) declares it, or nil.
	Schema map[string]any
	// Rand is seeded per call, so the same seed gives the same bytes whatever else runs.
	Rand *rand.Rand
	// Fetch calls the same tool on a fresh instance of the server with other arguments; nil when
	// the proxy cannot (then faults that want a real record make one up).
	Fetch func(ctx context.Context, args json.RawMessage) (map[string]any, error)
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
}

// RPCError is a JSON-RPC error object.
type RPCError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// Introduced is one value a fault put on the wire, where it put it, and what stood there before.
type Introduced struct {
	Path  string `json:"path"`
	Value any    `json:"value"`
	Was   any    `json:"was,omitempty"`
}

var registry = map[string]Fault{}

// Register makes a fault available by name; its value's type is the template New copies.
func Register(name string, f Fault) {
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

// New returns a fresh fault of the named kind with its settings decoded from options (JSON, may
// be empty).
func New(name string, options json.RawMessage) (Fault, error) {
	tmpl, ok := registry[name]
	if !ok {
		return nil, fmt.Errorf("unknown fault %q (known: %s)", name, strings.Join(Names(), ", "))
	}
	t := reflect.TypeOf(tmpl)
	var f Fault
	if t.Kind() == reflect.Pointer {
		v := reflect.New(t.Elem())
		v.Elem().Set(reflect.ValueOf(tmpl).Elem())
		f = v.Interface().(Fault)
	} else {
		f = tmpl
	}
	if len(options) > 0 && string(options) != "null" {
		dec := json.NewDecoder(strings.NewReader(string(options)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(f); err != nil {
			return nil, fmt.Errorf("fault %q: bad options: %w", name, err)
		}
	}
	return f, nil
}

// Duration is a time.Duration written as "2s" in JSON and YAML.
type Duration time.Duration

func (d Duration) MarshalText() ([]byte, error) { return []byte(time.Duration(d).String()), nil }

func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("want a duration like 2s or 150ms, got %q", b)
	}
	*d = Duration(v)
	return nil
}
