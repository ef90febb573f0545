package client

// The TypeScript SDK's v2 client package (@modelcontextprotocol/client) in its cell image,
// driven by the same adapter script as ts-sdk.
func init() {
	Register(Descriptor{Name: "ts-client-v2", Paths: CallPaths,
		Image:   Image{Dir: "ts-client-v2", BaseEnv: "TOOLSCORE_NODE_IMAGE", VersionArg: "SDK_VERSION", Borrow: []string{"ts-sdk/adapter.mjs"}},
		Command: []string{"node", "/opt/adapter/adapter.mjs"},
		Local:   tsLocal("@modelcontextprotocol/client")})
}
