package fault

import (
	"context"
	"encoding/json"
	"strings"
)

// Corrupt rewrites the text and structuredContent separately, changing ids and amounts in each
// with its own draw, so the two disagree with each other and with the truth.
type Corrupt struct{}

func init() { Register("corrupt", &Corrupt{}) }

func (*Corrupt) Apply(_ context.Context, c *Call) (*Effect, error) {
	r := clone(c.Result)
	var intro []Introduced
	// newDigits remembers what each original digit string became in the structured part, so the
	// text is never rewritten to the same wrong value and the two always disagree.
	newDigits := map[string]string{}
	if s := structured(c.Result); s != nil {
		ns := make(map[string]any, len(s))
		for _, k := range sortedKeys(s) {
			// Only numbers and strings change; v is compared through changed, never with !=, as
			// a list or an object in the result is not comparable.
			v, changed := s[k], false
			switch x := v.(type) {
			case json.Number:
				n := perturbNumber(c.Rand, x)
				newDigits[digitsOf(x.String())] = digitsOf(n.String())
				v, changed = n, n != x
			case string:
				if !isDate(x) && digitsOf(x) != "" {
					n := otherDigit(c.Rand, x)
					newDigits[digitsOf(x)] = digitsOf(n)
					v, changed = n, n != x
				}
			}
			if changed {
				intro = append(intro, Introduced{Path: path("structuredContent", k), Value: v, Was: s[k]})
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
			n := otherDigit(c.Rand, tok)
			for try := 0; try < 10 && digitsOf(n) == newDigits[digitsOf(tok)]; try++ {
				n = otherDigit(c.Rand, tok)
			}
			b.WriteString(text[last:loc[0]])
			b.WriteString(n)
			last = loc[1]
			intro = append(intro, Introduced{Path: path("content", i, "text"), Value: n, Was: tok})
		}
		b.WriteString(text[last:])
		r = withText(r, i, b.String())
	}
	return &Effect{Result: r, Introduced: intro}, nil
}
