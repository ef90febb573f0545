"""toolscore's Agno adapter (PyPI agno with its mcp extra): one tool call made the way an Agno
agent's model loop makes it, through its MCPTools toolkit, and the tool message the loop then
hands its model. The request comes in TOOLSCORE_* variables, one JSON observation line goes to
stdout, as the other framework adapters do. TOOLSCORE_URL, when set, is the server's streamable
HTTP endpoint; otherwise TOOLSCORE_SERVER is its command.

As Agno's docs show: `async with MCPTools(...)` connects and registers each listed tool as a
Function whose entrypoint awaits the session's call_tool (agno/tools/mcp/mcp.py:929-961). The
model's tool call becomes a FunctionCall as the loop makes it (agno/utils/functions.py:10-40),
and the loop itself runs it: Model.arun_function_calls awaits FunctionCall.aexecute, takes a
ToolResult's content as the output (agno/models/base.py:3040-3056) and builds the tool message
(create_function_call_result, base.py:2167-2205). The model here is a bare subclass of Model
whose provider methods are never called: only the loop's own code runs.

The entrypoint turns everything into words (agno/utils/mcp.py:163-342): an isError result into
"Error from MCP tool '...': " and the repr of its content list (:196-200), a result's text blocks
joined with newlines (:207-247, structuredContent only when there is no text, :299-300), an
MCPError or any other exception into a sentence (:334-342). So FunctionCall.aexecute succeeds and
the tool message's tool_call_error stays False; and no model formatter of agno sends that flag.

`handed` is the tool message's content: text, or none when empty."""

import asyncio
import json
import os
import sys
from importlib.metadata import version

from agno.models.base import Model
from agno.tools.mcp import MCPTools
from agno.utils.functions import get_function_call
from mcp import StdioServerParameters

EXCERPT = 2000
# Agno's 10s read timeout is short for a loaded machine: the cell's own timeout decides when a
# client hangs.
TIMEOUT = 120


class Loop(Model):
    """A Model for its tool loop alone: no provider is called, so its provider methods refuse."""

    def invoke(self, *args, **kwargs):
        raise NotImplementedError

    async def ainvoke(self, *args, **kwargs):
        raise NotImplementedError

    def invoke_stream(self, *args, **kwargs):
        raise NotImplementedError

    def ainvoke_stream(self, *args, **kwargs):
        raise NotImplementedError

    def _parse_provider_response(self, response, **kwargs):
        raise NotImplementedError

    def _parse_provider_response_delta(self, response):
        raise NotImplementedError


def toolkit() -> MCPTools:
    url = os.environ.get("TOOLSCORE_URL")
    if url:
        return MCPTools(url=url, transport="streamable-http", timeout_seconds=TIMEOUT)
    server = json.loads(os.environ["TOOLSCORE_SERVER"])
    # server_params, not command: MCPTools checks a command line's program against a list of
    # runtimes (agno/utils/mcp.py:377-435), which the proxy's path is not. The whole environment
    # goes to the server, as the other adapters do.
    params = StdioServerParameters(command=server[0], args=server[1:], env=dict(os.environ))
    return MCPTools(server_params=params, timeout_seconds=TIMEOUT)


def raised(e: BaseException) -> dict:
    while isinstance(e, BaseExceptionGroup) and e.exceptions:
        e = e.exceptions[0]
    out = {"class": type(e).__name__, "message": str(e)}
    code = getattr(getattr(e, "error", None), "code", None)
    if isinstance(code, int):
        out["code"] = code
    return out


async def main() -> None:
    out = {"client": "agno", "library": "agno " + version("agno") + " (fastmcp " + version("fastmcp") + ", mcp " + version("mcp") + ")", "listed": True}
    try:
        async with toolkit() as tools:
            name = os.environ["TOOLSCORE_TOOL"]
            functions = tools.get_functions() if hasattr(tools, "get_functions") else tools.functions
            call = get_function_call(name, os.environ.get("TOOLSCORE_ARGUMENTS") or "{}", "toolscore_call", functions)
            if call is None:
                # The model is never offered a tool the listing lacks: the agent cannot call it.
                raise LookupError(f"tool {name!r} is not among the listed tools {list(functions)}")
            results = []
            async for _ in Loop(id="toolscore-scripted").arun_function_calls(function_calls=[call], function_call_results=results):
                pass
            if not results:
                raise RuntimeError("the tool loop made no tool message")
            message = results[0]
            text = message.content if isinstance(message.content, str) else json.dumps(message.content, default=str)
            text = text or ""
            out["handed"] = {"kind": "error" if message.tool_call_error else ("text" if text else "none"), "excerpt": text[:EXCERPT], "is_error": bool(message.tool_call_error)}
    except BaseException as e:  # what escapes the loop: verbatim
        if isinstance(e, (KeyboardInterrupt, SystemExit)):
            raise
        out["raised"] = raised(e)
    sys.stdout.write(json.dumps(out) + "\n")
    sys.stdout.flush()


asyncio.run(main())
