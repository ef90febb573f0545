package client

import "github.com/toolscore/toolscore/internal/install"

// pydantic-ai (PyPI pydantic-ai-slim with its mcp extra) in its cell image, driven by
// images/pydantic-ai/adapter.py: a pydantic-ai Agent with a scripted FunctionModel calls the tool
// through its MCPToolset, and what the agent hands its model is the observation (handed). It has
// one path: the agent always lists the tools before it calls one.
func init() {
	Register(Descriptor{Name: "pydantic-ai",
		Image:   Image{Dir: "pydantic-ai", BaseEnv: "TOOLSCORE_PYTHON_IMAGE", VersionArg: "PYDANTIC_AI_VERSION"},
		Command: []string{"/opt/adapter/venv/bin/python", "/opt/adapter/adapter.py"},
		Local: &Local{
			Recipe:  install.Recipe{Runtime: install.Python, Steps: []string{"pip install -q -r requirements.txt"}},
			Pinned:  []string{`pip install -q pydantic-ai-slim=={version} "pydantic-ai-slim[mcp]=={version}"`},
			Command: []string{"./venv/bin/python", "./adapter.py"},
		}})
}
