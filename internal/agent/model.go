package agent

import (
	"io"

	"github.com/toolscore/toolscore/internal/client"
	"github.com/toolscore/toolscore/internal/model"
)

// startModel starts what the agent's CLI is pointed at on 127.0.0.1: the scripted model playing
// the scenario's call, or, when the request names a real model, the gateway that passes the
// CLI's requests through to the vendor with the real key. Either way every request the model
// got is recorded to rec.
func startModel(r client.Request, v model.Vendor, rec io.Writer) (*model.Server, error) {
	if r.Model != "" {
		return model.StartGateway(v, r.ModelURL, r.ModelKey, rec)
	}
	return model.Start(v, model.Script{Tool: r.Tool, Arguments: r.Arguments, Retries: r.ModelRetries}, rec)
}

// placeholderKey is the API key every agent CLI is given: the scripted model ignores it and the
// gateway replaces it, so a real key never reaches the CLI, its logs or its home.
const placeholderKey = "toolscore-placeholder-key"
