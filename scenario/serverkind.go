package scenario

// ServerKind is which kind of server a manifest's server block describes: the one place that
// tells them apart by which of its fields are set, so every other place asks Kind.
type ServerKind string

// The kinds of server a manifest may give.
const (
	// ServerBuiltin is a server built into toolscore (server.builtin).
	ServerBuiltin ServerKind = "builtin"
	// ServerCommand is a program speaking stdio (server.command).
	ServerCommand ServerKind = "command"
	// ServerHTTP is a program serving streamable HTTP itself (server.command with server.http).
	ServerHTTP ServerKind = "http"
	// ServerImage is a program in a container of its own (server.image with server.command),
	// on stdio or, with server.http, streamable HTTP.
	ServerImage ServerKind = "image"
	// ServerURL is a remote streamable HTTP endpoint (server.url).
	ServerURL ServerKind = "url"
)

// Kind is the kind of server s describes. A block with none of builtin, url or image is a
// command server (the loader refuses one with no command).
func (s Server) Kind() ServerKind {
	switch {
	case s.URL != "":
		return ServerURL
	case s.Image != "":
		return ServerImage
	case s.Builtin != "":
		return ServerBuiltin
	case s.HTTP != nil:
		return ServerHTTP
	}
	return ServerCommand
}
