"""toolscore's adapter for LangChain's MCP tools (PyPI langchain-mcp-adapters): one tool call made
the way a LangChain agent makes it, speaking the runner's contract (the request in TOOLSCORE_*
variables, one JSON observation line on stdout).

A LangChain user never holds the CallToolResult: load_mcp_tools turns each listed MCP tool into a
StructuredTool (response_format "content_and_artifact"), and an agent invokes it with the model's
tool call, getting back the ToolMessage that goes into the model's next request. This adapter
opens one session through MultiServerMCPClient.session, loads the tools with load_mcp_tools and
invokes the tool with a tool call (`await tool.ainvoke({"type": "tool_call", ...})`, as
langgraph's ToolNode does), and prints that ToolMessage as `handed`: its content is what the
model reads (the structuredContent rides only in the artifact, which the model never sees); a
ToolMessage with status "error" (an isError result, handle_tool_errors on by default) is of kind
"error". What escapes the tool (a transport failure, the MCP SDK's own validation) is `raised`.
TOOLSCORE_URL, when set, is the server's streamable HTTP endpoint; otherwise TOOLSCORE_SERVER is
its command."""

import asyncio
import json
import os
import sys
from importlib.metadata import version

from langchain_mcp_adapters.client import MultiServerMCPClient
from langchain_mcp_adapters.tools import load_mcp_tools

EXCERPT = 2000


def connection():
    url = os.environ.get("TOOLSCORE_URL")
    if url:
        return {"transport": "streamable_http", "url": url}
    argv = json.loads(os.environ["TOOLSCORE_SERVER"])
    # The whole environment goes to the server: the MCP SDK's default passes only a few variables.
    return {"transport": "stdio", "command": argv[0], "args": argv[1:], "env": dict(os.environ)}


def words(content):
    """The text of a ToolMessage's content: a string as it is, a list of text blocks joined by
    newlines (other blocks, an image say, as their JSON)."""
    if isinstance(content, str):
        return content
    parts = []
    for block in content:
        if isinstance(block, str):
            parts.append(block)
        elif isinstance(block, dict) and block.get("type") == "text":
            parts.append(block.get("text", ""))
        else:
            parts.append(json.dumps(block, default=str))
    return "\n".join(parts)


async def main() -> None:
    out = {"client": "langchain-py", "library": "langchain-mcp-adapters " + version("langchain-mcp-adapters") + " (mcp " + version("mcp") + ")", "listed": True}
    client = MultiServerMCPClient({"toolscore": connection()})
    try:
        async with client.session("toolscore") as session:
            tools = await load_mcp_tools(session, server_name="toolscore")
            name = os.environ["TOOLSCORE_TOOL"]
            tool = next((t for t in tools if t.name == name), None)
            if tool is None:
                # The model is never offered a tool the listing lacks: the agent cannot call it.
                raise LookupError(f"tool {name!r} is not among the listed tools {[t.name for t in tools]}")
            args = json.loads(os.environ.get("TOOLSCORE_ARGUMENTS") or "{}")
            msg = await tool.ainvoke({"type": "tool_call", "name": name, "args": args, "id": "call_toolscore"})
            text = words(msg.content)
            error = getattr(msg, "status", "success") == "error"
            kind = "error" if error else ("text" if msg.content else "none")
            out["handed"] = {"kind": kind, "excerpt": text[:EXCERPT], "is_error": error}
    except BaseException as e:  # what escapes the tool: verbatim (an ExceptionGroup's first leaf)
        while isinstance(e, BaseExceptionGroup) and e.exceptions:
            e = e.exceptions[0]
        if isinstance(e, (KeyboardInterrupt, SystemExit)):
            raise
        raised = {"class": type(e).__name__, "message": str(e)}
        code = getattr(getattr(e, "error", None), "code", None)
        if isinstance(code, int):
            raised["code"] = code
        out["raised"] = raised
    sys.stdout.write(json.dumps(out) + "\n")
    sys.stdout.flush()


asyncio.run(main())
