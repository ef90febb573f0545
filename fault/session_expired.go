package fault

import "net/http"

// SessionExpired answers 404 Not Found to the call and to every later request of its session,
// as a server does once it has forgotten a live session: the client must initialize again.
type SessionExpired struct{ passResult }

func init() { Register("session-expired", &SessionExpired{}) }

func (*SessionExpired) HTTP() *HTTPEffect {
	return &HTTPEffect{Status: http.StatusNotFound, ExpireSession: true}
}
