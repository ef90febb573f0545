// Package hostile is toolscore's hostile MCP server: a test fixture that misbehaves on purpose,
// one way per tool, or as a whole server one way per mode ([ModeEnv]), so every part of
// toolscore (the proxy, the runner, the graders, every report) can be run against what a
// stranger's server may do. It writes the wire by hand, below any SDK, because most of what it
// sends no SDK would.
//
// It runs as `toolscore hostile` ([Main]), a builtin server a manifest names as
// server: {builtin: hostile}; a test picks the misbehaviour by the tool it calls, or by the
// mode in the server's env (server: {builtin: hostile, env: {HOSTILE_MODE: banner}}). [Tools]
// lists one misbehaviour a tool: [Text], the hostile string the markup tool carries in every
// field (HTML, Markdown, workflow commands, bidi controls, ANSI escapes), a huge answer, a deep
// one, an exit mid-call, a hang, garbage on the wire, and the wire-shape tools whose exact
// frames ([WireAnswer]) a JSON parser may not give back as they came. [Modes] lists the
// server's own: a banner before the first message, an exit at once, a helper process left
// holding its stdout, a closed stdout. Unset, [Serve] behaves.
//
// Files: hostile.go (the tools, the modes, [Serve]), wire.go (the wire-shape tools).
//
// Used by: the CLI's hostile command, and through it the tests of cmd/toolscore. Uses nothing
// of toolscore's own.
package hostile
