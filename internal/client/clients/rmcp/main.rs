// toolscore's rmcp adapter: one tools/call through the official Rust MCP SDK (crates.io rmcp,
// the SDK Codex uses), speaking the runner's contract: the request comes in TOOLSCORE_*
// variables, one JSON observation line goes to stdout. TOOLSCORE_URL, when set, is the server's
// streamable HTTP endpoint (the http transport); otherwise TOOLSCORE_SERVER is its command.
//
// It does what rmcp's own client documentation does: `().serve(transport)` (the default
// handler and lifecycle: the initialize handshake) and `RunningService::call_tool`, whose
// `Result<CallToolResult, ServiceError>` is what the library gives its user. An Ok is printed as
// `returned`, re-encoded by rmcp's own Serialize of CallToolResult (what the user's code would
// see of the wire: rmcp's types, not the bytes); an Err (and a failed handshake) as `raised`,
// with the error's Display verbatim and, for a JSON-RPC error, its code. The adapter never lists
// the tools: rmcp's client validates nothing against a tool's outputSchema, so a list first
// changes nothing it does with the result (it only fills its response cache).
use std::process::ExitCode;

use rmcp::model::{CallToolRequestParams, Implementation, JsonObject};
use rmcp::service::{ClientInitializeError, RoleClient, RunningService, ServiceError};
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::ServiceExt;
use serde_json::{json, Map, Value};
use tokio::process::Command;

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let mut out = Map::new();
    out.insert("client".into(), json!("rmcp"));
    // rmcp's own version, compiled into the crate (env!("CARGO_PKG_VERSION") in
    // Implementation::from_build_env, model.rs:1721-1729 in 3.11.0): the clientInfo it sends.
    let version = Implementation::from_build_env().version;
    out.insert("library".into(), json!(format!("rmcp {version}")));
    out.insert("listed".into(), json!(false));
    let client = match connect().await {
        Ok(client) => Some(client),
        Err(raised) => {
            out.insert("raised".into(), raised);
            None
        }
    };
    if let Some(client) = &client {
        match call(client).await {
            Ok(result) => {
                out.insert("returned".into(), result);
            }
            Err(e) => {
                out.insert("raised".into(), service_error(&e));
            }
        }
    }
    println!("{}", Value::Object(out));
    // The observation is out: leave now, whatever the transport's tasks or the server do.
    if let Some(client) = client {
        let _ = tokio::time::timeout(std::time::Duration::from_secs(2), client.cancel()).await;
    }
    std::process::exit(0)
}

/// The client as `().serve(...)` makes it: the default handler, which answers nothing of its own.
type Client = RunningService<RoleClient, ()>;

/// The SDK's client over the runner's transport, the handshake done (a server that fails it is
/// something the library reacts to, so its error is an observation too).
async fn connect() -> Result<Client, Value> {
    let url = std::env::var("TOOLSCORE_URL").unwrap_or_default();
    let served = if !url.is_empty() {
        ().serve(StreamableHttpClientTransport::from_uri(url)).await
    } else {
        let server: Vec<String> = serde_json::from_str(&std::env::var("TOOLSCORE_SERVER").unwrap_or_default())
            .map_err(|e| raised("TOOLSCORE_SERVER", &format!("not a JSON array of strings: {e}"), None))?;
        let Some((program, args)) = server.split_first() else {
            return Err(raised("TOOLSCORE_SERVER", "empty command", None));
        };
        // The whole environment goes to the server (a tokio Command inherits it), as the other
        // adapters pass it; its stderr is the adapter's (TokioChildProcessBuilder's default).
        let mut cmd = Command::new(program);
        cmd.args(args);
        let transport = TokioChildProcess::new(cmd).map_err(|e| raised("io::Error", &e.to_string(), None))?;
        ().serve(transport).await
    };
    served.map_err(|e| init_error(&e))
}

/// One tools/call, its result as rmcp serializes its CallToolResult.
async fn call(client: &Client) -> Result<Value, ServiceError> {
    let tool = std::env::var("TOOLSCORE_TOOL").unwrap_or_default();
    let args = std::env::var("TOOLSCORE_ARGUMENTS").unwrap_or_default();
    let arguments: JsonObject = serde_json::from_str(if args.is_empty() { "{}" } else { &args }).unwrap_or_default();
    let result = client.call_tool(CallToolRequestParams::new(tool).with_arguments(arguments)).await?;
    Ok(serde_json::to_value(&result).unwrap_or_else(|e| json!({"unserializable": e.to_string()})))
}

fn raised(class: &str, message: &str, code: Option<i64>) -> Value {
    let mut r = json!({"class": class, "message": message});
    if let Some(code) = code {
        r["code"] = json!(code);
    }
    r
}

/// A ServiceError as raised: its variant, its Display, and a JSON-RPC error's code.
fn service_error(e: &ServiceError) -> Value {
    let code = match e {
        ServiceError::McpError(data) => Some(i64::from(data.code.0)),
        _ => None,
    };
    raised(&format!("ServiceError::{}", variant(&format!("{e:?}"))), &e.to_string(), code)
}

/// A failed handshake as raised: its variant and its Display.
fn init_error(e: &ClientInitializeError) -> Value {
    raised(&format!("ClientInitializeError::{}", variant(&format!("{e:?}"))), &e.to_string(), None)
}

/// The variant's name at the start of an error's Debug form.
fn variant(debug: &str) -> &str {
    let end = debug.find(|c: char| !c.is_alphanumeric() && c != '_').unwrap_or(debug.len());
    &debug[..end]
}
