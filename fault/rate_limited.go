package fault

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// RateLimited answers the call with the JSON-RPC error -32023 RateLimited and a retryAfter in
// seconds in its data, on stdio as on HTTP (in a 200 answer there). It follows a draft:
// SEP-3304 (standard rate-limit error with a typed retry-after), an open pull request on
// 2026-12-07, so it stays out of the default study.
type RateLimited struct {
	RetryAfter Duration `json:"retry_after"`
}

// RateLimited429 is RateLimited as SEP-3304 has it over streamable HTTP: status 429 Too Many
// Requests with a Retry-After header, and the same JSON-RPC error as the body. A draft too
// (SEP-3304, open on 2026-12-07); the server never sees the call.
type RateLimited429 struct {
	passResult
	RetryAfter Duration `json:"retry_after"`
}

// rateLimitedCode is SEP-3304's code for a request refused for its rate.
const rateLimitedCode = -32023

func init() {
	Register("rate-limited", &RateLimited{RetryAfter: Duration(time.Second)})
	Register("rate-limited-429", &RateLimited429{RetryAfter: Duration(time.Second)})
}

func (f *RateLimited) Apply(context.Context, *Call) (*Effect, error) {
	return &Effect{RPCError: rateLimitedError(f.RetryAfter)}, nil
}

func (f *RateLimited) check() *OptionError { return checkRetryAfter(f.RetryAfter) }

func (f *RateLimited429) HTTP() *HTTPEffect {
	e := rateLimitedError(f.RetryAfter)
	// The proxy puts the request's id in place of null, as a server that read the request would.
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": nil, "error": e})
	return &HTTPEffect{
		Status:      http.StatusTooManyRequests,
		Header:      http.Header{"Retry-After": {strconv.Itoa(e.Data.(map[string]any)["retryAfter"].(int))}},
		Body:        body,
		ContentType: "application/json",
		RequestID:   true,
	}
}

func (f *RateLimited429) check() *OptionError { return checkRetryAfter(f.RetryAfter) }

// rateLimitedError is the JSON-RPC error both faults send; retryAfter is whole seconds,
// rounded up, as Retry-After counts them.
func rateLimitedError(after Duration) *RPCError {
	secs := int((time.Duration(after) + time.Second - 1) / time.Second)
	return &RPCError{Code: rateLimitedCode, Message: "Rate limited", Data: map[string]any{"retryAfter": secs}}
}

func checkRetryAfter(d Duration) *OptionError {
	if d < 0 {
		return &OptionError{Option: "retry_after", Err: fmt.Errorf("must not be negative, got %s", time.Duration(d))}
	}
	return nil
}
