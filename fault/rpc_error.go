package fault

import "context"

// RPCErrorFault answers the call with a JSON-RPC error response (-32603) instead of a result.
type RPCErrorFault struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func init() { Register("rpc-error", &RPCErrorFault{Code: -32603, Message: "Internal error"}) }

func (f *RPCErrorFault) Apply(context.Context, *Call) (*Effect, error) {
	return &Effect{RPCError: &RPCError{Code: f.Code, Message: f.Message}}, nil
}
