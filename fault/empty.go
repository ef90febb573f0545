package fault

import "context"

// Empty replaces the result with content: [] and no structuredContent.
type Empty struct{}

func init() { Register("empty", &Empty{}) }

func (*Empty) Apply(context.Context, *Call) (*Effect, error) {
	return &Effect{Result: map[string]any{"content": []any{}}}, nil
}
