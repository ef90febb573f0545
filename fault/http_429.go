package fault

import (
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// HTTP429 answers the call with 429 Too Many Requests and a Retry-After of retry_after (whole
// seconds, rounded up; 0 sends none); the server never sees it.
type HTTP429 struct {
	passResult
	RetryAfter Duration `json:"retry_after"`
}

func init() { Register("http-429", &HTTP429{RetryAfter: Duration(time.Second)}) }

func (f *HTTP429) HTTP() *HTTPEffect {
	eff := &HTTPEffect{Status: http.StatusTooManyRequests}
	if f.RetryAfter > 0 {
		secs := (time.Duration(f.RetryAfter) + time.Second - 1) / time.Second
		eff.Header = http.Header{"Retry-After": {strconv.FormatInt(int64(secs), 10)}}
	}
	return eff
}

func (f *HTTP429) check() *OptionError {
	if f.RetryAfter < 0 {
		return &OptionError{Option: "retry_after", Err: fmt.Errorf("must not be negative, got %s", time.Duration(f.RetryAfter))}
	}
	return nil
}
