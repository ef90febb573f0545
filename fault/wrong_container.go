package fault

import "context"

// WrongContainer wraps structuredContent in an array, so an object arrives as a list.
type WrongContainer struct{}

func init() { Register("wrong-container", &WrongContainer{}) }

func (*WrongContainer) Apply(_ context.Context, c *Call) (*Effect, error) {
	s, ok := c.Result["structuredContent"]
	if !ok {
		return &Effect{Note: "the result had no structuredContent to wrap"}, nil
	}
	r := clone(c.Result)
	r["structuredContent"] = []any{s}
	return &Effect{Result: r, Introduced: []Introduced{{Path: "structuredContent", Value: r["structuredContent"], Was: s}}}, nil
}
