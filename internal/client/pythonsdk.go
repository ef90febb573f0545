package client

import "github.com/toolscore/toolscore/internal/install"

// The official Python SDK (PyPI mcp) in its cell image, driven by images/python-sdk/adapter.py.
func init() {
	Register(Descriptor{Name: "python-sdk", Paths: CallPaths,
		Image:   Image{Dir: "python-sdk", BaseEnv: "TOOLSCORE_PYTHON_IMAGE", VersionArg: "MCP_VERSION"},
		Command: []string{"/opt/adapter/venv/bin/python", "/opt/adapter/adapter.py"},
		Local: &Local{
			Recipe:  install.Recipe{Runtime: install.Python, Steps: []string{"pip install -q -r requirements.txt"}},
			Pinned:  []string{"pip install -q mcp=={version}"},
			Command: []string{"./venv/bin/python", "./adapter.py"},
		}})
}
