package client

import (
	"encoding/json"
	"fmt"
	"os"
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
