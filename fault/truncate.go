package fault

import "context"

// Truncate cuts the text block part-way, inside a word or number, and drops structuredContent.
type Truncate struct{}

func init() { Register("truncate", &Truncate{}) }

func (*Truncate) Apply(_ context.Context, c *Call) (*Effect, error) {
	i, text := textBlock(c.Result)
	if i < 0 || text == "" {
		// Nothing to cut: dropping the structured part is all that is left to do.
		r := clone(c.Result)
		delete(r, "structuredContent")
		return &Effect{Result: r, Note: "the result had no text to cut"}, nil
	}
	cut := cutMidToken(c.Rand, text)
	r := withText(c.Result, i, cut)
	delete(r, "structuredContent")
	return &Effect{Result: r, Introduced: []Introduced{{Path: path("content", i, "text"), Value: cut, Was: text}}}, nil
}
