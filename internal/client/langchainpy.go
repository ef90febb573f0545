package client

import "github.com/toolscore/toolscore/internal/install"

// LangChain's MCP tools for Python (PyPI langchain-mcp-adapters) in their cell image, driven by
// images/langchain-py/adapter.py: load_mcp_tools, the tool invoked with a tool call as an agent
// invokes it, the ToolMessage the model gets printed as `handed`.
func init() {
	Register(Descriptor{Name: "langchain-py",
		Image:   Image{Dir: "langchain-py", BaseEnv: "TOOLSCORE_PYTHON_IMAGE", VersionArg: "LANGCHAIN_MCP_ADAPTERS_VERSION"},
		Command: []string{"/opt/adapter/venv/bin/python", "/opt/adapter/adapter.py"},
		Local: &Local{
			Recipe:  install.Recipe{Runtime: install.Python, Steps: []string{"pip install -q -r requirements.txt"}},
			Pinned:  []string{"pip install -q langchain-mcp-adapters=={version}"},
			Command: []string{"./venv/bin/python", "./adapter.py"},
		}})
}
