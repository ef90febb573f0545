package fault

import "context"

// Clean passes the server's result through byte for byte.
type Clean struct{}

func init() { Register("clean", &Clean{}) }

func (*Clean) Apply(context.Context, *Call) (*Effect, error) { return &Effect{}, nil }
