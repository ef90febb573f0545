package fault

import (
	"fmt"
	"net/http"
)

// HTTP401 lets the first after target calls through, then answers the next one, and every later
// request of the client, 401 Unauthorized with WWW-Authenticate: Bearer error="invalid_token"
// and the resource_metadata URL, as a server does once the client's access token has expired.
type HTTP401 struct {
	passResult
	// After is how many target calls succeed before the token expires.
	After int `json:"after"`
	// Description is the challenge's error_description.
	Description string `json:"description"`
}

func init() {
	Register("http-401", &HTTP401{Description: "The access token expired"})
}

// ResourceMetadata is where a 401 challenge points the client for the protected resource
// metadata (RFC 9728), relative to the origin the client reached the proxy at.
const ResourceMetadata = "/.well-known/oauth-protected-resource"

func (f *HTTP401) HTTP() *HTTPEffect {
	challenge := fmt.Sprintf(`Bearer error="invalid_token", error_description=%q, resource_metadata="%s%s"`, f.Description, Origin, ResourceMetadata)
	return &HTTPEffect{
		Status: http.StatusUnauthorized, After: f.After, Revoke: true,
		Header: http.Header{"Www-Authenticate": {challenge}},
	}
}

func (f *HTTP401) check() *OptionError {
	if f.After < 0 {
		return &OptionError{Option: "after", Err: fmt.Errorf("must not be negative, got %d", f.After)}
	}
	for _, r := range f.Description {
		// RFC 6750 allows error_description only printable ASCII without " and \.
		if r < 0x20 || r > 0x7e || r == '"' || r == '\\' {
			return &OptionError{Option: "description", Err: fmt.Errorf("must be printable ASCII without \" or \\, got %q", f.Description)}
		}
	}
	return nil
}
