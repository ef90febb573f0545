package client

import "github.com/toolscore/toolscore/internal/install"

// FastMCP's Client (PyPI fastmcp) in its cell image, driven by images/fastmcp/adapter.py:
// Client.call_tool, which raises ToolError on an isError result and returns its CallToolResult
// otherwise, reported as the MCP fields it holds.
func init() {
	Register(Descriptor{Name: "fastmcp", Paths: CallPaths,
		Image:   Image{Dir: "fastmcp", BaseEnv: "TOOLSCORE_PYTHON_IMAGE", VersionArg: "FASTMCP_VERSION"},
		Command: []string{"/opt/adapter/venv/bin/python", "/opt/adapter/adapter.py"},
		Local: &Local{
			Recipe:  install.Recipe{Runtime: install.Python, Steps: []string{"pip install -q -r requirements.txt"}},
			Pinned:  []string{"pip install -q fastmcp=={version}"},
			Command: []string{"./venv/bin/python", "./adapter.py"},
		}})
}
