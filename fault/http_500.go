package fault

import "net/http"

// HTTP500 answers the call with 500 Internal Server Error; the server never sees it.
type HTTP500 struct{ passResult }

func init() { Register("http-500", &HTTP500{}) }

func (*HTTP500) HTTP() *HTTPEffect { return &HTTPEffect{Status: http.StatusInternalServerError} }
