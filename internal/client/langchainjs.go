package client

// LangChain.js's MCP adapters (@langchain/mcp-adapters) in their cell image, driven by
// images/langchain-js/adapter.mjs: loadMcpTools turns the server's tools into LangChain tools
// and tool.invoke runs one; what it gives is what a LangChain agent hands its model.
func init() {
	Register(Descriptor{Name: "langchain-js",
		Image:   Image{Dir: "langchain-js", BaseEnv: "TOOLSCORE_NODE_IMAGE", VersionArg: "SDK_VERSION"},
		Command: []string{"node", "/opt/adapter/adapter.mjs"},
		Local:   tsLocal("@langchain/mcp-adapters")})
}
