package fault

import (
	"fmt"
	"net/http"
)

// GatewayHTML answers the call as a gateway in front of the server does when the server is down:
// status (502 Bad Gateway or 503 Service Unavailable) with a text/html page and no JSON-RPC in
// it; the server never sees the call. It follows the final revision 2025-11-25 (basic/transports:
// a POST's answer is JSON or an SSE stream, so an HTML page is an error of the exchange, not a
// message), under which such a status must not make a client fall back to the old HTTP+SSE
// transport: that fallback is for a 4xx to the first POST only.
type GatewayHTML struct {
	passResult
	Status int `json:"status"`
}

func init() { Register("gateway-html", &GatewayHTML{Status: http.StatusBadGateway}) }

func (f *GatewayHTML) HTTP() *HTTPEffect {
	text := fmt.Sprintf("%d %s", f.Status, http.StatusText(f.Status))
	page := "<!DOCTYPE html>\n<html><head><title>" + text + "</title></head>\n<body><center><h1>" + text +
		"</h1></center><hr><center>gateway</center></body></html>\n"
	return &HTTPEffect{Status: f.Status, Body: []byte(page), ContentType: "text/html; charset=utf-8"}
}

func (f *GatewayHTML) check() *OptionError {
	if f.Status != http.StatusBadGateway && f.Status != http.StatusServiceUnavailable {
		return &OptionError{Option: "status", Err: fmt.Errorf("must be 502 or 503, got %d", f.Status)}
	}
	return nil
}
