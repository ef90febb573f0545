"""toolscore's Strands Agents adapter: one tool call made the way a Strands agent makes it,
through its MCPClient (strands.tools.mcp), and the tool result the agent then hands its model.
The request comes in TOOLSCORE_* variables, one JSON observation line goes to stdout, as the
other framework adapters do. TOOLSCORE_URL, when set, is the server's streamable HTTP endpoint;
otherwise TOOLSCORE_SERVER is its command.

A Strands user gives the agent an MCPClient; the agent lists the tools (list_tools_sync), each an
MCPAgentTool, and its tool executor runs the model's tool use through MCPAgentTool.stream
(strands/tools/mcp/mcp_agent_tool.py:111-134), whose last event is the ToolResult the event loop
puts into the conversation as a toolResult block. This adapter does the same: it opens the
client, lists the tools, and streams the tool with a tool use, keeping the last ToolResultEvent.
MCPClient.call_tool_async turns every result into {status, content, structuredContent?}
(mcp_client.py:1426-1466) and every exception into an error result "Tool execution failed: ..."
(mcp_client.py:1143-1145, 1385-1424), so nothing escapes to the agent.

`handed` is what a model gets of that ToolResult: its status (error: kind error) and its content
blocks, whose text is the excerpt (the Bedrock formatter sends content and status,
models/bedrock.py:1273-1303; structuredContent is no part of what any model provider formats)."""

import asyncio
import json
import os
import sys
from importlib.metadata import version

from mcp import StdioServerParameters
from mcp.client.stdio import stdio_client
from strands.tools.mcp import MCPClient
from strands.types._events import ToolResultEvent

EXCERPT = 2000


def client() -> MCPClient:
    url = os.environ.get("TOOLSCORE_URL")
    if url:
        return MCPClient(url=url, startup_timeout=120)
    server = json.loads(os.environ["TOOLSCORE_SERVER"])
    # The whole environment goes to the server, as the other adapters do.
    params = StdioServerParameters(command=server[0], args=server[1:], env=dict(os.environ))
    return MCPClient(lambda: stdio_client(params), startup_timeout=120)


def words(content) -> str:
    parts = []
    for block in content or []:
        if "text" in block:
            parts.append(block["text"])
        elif "json" in block:
            parts.append(json.dumps(block["json"]))
        else:
            parts.append(json.dumps(block, default=str))
    return "\n".join(parts)


async def call(tool, arguments: dict):
    result = None
    async for event in tool.stream({"toolUseId": "toolscore_call", "name": tool.tool_name, "input": arguments}, {}):
        if isinstance(event, ToolResultEvent):
            result = event.tool_result
    return result


def raised(e: BaseException) -> dict:
    while isinstance(e, BaseExceptionGroup) and e.exceptions:
        e = e.exceptions[0]
    out = {"class": type(e).__name__, "message": str(e)}
    code = getattr(getattr(e, "error", None), "code", None)
    if isinstance(code, int):
        out["code"] = code
    return out


def main() -> None:
    out = {"client": "strands-agents", "library": "strands-agents " + version("strands-agents") + " (mcp " + version("mcp") + ")", "listed": True}
    try:
        with client() as mcp:
            name = os.environ["TOOLSCORE_TOOL"]
            tools = mcp.list_tools_sync()
            tool = next((t for t in tools if t.tool_name == name), None)
            if tool is None:
                # The model is never offered a tool the listing lacks: the agent cannot call it.
                raise LookupError(f"tool {name!r} is not among the listed tools {[t.tool_name for t in tools]}")
            result = asyncio.run(call(tool, json.loads(os.environ.get("TOOLSCORE_ARGUMENTS") or "{}")))
            if result is None:
                raise RuntimeError("the tool's stream ended without a tool result")
            text = words(result.get("content"))
            error = result.get("status") == "error"
            kind = "error" if error else ("text" if text else "none")
            out["handed"] = {"kind": kind, "excerpt": text[:EXCERPT], "is_error": error}
    except BaseException as e:  # what escapes the tool: verbatim
        if isinstance(e, (KeyboardInterrupt, SystemExit)):
            raise
        out["raised"] = raised(e)
    sys.stdout.write(json.dumps(out) + "\n")
    sys.stdout.flush()


main()
