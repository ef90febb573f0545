package client

import "github.com/toolscore/toolscore/internal/install"

// The official TypeScript SDK (@modelcontextprotocol/sdk, the v1 line) in its cell image, driven
// by images/ts-sdk/adapter.mjs.
func init() {
	Register(Descriptor{Name: "ts-sdk", Paths: CallPaths,
		Image:   Image{Dir: "ts-sdk", BaseEnv: "TOOLSCORE_NODE_IMAGE", VersionArg: "SDK_VERSION"},
		Command: []string{"node", "/opt/adapter/adapter.mjs"},
		Local:   tsLocal("@modelcontextprotocol/sdk")})
}

// tsLocal installs a TypeScript client from its image directory's lockfile (or the version a
// manifest pins), beside the adapter script.
func tsLocal(pkg string) *Local {
	return &Local{
		Recipe:  install.Recipe{Runtime: install.Node, Steps: []string{"npm ci --no-audit --no-fund --omit=dev"}},
		Pinned:  []string{"npm install --no-audit --no-fund --omit=dev " + pkg + "@{version}"},
		Command: []string{"node", "./adapter.mjs"},
		Env:     []string{"TOOLSCORE_TS_PACKAGE=" + pkg},
	}
}
