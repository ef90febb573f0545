package client

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
)

// The contract between the runner and every client adapter, built in or not: the adapter is
// started with these variables set, reaches the server (the proxy wrapped around the
// scenario's server) as one of them says, makes one tools/call, and prints one JSON Observation
// line on stdout. Exit status 0 means the line is there; anything else is a crashed adapter.
// An agent a manifest defines is started through toolscore (DefinedAgentArgv), which serves
// it the scripted model: it gets EnvModelURL, the base URL of an Anthropic Messages API (it
// POSTs /v1/messages, offering the tool under its name or a prefix__name), and reports at least
// its client, library and agent.answer; toolscore reads what the model was shown from the
// model's own requests.
const (
	// EnvServer is set on the stdio transport: the command that starts the server, a JSON
	// array, which the adapter starts itself and speaks to on its pipes.
	EnvServer = "TOOLSCORE_SERVER"
	// EnvURL is set instead on the http transport: the streamable HTTP endpoint of the proxy,
	// already listening on loopback, which the adapter connects to.
	EnvURL       = "TOOLSCORE_URL"
	EnvTool      = "TOOLSCORE_TOOL"      // the tool to call
	EnvArguments = "TOOLSCORE_ARGUMENTS" // JSON object: its arguments
	// EnvPrompt is the scenario's prompt, for agent adapters; SDK-level adapters ignore it.
	EnvPrompt = "TOOLSCORE_PROMPT"
	// EnvModel names a real model for an agent; unset, the agent talks to the scripted model.
	EnvModel = "TOOLSCORE_MODEL"
	// EnvModelURL is the vendor API's base URL for a real model (unset: the vendor's own); for
	// an agent a manifest defines, the scripted model's.
	EnvModelURL = "TOOLSCORE_MODEL_URL"
	// EnvModelKey is the vendor API key for a real model. The adapter takes it out of its
	// environment at once: only its gateway holds it, the agent CLI gets a placeholder.
	EnvModelKey = "TOOLSCORE_MODEL_KEY"
	// EnvModelRetries is how many times the scripted model calls the tool again after a result
	// that failed (the manifest's retries); unset: none.
	EnvModelRetries = "TOOLSCORE_MODEL_RETRIES"
)

// Request is what an adapter is asked to do.
type Request struct {
	// Server is the command that starts the server on stdio; URL, when set instead, is the
	// server's streamable HTTP endpoint.
	Server    []string
	URL       string
	Tool      string
	Arguments map[string]any
	// Prompt is what an agent is asked (the scenario's prompt); empty for SDK-level clients.
	Prompt string
	// Model, ModelURL and ModelKey name a real model for an agent (see EnvModel); Model empty
	// means the scripted model.
	Model, ModelURL, ModelKey string
	// ModelRetries is how many times the scripted model tries the call again after a failure.
	ModelRetries int
}

// RequestFromEnv reads the contract's variables.
func RequestFromEnv() (Request, error) {
	var r Request
	if r.URL = os.Getenv(EnvURL); r.URL != "" {
		if u, err := url.Parse(r.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return r, fmt.Errorf("%s must be the server's http URL, got %q", EnvURL, r.URL)
		}
	} else if err := json.Unmarshal([]byte(os.Getenv(EnvServer)), &r.Server); err != nil || len(r.Server) == 0 {
		return r, fmt.Errorf("%s must be a JSON array naming the server command (or %s its URL), got %q", EnvServer, EnvURL, os.Getenv(EnvServer))
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
	if n := os.Getenv(EnvModelRetries); n != "" {
		var err error
		if r.ModelRetries, err = strconv.Atoi(n); err != nil || r.ModelRetries < 0 {
			return r, fmt.Errorf("%s must be a count, got %q", EnvModelRetries, n)
		}
	}
	// The key stays in this process's memory only: nothing it starts inherits it.
	_ = os.Unsetenv(EnvModelKey)
	return r, nil
}

// Env renders a request as the contract's variables.
func (r Request) Env() []string {
	args, _ := json.Marshal(r.Arguments)
	var env []string
	if r.URL != "" {
		env = append(env, EnvURL+"="+r.URL)
	} else if len(r.Server) > 0 {
		server, _ := json.Marshal(r.Server)
		env = append(env, EnvServer+"="+string(server))
	}
	env = append(env, EnvTool+"="+r.Tool, EnvArguments+"="+string(args))
	if r.Prompt != "" {
		env = append(env, EnvPrompt+"="+r.Prompt)
	}
	for _, kv := range [][2]string{{EnvModel, r.Model}, {EnvModelURL, r.ModelURL}, {EnvModelKey, r.ModelKey}} {
		if kv[1] != "" {
			env = append(env, kv[0]+"="+kv[1])
		}
	}
	if r.ModelRetries > 0 {
		env = append(env, EnvModelRetries+"="+strconv.Itoa(r.ModelRetries))
	}
	return env
}
