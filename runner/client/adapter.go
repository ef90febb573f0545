package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
)

// The contract between the runner and every client adapter, built in or not: the adapter is
// started with these variables set, starts the server command itself (it is the proxy wrapped
// around the scenario's server), makes one tools/call, and prints one JSON Observation line on
// stdout. Exit status 0 means the line is there; anything else is a crashed adapter.
const (
	EnvServer    = "TOOLSCORE_SERVER"    // JSON array: the command that starts the server
	EnvTool      = "TOOLSCORE_TOOL"      // the tool to call
	EnvArguments = "TOOLSCORE_ARGUMENTS" // JSON object: its arguments
	// EnvPrompt is the scenario's prompt, for agent adapters; SDK-level adapters ignore it.
	EnvPrompt = "TOOLSCORE_PROMPT"
	// EnvModel names a real model for an agent; unset, the agent talks to the scripted model.
	EnvModel = "TOOLSCORE_MODEL"
	// EnvModelURL is the vendor API's base URL for a real model (unset: the vendor's own).
	EnvModelURL = "TOOLSCORE_MODEL_URL"
	// EnvModelKey is the vendor API key for a real model. The adapter takes it out of its
	// environment at once: only its gateway holds it, the agent CLI gets a placeholder.
	EnvModelKey = "TOOLSCORE_MODEL_KEY"
)

// Request is what an adapter is asked to do.
type Request struct {
	Server    []string
	Tool      string
	Arguments map[string]any
	// Prompt is what an agent is asked (the scenario's prompt); empty for SDK-level clients.
	Prompt string
	// Model, ModelURL and ModelKey name a real model for an agent (see EnvModel); Model empty
	// means the scripted model.
	Model, ModelURL, ModelKey string
}

// Adapter drives one client library through one call.
type Adapter func(ctx context.Context, r Request) (*Observation, error)

// Builtins are the adapters that ship inside the toolscore binary.
var Builtins = map[string]Adapter{
	"raw": Raw,
	"go-sdk/call": func(ctx context.Context, r Request) (*Observation, error) {
		return GoSDK(ctx, r.Server, r.Tool, r.Arguments, false)
	},
	"go-sdk/list-then-call": func(ctx context.Context, r Request) (*Observation, error) {
		return GoSDK(ctx, r.Server, r.Tool, r.Arguments, true)
	},
	"mcp-go/call": func(ctx context.Context, r Request) (*Observation, error) {
		return MCPGo(ctx, r, false)
	},
	"mcp-go/list-then-call": func(ctx context.Context, r Request) (*Observation, error) {
		return MCPGo(ctx, r, true)
	},
}

// Contained is an adapter that lives in a cell image of its own (its library is not Go), and
// the command that starts it there.
type Contained struct {
	// Image names the image directory under runner/backend/images.
	Image   string
	Command []string
}

// Containeds are the adapters in images of their own, by manifest name.
var Containeds = map[string]Contained{
	"ts-sdk/call":                 {"ts-sdk", []string{"node", "/opt/adapter/adapter.mjs", "call"}},
	"ts-sdk/list-then-call":       {"ts-sdk", []string{"node", "/opt/adapter/adapter.mjs", "list-then-call"}},
	"ts-client-v2/call":           {"ts-client-v2", []string{"node", "/opt/adapter/adapter.mjs", "call"}},
	"ts-client-v2/list-then-call": {"ts-client-v2", []string{"node", "/opt/adapter/adapter.mjs", "list-then-call"}},
	"python-sdk/call":             {"python-sdk", []string{"/opt/adapter/venv/bin/python", "/opt/adapter/adapter.py", "call"}},
	"python-sdk/list-then-call":   {"python-sdk", []string{"/opt/adapter/venv/bin/python", "/opt/adapter/adapter.py", "list-then-call"}},
	// Agents: the real CLI in its image, driven by toolscore's agent adapter (toolscore agent).
	"claude-code": {"claude-code", []string{"/opt/toolscore/toolscore", "agent", "claude-code"}},
	"codex":       {"codex", []string{"/opt/toolscore/toolscore", "agent", "codex"}},
	"gemini-cli":  {"gemini-cli", []string{"/opt/toolscore/toolscore", "agent", "gemini-cli"}},
}

// IsAgent says whether the client named is an agent (its observation carries the model's view
// and an answer, graded by grade.Agent) rather than an SDK-level client.
func IsAgent(name string) bool { return Agents[name] }

// Agents names the agent clients.
var Agents = map[string]bool{"claude-code": true, "codex": true, "gemini-cli": true}

// ModelKeyEnv is where, by default, the runner's environment holds the key of an agent's real
// model: its vendor's usual variable.
var ModelKeyEnv = map[string]string{"claude-code": "ANTHROPIC_API_KEY", "codex": "OPENAI_API_KEY", "gemini-cli": "GEMINI_API_KEY"}

// AgentNames lists the agents, sorted.
func AgentNames() []string {
	var n []string
	for k := range Agents {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}

// Names lists every adapter a manifest may name, built in or contained, sorted.
func Names() []string {
	names := make([]string, 0, len(Builtins)+len(Containeds))
	for n := range Builtins {
		names = append(names, n)
	}
	for n := range Containeds {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// RequestFromEnv reads the contract's variables.
func RequestFromEnv() (Request, error) {
	var r Request
	if err := json.Unmarshal([]byte(os.Getenv(EnvServer)), &r.Server); err != nil || len(r.Server) == 0 {
		return r, fmt.Errorf("%s must be a JSON array naming the server command, got %q", EnvServer, os.Getenv(EnvServer))
	}
	r.Tool = os.Getenv(EnvTool)
	if r.Tool == "" {
		return r, fmt.Errorf("%s is not set", EnvTool)
	}
	if a := os.Getenv(EnvArguments); strings.TrimSpace(a) != "" {
		if err := json.Unmarshal([]byte(a), &r.Arguments); err != nil {
			return r, fmt.Errorf("%s must be a JSON object: %w", EnvArguments, err)
		}
	}
	r.Prompt = os.Getenv(EnvPrompt)
	r.Model, r.ModelURL, r.ModelKey = os.Getenv(EnvModel), os.Getenv(EnvModelURL), os.Getenv(EnvModelKey)
	// The key stays in this process's memory only: nothing it starts inherits it.
	_ = os.Unsetenv(EnvModelKey)
	return r, nil
}

// Env renders a request as the contract's variables.
func (r Request) Env() []string {
	server, _ := json.Marshal(r.Server)
	args, _ := json.Marshal(r.Arguments)
	env := []string{EnvServer + "=" + string(server), EnvTool + "=" + r.Tool, EnvArguments + "=" + string(args)}
	if r.Prompt != "" {
		env = append(env, EnvPrompt+"="+r.Prompt)
	}
	for _, kv := range [][2]string{{EnvModel, r.Model}, {EnvModelURL, r.ModelURL}, {EnvModelKey, r.ModelKey}} {
		if kv[1] != "" {
			env = append(env, kv[0]+"="+kv[1])
		}
	}
	return env
}

// Raw calls the tool over bare JSON-RPC and reports the result exactly as it was on the wire,
// or the JSON-RPC error as raised: the yardstick every library is compared with. An answer it
// cannot decode, or a server that closes before answering, is raised too: that is what it saw.
func Raw(ctx context.Context, r Request) (*Observation, error) {
	s, _, err := StartRaw(ctx, r.Server)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	obs := &Observation{Client: "raw", Library: "toolscore raw JSON-RPC"}
	frame, err := s.Request(ctx, "tools/call", map[string]any{"name": r.Tool, "arguments": r.Arguments})
	var closed *ClosedError
	if errors.As(err, &closed) {
		// What the client saw is the observation, as a library reports it: a raised error.
		obs.Raised = &Raised{Class: "connection-closed", Message: err.Error()}
		return obs, nil
	}
	if err != nil {
		return nil, err
	}
	var msg struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int64  `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(frame, &msg); err != nil {
		obs.Raised = &Raised{Class: "undecodable-answer", Message: fmt.Sprintf("the answer to tools/call came (%d bytes) but does not decode: %v", len(frame), err)}
		return obs, nil
	}
	if msg.Error != nil {
		obs.Raised = &Raised{Class: "jsonrpc-error", Code: &msg.Error.Code, Message: msg.Error.Message}
		return obs, nil
	}
	obs.Returned = msg.Result
	return obs, nil
}
