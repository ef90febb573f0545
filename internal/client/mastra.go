package client

// Mastra's MCP client (@mastra/mcp, with its peer @mastra/core) in its cell image, driven by
// images/mastra/adapter.mjs: MCPClient.listTools() and the tool's execute as a Mastra agent
// runs it. Mastra validates structuredContent against the listed outputSchema and hands a
// failure back as a value, which the adapter prints as handed (kind error).
func init() {
	Register(Descriptor{Name: "mastra",
		Image:   Image{Dir: "mastra", BaseEnv: "TOOLSCORE_NODE_IMAGE", VersionArg: "SDK_VERSION"},
		Command: []string{"node", "/opt/adapter/adapter.mjs"},
		Local:   tsLocal("@mastra/mcp")})
}
