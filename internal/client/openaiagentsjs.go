package client

// The OpenAI Agents SDK for JavaScript (@openai/agents) in its cell image, driven by
// images/openai-agents-js/adapter.mjs: the tool is run as the SDK's runner runs an MCP tool
// (getAllMcpTools, then invokeFunctionTool), and the observation is what the model would be
// handed. Path "" is the default server; "structured" sets useStructuredContent: true on it.
func init() {
	Register(Descriptor{Name: "openai-agents-js", Paths: []string{"", "structured"},
		Image:   Image{Dir: "openai-agents-js", BaseEnv: "TOOLSCORE_NODE_IMAGE", VersionArg: "SDK_VERSION"},
		Command: []string{"node", "/opt/adapter/adapter.mjs"},
		Local:   tsLocal("@openai/agents")})
}
