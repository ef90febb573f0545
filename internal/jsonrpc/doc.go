// Package jsonrpc holds what the proxy, the transcript's readers and the raw client must agree
// on about JSON-RPC itself: a frame's envelope, and which answer belongs to which request.
//
// [ParseMessage] finds a frame's top-level id, method and params ([Message]) in one pass
// without decoding the rest, so a 64 MiB result costs one scan: the proxy routes by it, and the
// transcript's readers and replay match by it. [WithMember] and [WithID] replace one member of a
// frame keeping every other byte, which is how the proxy rewrites an answer and replay answers
// under the live request's id.
//
// [IDKey] turns a JSON-RPC id into a map key by value, as the Go SDKs match ids (3, 3.0 and
// 3e0 are one key; the string "3" is another). The proxy keys the requests it awaits by it,
// as do the transcript's readers, and the raw client matches its answers by it, so an odd id a
// client sends is matched the same way everywhere.
//
// Used by: proxy, transcript, grade, replay, client. Uses nothing.
package jsonrpc
