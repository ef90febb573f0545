package fault_test

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/toolscore/toolscore/fault"
)

// showHTTP prints what a transport fault does to the exchange of the target call.
func showHTTP(name, options string) {
	f, err := fault.New(name, json.RawMessage(options))
	if err != nil {
		fmt.Println(err)
		return
	}
	e := *f.(fault.HTTPFault).HTTP()
	body := e.Body
	e.Body = nil
	fmt.Printf("%s %+v\n", name, e)
	if body != nil {
		fmt.Printf("body: %s\n", strings.TrimSpace(string(body)))
	}
}

// The session forgotten: 404 to the call and to everything later in its session.
func ExampleSessionExpired() {
	showHTTP("session-expired", "")
	// Output:
	// session-expired {Status:404 Header:map[] Body:[] ContentType: RequestID:false ExpireSession:true Revoke:false After:0 HeaderDelay:0s Cut:false EventIDFirst:false}
}

// The SSE stream ends before the response: after the events with an id, or before any.
func ExampleSSECut() {
	showHTTP("sse-cut", "")
	showHTTP("sse-cut", `{"event_id":false}`)
	// Output:
	// sse-cut {Status:0 Header:map[] Body:[] ContentType: RequestID:false ExpireSession:false Revoke:false After:0 HeaderDelay:0s Cut:true EventIDFirst:true}
	// sse-cut {Status:0 Header:map[] Body:[] ContentType: RequestID:false ExpireSession:false Revoke:false After:0 HeaderDelay:0s Cut:true EventIDFirst:false}
}

// 500 instead of the answer.
func ExampleHTTP500() {
	showHTTP("http-500", "")
	// Output:
	// http-500 {Status:500 Header:map[] Body:[] ContentType: RequestID:false ExpireSession:false Revoke:false After:0 HeaderDelay:0s Cut:false EventIDFirst:false}
}

// 429 with Retry-After in whole seconds, rounded up; none for 0.
func ExampleHTTP429() {
	showHTTP("http-429", "")
	showHTTP("http-429", `{"retry_after":"1500ms"}`)
	showHTTP("http-429", `{"retry_after":"0s"}`)
	showHTTP("http-429", `{"retry_after":"-1s"}`)
	// Output:
	// http-429 {Status:429 Header:map[Retry-After:[1]] Body:[] ContentType: RequestID:false ExpireSession:false Revoke:false After:0 HeaderDelay:0s Cut:false EventIDFirst:false}
	// http-429 {Status:429 Header:map[Retry-After:[2]] Body:[] ContentType: RequestID:false ExpireSession:false Revoke:false After:0 HeaderDelay:0s Cut:false EventIDFirst:false}
	// http-429 {Status:429 Header:map[] Body:[] ContentType: RequestID:false ExpireSession:false Revoke:false After:0 HeaderDelay:0s Cut:false EventIDFirst:false}
	// fault http-429, option retry_after: must not be negative, got -1s
}

// The answer's headers late.
func ExampleSlowFirstByte() {
	showHTTP("slow-first-byte", `{"delay":"300ms"}`)
	// Output:
	// slow-first-byte {Status:0 Header:map[] Body:[] ContentType: RequestID:false ExpireSession:false Revoke:false After:0 HeaderDelay:300ms Cut:false EventIDFirst:false}
}

// The token expired: 401 with a Bearer challenge to the target call after `after` good ones, and
// to every later request; the proxy puts its own origin in place of {origin}.
func ExampleHTTP401() {
	showHTTP("http-401", "")
	showHTTP("http-401", `{"after":2,"description":"token revoked"}`)
	showHTTP("http-401", `{"after":-1}`)
	showHTTP("http-401", `{"description":"say \"hi\""}`)
	// Output:
	// http-401 {Status:401 Header:map[Www-Authenticate:[Bearer error="invalid_token", error_description="The access token expired", resource_metadata="{origin}/.well-known/oauth-protected-resource"]] Body:[] ContentType: RequestID:false ExpireSession:false Revoke:true After:0 HeaderDelay:0s Cut:false EventIDFirst:false}
	// http-401 {Status:401 Header:map[Www-Authenticate:[Bearer error="invalid_token", error_description="token revoked", resource_metadata="{origin}/.well-known/oauth-protected-resource"]] Body:[] ContentType: RequestID:false ExpireSession:false Revoke:true After:2 HeaderDelay:0s Cut:false EventIDFirst:false}
	// fault http-401, option after: must not be negative, got -1
	// fault http-401, option description: must be printable ASCII without " or \, got "say \"hi\""
}

// Which faults only the HTTP transport carries.
func ExampleTransport() {
	for _, name := range fault.Names() {
		if fault.Transport(name) {
			fmt.Println(name)
		}
	}
	// Output:
	// gateway-html
	// http-401
	// http-429
	// http-500
	// rate-limited-429
	// session-expired
	// slow-first-byte
	// sse-cut
}

// A gateway's HTML page instead of the answer: 502 or 503, nothing else.
func ExampleGatewayHTML() {
	showHTTP("gateway-html", "")
	showHTTP("gateway-html", `{"status":503}`)
	showHTTP("gateway-html", `{"status":500}`)
	// Output:
	// gateway-html {Status:502 Header:map[] Body:[] ContentType:text/html; charset=utf-8 RequestID:false ExpireSession:false Revoke:false After:0 HeaderDelay:0s Cut:false EventIDFirst:false}
	// body: <!DOCTYPE html>
	// <html><head><title>502 Bad Gateway</title></head>
	// <body><center><h1>502 Bad Gateway</h1></center><hr><center>gateway</center></body></html>
	// gateway-html {Status:503 Header:map[] Body:[] ContentType:text/html; charset=utf-8 RequestID:false ExpireSession:false Revoke:false After:0 HeaderDelay:0s Cut:false EventIDFirst:false}
	// body: <!DOCTYPE html>
	// <html><head><title>503 Service Unavailable</title></head>
	// <body><center><h1>503 Service Unavailable</h1></center><hr><center>gateway</center></body></html>
	// fault gateway-html, option status: must be 502 or 503, got 500
}

// SEP-3304's rate limit over HTTP: 429, Retry-After, and the JSON-RPC error -32023 as the body,
// with the request's id in place of null.
func ExampleRateLimited429() {
	showHTTP("rate-limited-429", "")
	showHTTP("rate-limited-429", `{"retry_after":"1500ms"}`)
	showHTTP("rate-limited-429", `{"retry_after":"-1s"}`)
	// Output:
	// rate-limited-429 {Status:429 Header:map[Retry-After:[1]] Body:[] ContentType:application/json RequestID:true ExpireSession:false Revoke:false After:0 HeaderDelay:0s Cut:false EventIDFirst:false}
	// body: {"error":{"code":-32023,"message":"Rate limited","data":{"retryAfter":1}},"id":null,"jsonrpc":"2.0"}
	// rate-limited-429 {Status:429 Header:map[Retry-After:[2]] Body:[] ContentType:application/json RequestID:true ExpireSession:false Revoke:false After:0 HeaderDelay:0s Cut:false EventIDFirst:false}
	// body: {"error":{"code":-32023,"message":"Rate limited","data":{"retryAfter":2}},"id":null,"jsonrpc":"2.0"}
	// fault rate-limited-429, option retry_after: must not be negative, got -1s
}
