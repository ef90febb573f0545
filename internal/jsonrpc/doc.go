// Package jsonrpc holds what the proxy, the transcript's readers and the raw client must agree
// on about JSON-RPC itself: which answer belongs to which request.
//
// [IDKey] turns a JSON-RPC id into a map key by value, as the Go SDKs match ids (3, 3.0 and
// 3e0 are one key; the string "3" is another). The proxy keys the requests it awaits by it
// (and proxy.IDKey, which readers of a transcript use, is this one), and the raw client matches
// its answers by it, so an odd id a client sends is matched the same way everywhere.
//
// Used by: proxy, client. Uses nothing.
package jsonrpc
