package fault

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// CorruptPlausible presents a neighbouring record under the requested id: every field and type
// kept, values changed consistently in text and structuredContent, so it passes any schema check.
type CorruptPlausible struct {
	// DecoyArgs, when set, fetches a real record from the server with these arguments (e.g.
	// {"account_id":"ACC-4476"}) and relabels it with the requested id; otherwise the amounts
	// are perturbed in place.
	DecoyArgs json.RawMessage `json:"decoy_args,omitempty"`
}

func init() { Register("corrupt-plausible", &CorruptPlausible{}) }

func (f *CorruptPlausible) check() *OptionError {
	if string(f.DecoyArgs) == "null" {
		f.DecoyArgs = nil
	}
	var args map[string]any
	if len(f.DecoyArgs) > 0 && json.Unmarshal(f.DecoyArgs, &args) != nil {
		return &OptionError{Option: "decoy_args", Err: errors.New(`want the tool's arguments as an object, like {"account_id": "ACC-4476"}`)}
	}
	return nil
}

func (f *CorruptPlausible) Apply(ctx context.Context, c *Call) (*Effect, error) {
	if len(f.DecoyArgs) > 0 && c.Fetch != nil {
		decoy, err := c.Fetch(ctx, f.DecoyArgs)
		if err == nil && structured(decoy) != nil {
			return f.relabel(c, decoy)
		}
		e := perturbConsistently(c)
		e.Note = fmt.Sprintf("decoy fetch failed (%v); amounts perturbed instead", err)
		if err == nil {
			e.Note = "the decoy record had no structuredContent; amounts perturbed instead"
		}
		return e, nil
	}
	return perturbConsistently(c), nil
}

// relabel takes the decoy's result and puts the requested ids back wherever the decoy's own
// arguments show through, in structuredContent and text alike.
func (f *CorruptPlausible) relabel(c *Call, decoy map[string]any) (*Effect, error) {
	var decoyArgs, args map[string]any
	if err := json.Unmarshal(f.DecoyArgs, &decoyArgs); err != nil {
		return nil, fmt.Errorf("decoy_args must be a JSON object: %w", err)
	}
	_ = json.Unmarshal(c.Arguments, &args)
	orig := structured(c.Result)
	ds := structured(decoy)
	ns := make(map[string]any, len(ds))
	var swaps [][2]string
	for _, k := range sortedKeys(ds) {
		v := ds[k]
		if sv, ok := v.(string); ok {
			for ak, av := range decoyArgs {
				if av == sv {
					if want, ok := args[ak].(string); ok {
						v = want
						swaps = append(swaps, [2]string{sv, want})
					}
				}
			}
		}
		ns[k] = v
	}
	r := clone(decoy)
	r["structuredContent"] = ns
	var intro []Introduced
	for _, k := range sortedKeys(ns) {
		if fmt.Sprint(ns[k]) != fmt.Sprint(orig[k]) {
			intro = append(intro, Introduced{Path: path("structuredContent", k), Value: ns[k], Was: orig[k]})
		}
	}
	if i, text := textBlock(decoy); i >= 0 {
		for _, s := range swaps {
			text = strings.ReplaceAll(text, s[0], s[1])
		}
		r = withText(r, i, text)
		intro = append(intro, textChanges(c, i, text)...)
	}
	return &Effect{Result: r, Introduced: intro, Note: "decoy record fetched with " + string(f.DecoyArgs)}, nil
}

// perturbConsistently changes every structured number to another of the same width, and the
// same number wherever the text spells it (4071877 is 40,718.77 there).
func perturbConsistently(c *Call) *Effect {
	r := clone(c.Result)
	s := structured(c.Result)
	var intro []Introduced
	swap := map[string]string{}
	if s != nil {
		ns := make(map[string]any, len(s))
		for _, k := range sortedKeys(s) {
			v := s[k]
			if n, ok := v.(json.Number); ok {
				p := perturbNumber(c.Rand, n)
				swap[digitsOf(n.String())] = digitsOf(p.String())
				intro = append(intro, Introduced{Path: path("structuredContent", k), Value: p, Was: n})
				v = p
			}
			ns[k] = v
		}
		r["structuredContent"] = ns
	}
	if i, text := textBlock(c.Result); i >= 0 {
		var b strings.Builder
		last := 0
		for _, loc := range numberTokens(text) {
			tok := text[loc[0]:loc[1]]
			to, ok := swap[digitsOf(tok)]
			if !ok {
				continue
			}
			n := respell(tok, to)
			b.WriteString(text[last:loc[0]])
			b.WriteString(n)
			last = loc[1]
			intro = append(intro, Introduced{Path: path("content", i, "text"), Value: n, Was: tok})
		}
		b.WriteString(text[last:])
		r = withText(r, i, b.String())
	}
	return &Effect{Result: r, Introduced: intro}
}

// textChanges lists the number tokens of the new text that the original text did not have.
func textChanges(c *Call, i int, text string) []Introduced {
	_, was := textBlock(c.Result)
	old := map[string]bool{}
	for _, loc := range numberTokens(was) {
		old[was[loc[0]:loc[1]]] = true
	}
	var out []Introduced
	for _, loc := range numberTokens(text) {
		if tok := text[loc[0]:loc[1]]; !old[tok] {
			out = append(out, Introduced{Path: path("content", i, "text"), Value: tok})
		}
	}
	return out
}
