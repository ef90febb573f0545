"""toolscore's LlamaIndex adapter (PyPI llama-index-tools-mcp): one tool call made the way a
LlamaIndex agent makes it, and the tool message the agent then hands its model. The request comes
in TOOLSCORE_* variables, one JSON observation line goes to stdout, as the other framework
adapters do. TOOLSCORE_URL, when set, is the server's streamable HTTP endpoint; otherwise
TOOLSCORE_SERVER is its command.

As LlamaIndex's docs show: a BasicMCPClient, McpToolSpec(client).to_tool_list_async() turning each
listed tool into a FunctionTool whose function awaits client.call_tool (llama_index/tools/mcp/
base.py:106-114, 126-171), and the tool called as an agent workflow calls it: BaseWorkflowAgent.
_call_tool awaits tool.acall(**input) and turns any exception into ToolOutput(content=str(e),
is_error=True) (llama_index/core/agent/workflow/base_agent.py:357-390; the same few lines here,
since that method needs a running workflow's Context). FunctionTool.acall makes the output's
blocks from the raw return: a CallToolResult is none of the block types, so it becomes one text
block of its str() (llama_index/core/tools/function_tool.py:381-397, 291-329).

`handed` is the tool message the function agent builds from those blocks (ChatMessage role
"tool", blocks=tool_output.blocks, function_agent.py:156-163): its text. The message carries no
error flag, so is_error reaches the model only as words: the kind is text, or none when empty."""

import asyncio
import json
import os
import sys
from importlib.metadata import version

from llama_index.core.tools import ToolOutput
from llama_index.tools.mcp import BasicMCPClient, McpToolSpec

EXCERPT = 2000


def client() -> BasicMCPClient:
    url = os.environ.get("TOOLSCORE_URL")
    if url:
        return BasicMCPClient(url, timeout=120)
    server = json.loads(os.environ["TOOLSCORE_SERVER"])
    # The whole environment goes to the server, as the other adapters do.
    return BasicMCPClient(server[0], args=server[1:], env=dict(os.environ), timeout=120)


async def call_tool(tool, arguments: dict) -> ToolOutput:
    # BaseWorkflowAgent._call_tool (base_agent.py:364-390), without the workflow Context it needs.
    try:
        return await tool.acall(**arguments)
    except Exception as e:
        return ToolOutput(content=str(e), tool_name=tool.metadata.get_name(), raw_input=arguments, raw_output=str(e), is_error=True)


def raised(e: BaseException) -> dict:
    while isinstance(e, BaseExceptionGroup) and e.exceptions:
        e = e.exceptions[0]
    out = {"class": type(e).__name__, "message": str(e)}
    code = getattr(getattr(e, "error", None), "code", None)
    if isinstance(code, int):
        out["code"] = code
    return out


async def main() -> None:
    out = {"client": "llama-index", "library": "llama-index-tools-mcp " + version("llama-index-tools-mcp") + " (llama-index-core " + version("llama-index-core") + ", mcp " + version("mcp") + ")", "listed": True}
    try:
        tools = await McpToolSpec(client=client()).to_tool_list_async()
        name = os.environ["TOOLSCORE_TOOL"]
        tool = next((t for t in tools if t.metadata.get_name() == name), None)
        if tool is None:
            # The model is never offered a tool the listing lacks: the agent cannot call it.
            raise LookupError(f"tool {name!r} is not among the listed tools {[t.metadata.get_name() for t in tools]}")
        output = await call_tool(tool, json.loads(os.environ.get("TOOLSCORE_ARGUMENTS") or "{}"))
        text = "\n".join(getattr(b, "text", "") for b in output.blocks)
        out["handed"] = {"kind": "text" if text else "none", "excerpt": text[:EXCERPT], "is_error": False}
    except BaseException as e:  # what escapes the tool: verbatim
        if isinstance(e, (KeyboardInterrupt, SystemExit)):
            raise
        out["raised"] = raised(e)
    sys.stdout.write(json.dumps(out) + "\n")
    sys.stdout.flush()


asyncio.run(main())
