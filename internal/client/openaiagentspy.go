package client

import "github.com/toolscore/toolscore/internal/install"

// The OpenAI Agents SDK for Python (PyPI openai-agents) in its cell image, driven by
// images/openai-agents-py/adapter.py: the tool called as its agent loop calls it (an Agent's MCP
// tools, invoke_function_tool), what the loop hands the model printed as `handed`.
func init() {
	Register(Descriptor{Name: "openai-agents-py",
		Image:   Image{Dir: "openai-agents-py", BaseEnv: "TOOLSCORE_PYTHON_IMAGE", VersionArg: "OPENAI_AGENTS_VERSION"},
		Command: []string{"/opt/adapter/venv/bin/python", "/opt/adapter/adapter.py"},
		Local: &Local{
			Recipe:  install.Recipe{Runtime: install.Python, Steps: []string{"pip install -q -r requirements.txt"}},
			Pinned:  []string{"pip install -q openai-agents=={version}"},
			Command: []string{"./venv/bin/python", "./adapter.py"},
		}})
}
