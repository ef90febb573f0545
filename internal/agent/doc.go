// Package agent holds the agent adapters: each runs a real agent CLI headless against the
// scenario's server (the proxy wrapped around it) and a scripted model (internal/model), and
// reports what the agent put in front of the model and what it answered. It is the agents'
// part of the step where a run produces its observation; package client is the SDKs' part.
//
// Each agent registers itself as a client from an init in its own file, so a program that runs
// agents imports this package for its side effect, as cmd/toolscore does. What it registers is
// its folder's descriptor (internal/client/clients/NAME: its package, the Dockerfile that pins
// its CLI, its docs; client.AgentFolder) with the adapter here as its Run. A run of an agent goes:
//
//  1. toolscore agent NAME reads the adapter contract (client.RequestFromEnv) and calls the
//     agent's function: [ClaudeCode], [ClaudeAgentSDK], [Codex], [GeminiCLI] and the rest.
//  2. It starts the model on 127.0.0.1 (package model): the scripted model playing the
//     scenario's call, or, when the manifest names a real model, the gateway to the vendor
//     that alone holds the key; the CLI only ever gets a placeholder key.
//  3. It writes the CLI a fresh home and config naming one MCP server ([ServerName]: the
//     proxy wrapped around the scenario's server) and runs the CLI headless to its end, with
//     an environment cleared of anything that would point it elsewhere.
//  4. From the requests the model recorded it takes the model's view (the tool result as the
//     model got it, kinded by [Classify]), and from the CLI's own record its final answer,
//     and returns them in the observation's record.AgentView.
//
// The grader (grade.Agent) then grades that observation. An agent's files (the model's
// requests, the CLI's record and stderr, its config) land in a directory of the run named
// after it, listed in the observation.
//
// Files: one per agent (claude.go, claudesdk.go (the Claude Agent SDK, driven through its
// folder's query.mjs), codex.go, copilot.go, gemini.go, opencode.go (opencode and its fork Kilo
// Code's CLI), qwen.go),
// cli.go (running a CLI and its environment), model.go (starting the scripted model or the
// gateway), view.go ([Classify]).
//
// Used by: the CLI (cmd/toolscore, for `toolscore agent NAME` and the registry). Uses: client,
// model, proc.
package agent
