package client

// The Vercel AI SDK's own MCP client (@ai-sdk/mcp) in its cell image, driven by
// images/ai-sdk/adapter.mjs: createMCPClient, tools(), and the tool's execute as generateText
// runs it. Path "" lets the library build the tools itself (no output schema); "schemas" passes
// the listed tool's schemas, so execute validates the result and hands over the structured value.
func init() {
	Register(Descriptor{Name: "ai-sdk", Paths: []string{"", "schemas"},
		Image:   Image{Dir: "ai-sdk", BaseEnv: "TOOLSCORE_NODE_IMAGE", VersionArg: "SDK_VERSION"},
		Command: []string{"node", "/opt/adapter/adapter.mjs"},
		Local:   tsLocal("@ai-sdk/mcp")})
}
