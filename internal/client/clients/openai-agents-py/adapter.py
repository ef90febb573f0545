"""toolscore's adapter for the OpenAI Agents SDK (PyPI openai-agents): one tool call made the way
its agent loop makes it, speaking the runner's contract (the request in TOOLSCORE_* variables,
one JSON observation line on stdout).

The library never hands its user the CallToolResult: an Agent lists the MCP server's tools
(Agent.get_mcp_tools -> MCPUtil.get_all_function_tools), wraps each in a FunctionTool whose
invoker is MCPUtil.invoke_mcp_tool, runs it with agents.tool.invoke_function_tool, and puts what
that returns into the model's next request as a function_call_output item
(ItemHelpers.tool_call_output_item). This adapter does exactly that, with the Agent's defaults
(use_structured_content off, the default failure_error_function), and prints that item's
`output` as `handed`: the words the model reads. A failure the library turns into text for the
model (failure_error_function) is `handed` of kind "error"; what escapes the loop is `raised`.
TOOLSCORE_URL, when set, is the server's streamable HTTP endpoint (MCPServerStreamableHttp);
otherwise TOOLSCORE_SERVER is its command (MCPServerStdio)."""

import asyncio
import json
import os
import sys
from importlib.metadata import version

from agents import Agent, RunContextWrapper
from agents.items import ItemHelpers
from agents.mcp import MCPServerStdio, MCPServerStreamableHttp
from agents.tool import default_tool_error_function, invoke_function_tool
from agents.tool_context import ToolContext
from openai.types.responses import ResponseFunctionToolCall

EXCERPT = 2000


def server():
    url = os.environ.get("TOOLSCORE_URL")
    if url:
        return MCPServerStreamableHttp(params={"url": url}, name="toolscore")
    argv = json.loads(os.environ["TOOLSCORE_SERVER"])
    # The whole environment goes to the server: the MCP SDK's default passes only a few variables.
    return MCPServerStdio(params={"command": argv[0], "args": argv[1:], "env": dict(os.environ)}, name="toolscore")


def words(output):
    """The text of a function_call_output's output: a string as it is, a list of input_text
    items joined by newlines (other items, an image say, as their JSON)."""
    if isinstance(output, str):
        return output
    parts = []
    for item in output:
        if isinstance(item, dict) and item.get("type") == "input_text":
            parts.append(item.get("text", ""))
        else:
            parts.append(json.dumps(item))
    return "\n".join(parts)


async def main() -> None:
    out = {"client": "openai-agents-py", "library": "openai-agents " + version("openai-agents") + " (mcp " + version("mcp") + ")", "listed": True}
    failures = []

    def failure(ctx, error):
        # The Agent's default handler, unchanged (agents/tool.py default_tool_error_function): only
        # noted, so the observation can say the model's text is an error the library made up.
        failures.append(error)
        return default_tool_error_function(ctx, error)

    srv = server()
    try:
        try:
            await srv.connect()
            agent = Agent(name="toolscore", mcp_servers=[srv], mcp_config={"failure_error_function": failure})
            run_context = RunContextWrapper(context=None)
            tools = await agent.get_mcp_tools(run_context)
            name = os.environ["TOOLSCORE_TOOL"]
            tool = next((t for t in tools if t.name == name), None)
            if tool is None:
                # The model is never offered a tool the listing lacks: the loop cannot call it.
                raise LookupError(f"tool {name!r} is not among the listed tools {[t.name for t in tools]}")
            arguments = json.dumps(json.loads(os.environ.get("TOOLSCORE_ARGUMENTS") or "{}"))
            call = ResponseFunctionToolCall(type="function_call", call_id="call_toolscore", name=name, arguments=arguments)
            ctx = ToolContext(context=None, tool_name=name, tool_call_id=call.call_id, tool_arguments=arguments, tool_call=call, agent=agent)
            output = await invoke_function_tool(function_tool=tool, context=ctx, arguments=arguments)
            item = ItemHelpers.tool_call_output_item(call, output)
            text = words(item["output"])
            if failures:
                kind = "error"
                sys.stderr.write(f"failure_error_function got {type(failures[0]).__name__}: {failures[0]}\n")
            else:
                kind = "text"
            out["handed"] = {"kind": kind, "excerpt": text[:EXCERPT], "is_error": bool(failures)}
        except Exception as e:  # what escapes the agent loop: verbatim
            raised = {"class": type(e).__name__, "message": str(e)}
            code = getattr(getattr(e, "error", None), "code", None)
            if isinstance(code, int):
                raised["code"] = code
            out["raised"] = raised
    finally:
        try:
            await srv.cleanup()
        except Exception:
            pass
    sys.stdout.write(json.dumps(out) + "\n")
    sys.stdout.flush()


asyncio.run(main())
