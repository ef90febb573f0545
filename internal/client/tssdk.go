package client

// The official TypeScript SDK (@modelcontextprotocol/sdk, the v1 line) in its cell image, driven
// by images/ts-sdk/adapter.mjs.
func init() {
	Register(Descriptor{Name: "ts-sdk", Paths: CallPaths,
		Image:   Image{Dir: "ts-sdk", BaseEnv: "TOOLSCORE_NODE_IMAGE", VersionArg: "SDK_VERSION"},
		Command: []string{"node", "/opt/adapter/adapter.mjs"}})
}
