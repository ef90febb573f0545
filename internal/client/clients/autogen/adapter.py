"""toolscore's AutoGen adapter (PyPI autogen-ext with its mcp extra): one tool call made the way
an AutoGen AssistantAgent makes it, and the tool message the agent then hands its model. The
request comes in TOOLSCORE_* variables, one JSON observation line goes to stdout, as the other
framework adapters do. TOOLSCORE_URL, when set, is the server's streamable HTTP endpoint;
otherwise TOOLSCORE_SERVER is its command.

As AutoGen's docs show: an McpWorkbench over the server's parameters given to an AssistantAgent.
The model is autogen-ext's ReplayChatCompletionClient, scripted to answer the task with one
function call, so the whole agent runs, nothing re-implemented: AssistantAgent._execute_tool_call
finds the tool in the workbench's listing and turns its ToolResult into a FunctionExecutionResult
(content=tool_result.to_text(), is_error=tool_result.is_error,
autogen_agentchat/agents/_assistant_agent.py:1576-1613), which goes into the model context as a
FunctionExecutionResultMessage and out as the ToolCallExecutionEvent this adapter reads
(_assistant_agent.py:1231-1242). McpWorkbench.call_tool makes the ToolResult of the result's
content blocks, keeps isError, and turns any exception into an error result of its words
(autogen_ext/tools/mcp/_workbench.py:338-362); structuredContent is not read.

`handed` is that FunctionExecutionResult's content, the text the model gets. No model client of
autogen-ext sends is_error to its model (none reads the field), so the flag reaches the model
only as words: the kind is text, or none when empty."""

import asyncio
import json
import os
import sys
from importlib.metadata import version

from autogen_agentchat.agents import AssistantAgent
from autogen_agentchat.messages import ToolCallExecutionEvent
from autogen_core import FunctionCall
from autogen_core.models import CreateResult, ModelInfo, RequestUsage
from autogen_ext.models.replay import ReplayChatCompletionClient
from autogen_ext.tools.mcp import McpWorkbench, StdioServerParams, StreamableHttpServerParams

EXCERPT = 2000
# autogen-ext's 5s read timeout is short for a loaded machine: the cell's own timeout decides
# when a client hangs.
TIMEOUT = 120.0


def params():
    url = os.environ.get("TOOLSCORE_URL")
    if url:
        return StreamableHttpServerParams(url=url, timeout=TIMEOUT)
    server = json.loads(os.environ["TOOLSCORE_SERVER"])
    # The whole environment goes to the server, as the other adapters do.
    return StdioServerParams(command=server[0], args=server[1:], env=dict(os.environ), read_timeout_seconds=TIMEOUT)


def scripted_model() -> ReplayChatCompletionClient:
    """The scripted model: its one answer calls the tool with the request's arguments."""
    call = FunctionCall(id="toolscore_call", name=os.environ["TOOLSCORE_TOOL"], arguments=os.environ.get("TOOLSCORE_ARGUMENTS") or "{}")
    answer = CreateResult(finish_reason="function_calls", content=[call], usage=RequestUsage(prompt_tokens=0, completion_tokens=0), cached=False)
    info = ModelInfo(vision=False, function_calling=True, json_output=False, family="unknown", structured_output=False)
    return ReplayChatCompletionClient([answer], model_info=info)


def raised(e: BaseException) -> dict:
    while isinstance(e, BaseExceptionGroup) and e.exceptions:
        e = e.exceptions[0]
    out = {"class": type(e).__name__, "message": str(e)}
    code = getattr(getattr(e, "error", None), "code", None)
    if isinstance(code, int):
        out["code"] = code
    return out


async def main() -> None:
    out = {"client": "autogen", "library": "autogen-ext " + version("autogen-ext") + " (autogen-agentchat " + version("autogen-agentchat") + ", mcp " + version("mcp") + ")", "listed": True}
    try:
        async with McpWorkbench(server_params=params()) as workbench:
            name = os.environ["TOOLSCORE_TOOL"]
            listed = [t["name"] for t in await workbench.list_tools()]
            if name not in listed:
                # The model is never offered a tool the listing lacks: the agent cannot call it.
                raise LookupError(f"tool {name!r} is not among the listed tools {listed}")
            # reflect_on_tool_use off: the agent stops after the tool, as no second model turn is scripted.
            agent = AssistantAgent("toolscore", model_client=scripted_model(), workbench=workbench, reflect_on_tool_use=False)
            result = await agent.run(task="call the tool")
            executed = [r for m in result.messages if isinstance(m, ToolCallExecutionEvent) for r in m.content]
            if not executed:
                raise RuntimeError("the agent ran no tool call: " + repr(result.messages)[:EXCERPT])
            text = executed[0].content
            out["handed"] = {"kind": "text" if text else "none", "excerpt": text[:EXCERPT], "is_error": False}
    except BaseException as e:  # what escapes the agent: verbatim
        if isinstance(e, (KeyboardInterrupt, SystemExit)):
            raise
        out["raised"] = raised(e)
    sys.stdout.write(json.dumps(out) + "\n")
    sys.stdout.flush()


asyncio.run(main())
