package proxy

import "encoding/json"

// Message is the envelope of one JSON-RPC frame: the raw bytes of its top-level id and params
// (nil where absent) and its method, for readers of a transcript outside this package.
type Message struct {
	ID     json.RawMessage
	Method string
	Params json.RawMessage
}

// ParseMessage finds the envelope of frame in one pass; ok is false for anything that is not
// a JSON object (garbage, a batch, a blank line).
func ParseMessage(frame []byte) (Message, bool) {
	env, ok := parseEnvelope(frame)
	return Message(env), ok
}

// WithID returns a copy of frame whose top-level id is id, every other byte kept; ok is false
// when frame has no id.
func WithID(frame []byte, id json.RawMessage) ([]byte, bool) {
	return withMember(frame, id, "id")
}

// IDKey is a JSON-RPC id as a map key, by value: 3, 3.0 and 3e0 are one key (see jsonrpc.IDKey);
// "" for none or null.
func IDKey(id json.RawMessage) string { return idKey(id) }
