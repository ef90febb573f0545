"""toolscore's pydantic-ai adapter: one tool call made the way a pydantic-ai Agent makes it, through
its MCP toolset (pydantic_ai.mcp.MCPToolset; the MCPServerStdio/MCPServerStreamableHTTP classes are
removed names in pydantic-ai-slim 2.68.0, mcp.py:2435), and what the agent then hands its model.
The request comes in TOOLSCORE_* variables, one JSON observation line goes to stdout, as
images/python-sdk/adapter.py does. TOOLSCORE_URL, when set, is the server's streamable HTTP
endpoint; otherwise TOOLSCORE_SERVER is its command.

The model is pydantic-ai's own FunctionModel, scripted: its first turn calls the tool, its second
reads the tool's part from the request the agent built and stops. So the call runs the agent's
whole path, nothing re-implemented: the agent lists the tools (MCPToolset.get_tools, mcp.py:1514),
validates the arguments, calls MCPToolset.call_tool -> direct_call_tool (mcp.py:1700-1716,
1593-1627), which raises ModelRetry for an isError result (mcp.py:1686-1698, 2140) and for a
JSON-RPC error (mcp.py:1648-1656), and maps a good result to a value: structuredContent when every
content block is text, unwrapped from {"result": ...}, else the content blocks, a JSON-looking text
parsed (mcp.py:2185-2246). What the model gets is that part as pydantic-ai renders it for a model,
ToolReturnPart.model_response_str (messages.py:2565-2587), a retry as {"error": ...}. That is
`handed`: kind error for an error outcome (messages.py:2331), text for a string, structured for
any other value. An exception out of the run (the agent gave up) is `raised`."""

import asyncio
import json
import os
import sys
from importlib.metadata import version

from fastmcp.client.transports import StdioTransport, StreamableHttpTransport
from pydantic_ai import Agent
from pydantic_ai.mcp import MCPToolset
from pydantic_ai.messages import ERROR_OUTCOMES, ModelRequest, ModelResponse, RetryPromptPart, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

EXCERPT = 2000


def transport():
    url = os.environ.get("TOOLSCORE_URL")
    if url:
        return StreamableHttpTransport(url)
    server = json.loads(os.environ["TOOLSCORE_SERVER"])
    # The whole environment goes to the server, as the other adapters do.
    return StdioTransport(command=server[0], args=server[1:], env=dict(os.environ))


def raised(e: BaseException) -> dict:
    while isinstance(e, BaseExceptionGroup) and e.exceptions:
        e = e.exceptions[0]
    out = {"class": type(e).__name__, "message": str(e)}
    code = getattr(e, "code", None)
    if isinstance(code, int):
        out["code"] = code
    return out


def main() -> None:
    tool = os.environ["TOOLSCORE_TOOL"]
    arguments = json.loads(os.environ.get("TOOLSCORE_ARGUMENTS") or "{}")
    out = {"client": "pydantic-ai", "library": "pydantic-ai-slim " + version("pydantic-ai-slim"), "listed": True}
    handed = {}

    def model(messages: list, info: AgentInfo) -> ModelResponse:
        last = messages[-1]
        for part in last.parts if isinstance(last, ModelRequest) else []:
            if isinstance(part, ToolReturnPart):
                text = part.model_response_str()
                error = part.outcome in ERROR_OUTCOMES
                value = part.content
                kind = "error" if error else ("text" if isinstance(value, str) else "structured")
                handed.update(kind=kind, excerpt=text[:EXCERPT], is_error=error)
                return ModelResponse(parts=[TextPart("done")])
            if isinstance(part, RetryPromptPart):  # the older spelling of a retry, should it come
                handed.update(kind="error", excerpt=part.model_response()[:EXCERPT], is_error=True)
                return ModelResponse(parts=[TextPart("done")])
        if handed:
            return ModelResponse(parts=[TextPart("done")])
        # MCPToolset offers each tool under its MCP name, unchanged (pydantic_ai/mcp.py:1525-1527
        # in pydantic-ai-slim 2.68.0; only the Bedrock model sanitizes, _utils.py:742), so the
        # call names it exactly: a suffix match would call get-sum for a sum the server lacks.
        return ModelResponse(parts=[ToolCallPart(tool_name=tool, args=arguments)])

    agent = Agent(FunctionModel(model), toolsets=[MCPToolset(transport())])
    try:
        agent.run_sync("call the tool")
        out["handed"] = handed or {"kind": "none", "excerpt": "", "is_error": False}
    except BaseException as e:  # the agent run gave up: what it raised, verbatim
        if isinstance(e, (KeyboardInterrupt, SystemExit)):
            raise
        if handed:
            out["handed"] = handed
        else:
            out["raised"] = raised(e)
    sys.stdout.write(json.dumps(out) + "\n")
    sys.stdout.flush()


main()
