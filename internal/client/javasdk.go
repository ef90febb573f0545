package client

import "github.com/toolscore/toolscore/internal/install"

// The official MCP Java SDK (Maven Central io.modelcontextprotocol.sdk:mcp) in its cell image,
// driven by images/java-sdk/Adapter.java through McpClient.sync(...).callTool. Its paths are the
// SDK's two behaviours rather than call/list-then-call: java-sdk is the client as built by
// default, which hands the result over unchecked; java-sdk/validating turns on the SDK's opt-in
// result validation (McpClient.SyncSpec.enableCallToolSchemaCaching(true)), with which the
// client lists the tools after the handshake and checks structuredContent against each cached
// outputSchema.
func init() {
	Register(Descriptor{Name: "java-sdk", Paths: []string{"", PathValidating},
		Image:   Image{Dir: "java-sdk", BaseEnv: "TOOLSCORE_JAVA_IMAGE", VersionArg: "MCP_VERSION"},
		Command: []string{"java", "-cp", "/opt/adapter/lib/*", "toolscore.Adapter"},
		Local: &Local{
			// Compiled here with this machine's JDK and Maven, against the version pom.xml pins
			// (or the manifest's), the class path gathered in lib/ as in the image.
			Recipe:  install.Recipe{Runtime: install.Java, Steps: []string{javaBuild(""), javaJar}},
			Pinned:  []string{javaBuild("-Dmcp.version={version} "), javaJar},
			Command: []string{"java", "-cp", "./lib/*", "toolscore.Adapter"},
		}})
}

// PathValidating is the path of a client whose library validates the result against the tool's
// outputSchema only when asked to, with that asked for.
const PathValidating = "validating"

// javaBuild resolves the SDK and compiles the adapter (the Dockerfile's steps).
func javaBuild(flags string) string {
	return "mvn -B -q " + flags + "compile dependency:copy-dependencies -DoutputDirectory=lib"
}

// javaJar puts the adapter's classes on the lib/* class path.
const javaJar = "jar cf lib/toolscore-adapter.jar -C target/classes ."
