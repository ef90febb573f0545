// Package model is the scripted model: a stand-in for a vendor's model API, served on
// 127.0.0.1 inside the cell, that an agent CLI is pointed at with its base-URL setting. It plays
// one fixed script (call the scenario's tool with the scenario's arguments, then answer from what
// came back), so what is measured is the agent's client layer, deterministically and offline.
// It records every request it receives: the next model request after the tool call is the
// evidence of what the agent put in front of the model.
//
// An agent adapter (package agent) uses it so:
//
//	m, err := model.Start(model.Anthropic, model.Script{Tool: tool, Arguments: args}, rec)
//	defer m.Close()
//	// point the agent CLI at m.URL, run it to its end; rec holds one Request a line
//
// A [Vendor] is the API one agent speaks: [Anthropic] (Messages, for Claude Code), [OpenAI]
// (Responses, for Codex) and [Gemini] (generateContent, for Gemini CLI), each in its own file
// with the request types the script and the adapters read ([MessagesRequest],
// [ResponsesRequest], [GeminiRequest]). [Start] serves a vendor's API playing the [Script];
// [StartGateway] serves instead a pass-through to the real API for a manifest that names a
// real model, swapping the CLI's placeholder credentials for the real key and recording
// every request the same way, so a real run's model view is read as a scripted one's. Each
// recorded [Request] is one JSON line; [Server.Requests] returns them too.
//
// Files: model.go ([Start], [Server], [Vendor], recording), script.go (the script's steps),
// anthropic.go, openai.go, gemini.go (one vendor each), gateway.go ([StartGateway]), sse.go
// (streamed answers).
//
// Used by: package agent. Uses nothing of toolscore's own.
package model
