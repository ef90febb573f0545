"""toolscore's mcp-use adapter (PyPI mcp-use): one tool call made by an MCPAgent, as mcp-use's docs
show (an MCPClient from a config dict, an MCPAgent over it and a LangChain chat model), and the
tool message the agent then hands its model. The request comes in TOOLSCORE_* variables, one JSON
observation line goes to stdout, as the other framework adapters do. TOOLSCORE_URL, when set, is
the server's streamable HTTP endpoint; otherwise TOOLSCORE_SERVER is its command.

The model is a scripted LangChain chat model: its first turn calls the tool, its second reads the
ToolMessage the agent put in front of it and stops. So the call runs the agent's whole path:
MCPAgent.initialize turns each listed tool into a LangChain tool through its LangChainAdapter
(mcp_use/agents/mcpagent.py:161, 210), the agent is LangChain's create_agent with mcp-use's
tool_error_handler middleware (mcpagent.py:362-385), and the tool's _arun awaits the connector's
call_tool and hands back the content's text; an isError result or any exception becomes
format_error's dict {"error": class, "details": ..., ...} (agents/adapters/langchain_adapter.py:
181-206, errors/error_formatting.py:6-26), which LangChain turns into the ToolMessage's text.

`handed` is that ToolMessage: kind error when its status is error or it is format_error's dict
(the model reads the words "error" and the details), text or none otherwise."""

import asyncio
import json
import os
import sys
from importlib.metadata import version

# mcp-use sends anonymous usage events to its vendor unless told not to; a cell has no network,
# and the events are no part of a tool call.
os.environ.setdefault("MCP_USE_ANONYMIZED_TELEMETRY", "false")

from langchain_core.language_models.chat_models import BaseChatModel  # noqa: E402
from langchain_core.messages import AIMessage, ToolMessage  # noqa: E402
from langchain_core.outputs import ChatGeneration, ChatResult  # noqa: E402
from mcp_use import MCPAgent, MCPClient  # noqa: E402

EXCERPT = 2000


def config() -> dict:
    url = os.environ.get("TOOLSCORE_URL")
    if url:
        return {"mcpServers": {"toolscore": {"url": url}}}
    server = json.loads(os.environ["TOOLSCORE_SERVER"])
    # The whole environment goes to the server, as the other adapters do.
    return {"mcpServers": {"toolscore": {"command": server[0], "args": server[1:], "env": dict(os.environ)}}}


class Scripted(BaseChatModel):
    """The agent's model: the first turn calls the tool, the second keeps the tool message it was
    handed and answers."""

    tool: str
    arguments: dict
    seen: list = []

    @property
    def _llm_type(self) -> str:
        return "toolscore-scripted"

    def bind_tools(self, tools, **kwargs):
        return self

    def _generate(self, messages, stop=None, run_manager=None, **kwargs) -> ChatResult:
        handed = [m for m in messages if isinstance(m, ToolMessage)]
        if handed:
            self.seen.extend(handed)
            reply = AIMessage(content="done")
        else:
            reply = AIMessage(content="", tool_calls=[{"name": self.tool, "args": self.arguments, "id": "call_toolscore", "type": "tool_call"}])
        return ChatResult(generations=[ChatGeneration(message=reply)])


def words(content) -> str:
    if isinstance(content, str):
        return content
    parts = []
    for block in content:
        if isinstance(block, dict) and block.get("type") == "text":
            parts.append(block.get("text", ""))
        else:
            parts.append(block if isinstance(block, str) else json.dumps(block, default=str))
    return "\n".join(parts)


def raised(e: BaseException) -> dict:
    while isinstance(e, BaseExceptionGroup) and e.exceptions:
        e = e.exceptions[0]
    out = {"class": type(e).__name__, "message": str(e)}
    code = getattr(getattr(e, "error", None), "code", None)
    if isinstance(code, int):
        out["code"] = code
    return out


async def main() -> None:
    out = {"client": "mcp-use", "library": "mcp-use " + version("mcp-use") + " (mcp " + version("mcp") + ")", "listed": True}
    name = os.environ["TOOLSCORE_TOOL"]
    model = Scripted(tool=name, arguments=json.loads(os.environ.get("TOOLSCORE_ARGUMENTS") or "{}"), seen=[])
    client = MCPClient.from_dict(config())
    try:
        agent = MCPAgent(llm=model, client=client, max_steps=4, memory_enabled=False)
        await agent.initialize()
        listed = [t.name for t in agent._tools]
        if name not in listed:
            # The model is never offered a tool the listing lacks: the agent cannot call it.
            raise LookupError(f"tool {name!r} is not among the listed tools {listed}")
        await agent.run("Call the tool.")
        if not model.seen:
            raise RuntimeError("the agent's run ended without handing its model a tool message")
        msg = model.seen[0]
        text = words(msg.content)
        # format_error's dict, as LangChain makes it the message's text.
        formatted = False
        try:
            value = json.loads(text)
            formatted = isinstance(value, dict) and "error" in value and "details" in value
        except ValueError:
            pass
        error = getattr(msg, "status", "success") == "error" or formatted
        kind = "error" if error else ("text" if text else "none")
        out["handed"] = {"kind": kind, "excerpt": text[:EXCERPT], "is_error": error}
    except BaseException as e:  # what escapes the agent: verbatim
        if isinstance(e, (KeyboardInterrupt, SystemExit)):
            raise
        out["raised"] = raised(e)
    finally:
        try:
            await client.close_all_sessions()
        except Exception:
            pass
    sys.stdout.write(json.dumps(out) + "\n")
    sys.stdout.flush()


asyncio.run(main())
