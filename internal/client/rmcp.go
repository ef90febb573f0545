package client

import "github.com/toolscore/toolscore/internal/install"

// The official Rust MCP SDK (crates.io rmcp, the SDK Codex uses) in its cell image, driven by
// images/rmcp/main.rs through `().serve(transport)` and RunningService::call_tool. It has one
// path: rmcp's client checks nothing against a tool's outputSchema (call_tool sends the request
// and hands back the CallToolResult it deserialized, service/client.rs:1507-1529 and 2240-2246
// in rmcp 3.11.0; list_tools only fills a response cache, service/client.rs:1932), so a
// tools/list before the call would change nothing the library does with the result.
//
// The adapter is compiled with cargo, in the image's build stage (on RUST_IMAGE, which
// TOOLSCORE_RUST_IMAGE replaces where no registry is reachable: HOST_RUST=1 scripts/base-image.sh) and, on
// the local backend, in its install folder with this machine's cargo and registry settings.
func init() {
	Register(Descriptor{Name: "rmcp",
		Image: Image{Dir: "rmcp", BaseEnv: "TOOLSCORE_PYTHON_IMAGE", VersionArg: "RMCP_VERSION",
			ArgEnv: map[string]string{"RUST_IMAGE": "TOOLSCORE_RUST_IMAGE"}},
		Command: []string{"/opt/adapter/toolscore-rmcp"},
		Local: &Local{
			Recipe:  install.Recipe{Runtime: install.Rust, Steps: []string{rmcpBuild}},
			Pinned:  []string{"cargo update -q -p rmcp --precise {version}", rmcpBuild},
			Command: []string{"./toolscore-rmcp"},
		}})
}

// rmcpBuild compiles the adapter against Cargo.lock (a pin's cargo update rewrote it first) and
// keeps only the program: the build's own files go with its target folder.
const rmcpBuild = "cargo build -q --release --locked --target-dir target && cp target/release/toolscore-rmcp . && rm -rf target"
