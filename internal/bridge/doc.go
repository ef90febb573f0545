// Package bridge carries a stdio MCP server over a loopback TCP connection: [Serve], in the
// server's container, starts a fresh server process for every connection and relays its stdin,
// stdout, stderr and exit status as frames; [Connect], in the client's cell, is that server to
// whoever starts it (the proxy), on its own stdio, stderr and exit status.
//
// It is how a server given as an image (server.image) reaches a cell on the stdio transport:
// the image's container runs `toolscore serve-stdio --listen ADDR -- CMD...` ([Serve]), and the
// cell's proxy starts `toolscore connect ADDR` ([Connect]) as its server command, so the proxy
// wraps an image server exactly as it wraps a local command, and each run still gets a fresh
// server process. Connect keeps trying for [DialWait], since the server's container starts
// beside the cell; a signal to it is passed on to the server.
//
// Frames are small and bounded, so a hostile server cannot make either side allocate without
// limit.
//
// Used by: the CLI's serve-stdio and connect commands. Uses: frame, proc.
package bridge
