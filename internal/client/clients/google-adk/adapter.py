"""toolscore's Google ADK adapter: one tool call made the way an ADK agent makes it, through its
MCP toolset (google.adk.tools.mcp_tool.McpToolset), and what the agent then hands its model.
The request comes in TOOLSCORE_* variables, one JSON observation line goes to stdout, as the
other framework adapters do. TOOLSCORE_URL, when set, is the server's streamable HTTP endpoint;
otherwise TOOLSCORE_SERVER is its command.

The model is a scripted BaseLlm: its first turn calls the tool, its second reads the
function_response part of the request the agent built and stops. So the call runs ADK's whole
path, nothing re-implemented: an LlmAgent with the toolset, run by an InMemoryRunner, lists the
tools (McpToolset.get_tools), calls McpTool.run_async, which calls the mcp SDK's
ClientSession.call_tool and returns the result dumped to a dict (mcp_tool.py:741-752), or, for any
exception, {"error": ...} (mcp_tool.py:617-626, graceful error handling on by default,
features/_feature_registry.py:217-219). That dict is the function_response the model gets.

`handed` is that dict as the model got it: kind error when it is ADK's {"error": ...} or carries
isError (the flag reaches the model in the dict), structured (the dict's structuredContent) when
it has structuredContent, else text (its text blocks joined) or none. The excerpt of a structured
view is the structuredContent alone, which the grader holds to the wire's; the model also gets
the content blocks beside it, as the wire had them."""

import asyncio
import json
import os
import sys
from importlib.metadata import version

from google.adk.agents import LlmAgent
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_response import LlmResponse
from google.adk.runners import InMemoryRunner
from google.adk.tools.mcp_tool import McpToolset, StdioConnectionParams, StreamableHTTPConnectionParams
from google.genai import types
from mcp import StdioServerParameters

EXCERPT = 2000
# ADK's default of 5s to open a session is short for a loaded machine: the cell's own timeout
# decides when a client hangs.
CONNECT_TIMEOUT = 120.0


def connection():
    url = os.environ.get("TOOLSCORE_URL")
    if url:
        return StreamableHTTPConnectionParams(url=url, timeout=CONNECT_TIMEOUT)
    server = json.loads(os.environ["TOOLSCORE_SERVER"])
    # The whole environment goes to the server, as the other adapters do.
    return StdioConnectionParams(
        server_params=StdioServerParameters(command=server[0], args=server[1:], env=dict(os.environ)),
        timeout=CONNECT_TIMEOUT,
    )


def words(content) -> str:
    parts = []
    for block in content if isinstance(content, list) else []:
        if isinstance(block, dict) and block.get("type") == "text":
            parts.append(block.get("text", ""))
        else:
            parts.append(json.dumps(block))
    return "\n".join(parts)


def view(response) -> dict:
    """The model's view of one function_response dict."""
    if not isinstance(response, dict):
        return {"kind": "text", "excerpt": str(response)[:EXCERPT], "is_error": False}
    if "error" in response and "content" not in response:
        return {"kind": "error", "excerpt": str(response["error"])[:EXCERPT], "is_error": True}
    text = words(response.get("content"))
    if response.get("isError"):
        return {"kind": "error", "excerpt": text[:EXCERPT], "is_error": True}
    if response.get("structuredContent") is not None:
        return {"kind": "structured", "excerpt": json.dumps(response["structuredContent"])[:EXCERPT], "is_error": False}
    return {"kind": "text" if text else "none", "excerpt": text[:EXCERPT], "is_error": False}


class Scripted(BaseLlm):
    """The scripted model: call the tool once, then read its function_response and stop."""

    tool: str = ""
    arguments: dict = {}
    handed: dict = {}

    async def generate_content_async(self, llm_request, stream=False):
        for content in reversed(llm_request.contents or []):
            for part in content.parts or []:
                if part.function_response is not None:
                    self.handed.update(view(part.function_response.response))
                    yield LlmResponse(content=types.Content(role="model", parts=[types.Part(text="done")]))
                    return
        # McpToolset offers each tool under its MCP name when no tool_name_prefix is set, so the
        # call names it exactly.
        call = types.FunctionCall(name=self.tool, args=self.arguments, id="toolscore_call")
        yield LlmResponse(content=types.Content(role="model", parts=[types.Part(function_call=call)]))


def raised(e: BaseException) -> dict:
    while isinstance(e, BaseExceptionGroup) and e.exceptions:
        e = e.exceptions[0]
    out = {"class": type(e).__name__, "message": str(e)}
    code = getattr(getattr(e, "error", None), "code", None)
    if isinstance(code, int):
        out["code"] = code
    return out


async def main() -> None:
    out = {"client": "google-adk", "library": "google-adk " + version("google-adk") + " (mcp " + version("mcp") + ")", "listed": True}
    model = Scripted(
        model="toolscore-scripted",
        tool=os.environ["TOOLSCORE_TOOL"],
        arguments=json.loads(os.environ.get("TOOLSCORE_ARGUMENTS") or "{}"),
        handed={},
    )
    toolset = McpToolset(connection_params=connection())
    agent = LlmAgent(name="toolscore", model=model, instruction="Call the tool.", tools=[toolset])
    runner = InMemoryRunner(agent=agent, app_name="toolscore")
    try:
        session = await runner.session_service.create_session(app_name="toolscore", user_id="toolscore")
        message = types.Content(role="user", parts=[types.Part(text="call the tool")])
        async for _ in runner.run_async(user_id="toolscore", session_id=session.id, new_message=message):
            pass
        out["handed"] = model.handed or {"kind": "none", "excerpt": "", "is_error": False}
    except BaseException as e:  # the agent run gave up: what it raised, verbatim
        if isinstance(e, (KeyboardInterrupt, SystemExit)):
            raise
        if model.handed:
            out["handed"] = model.handed
        else:
            out["raised"] = raised(e)
    finally:
        try:
            await toolset.close()
        except BaseException:
            pass
    sys.stdout.write(json.dumps(out) + "\n")
    sys.stdout.flush()


asyncio.run(main())
