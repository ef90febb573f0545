"""toolscore's Semantic Kernel adapter (PyPI semantic-kernel): one tool call made the way the
kernel makes it for a model's tool call, through its MCP plugin, and the tool message the kernel
then hands its model. The request comes in TOOLSCORE_* variables, one JSON observation line goes
to stdout, as the other framework adapters do. TOOLSCORE_URL, when set, is the server's
streamable HTTP endpoint; otherwise TOOLSCORE_SERVER is its command.

As Semantic Kernel's docs show: `async with MCPStdioPlugin(...)` (or MCPStreamableHttpPlugin)
connects and makes each listed tool a kernel function over plugin.call_tool
(semantic_kernel/connectors/mcp.py:583-600), and the plugin is added to a Kernel. The model's
tool call is a FunctionCallContent named plugin-function, and Kernel.invoke_function_call runs it
as a chat completion service's auto function calling does (chat_completion_client_base.py:154-167
calls it the same way): it checks the arguments against the function's parameters, invokes it,
turns an exception into the words "An error occurred while invoking the function ..."
(kernel.py:465-484), and puts a FunctionResultContent of the result into the chat history as a
tool message (kernel.py:454-461).

plugin.call_tool returns the result's content blocks as kernel contents and reads neither isError
nor structuredContent (mcp.py:95-100, 606-623). The OpenAI connector sends a tool message as
ChatMessageContent.to_dict makes it, its content str() of the FunctionResultContent's result
(open_ai_chat_completion_base.py:270-300, chat_message_content.py:303-333): `handed` is that
content, text, or none when empty; no flag tells the model of an error."""

import asyncio
import json
import os
import sys
from importlib.metadata import version

from semantic_kernel import Kernel
from semantic_kernel.connectors.ai.function_choice_behavior import FunctionChoiceBehavior
from semantic_kernel.connectors.mcp import MCPStdioPlugin, MCPStreamableHttpPlugin
from semantic_kernel.contents import ChatHistory, FunctionCallContent

EXCERPT = 2000
PLUGIN = "toolscore"
# A request timeout of the plugin's own is none by default; the cell's timeout decides when a
# client hangs, so this only bounds a request well past it.
TIMEOUT = 120


def plugin():
    url = os.environ.get("TOOLSCORE_URL")
    if url:
        return MCPStreamableHttpPlugin(name=PLUGIN, url=url, load_prompts=False, request_timeout=TIMEOUT)
    server = json.loads(os.environ["TOOLSCORE_SERVER"])
    # The whole environment goes to the server, as the other adapters do.
    return MCPStdioPlugin(name=PLUGIN, command=server[0], args=server[1:], env=dict(os.environ), load_prompts=False, request_timeout=TIMEOUT)


def raised(e: BaseException) -> dict:
    while isinstance(e, BaseExceptionGroup) and e.exceptions:
        e = e.exceptions[0]
    out = {"class": type(e).__name__, "message": str(e)}
    code = getattr(getattr(e, "error", None), "code", None)
    if isinstance(code, int):
        out["code"] = code
    return out


async def main() -> None:
    out = {"client": "semantic-kernel", "library": "semantic-kernel " + version("semantic-kernel") + " (mcp " + version("mcp") + ")", "listed": True}
    try:
        async with plugin() as mcp:
            kernel = Kernel()
            kernel.add_plugin(mcp)
            name = os.environ["TOOLSCORE_TOOL"]
            functions = [f.name for f in kernel.get_full_list_of_function_metadata()]
            # The plugin registers a tool under its name made safe for a function name
            # (mcp.py:228-233); the ledger's tool names are already.
            if name not in functions:
                # The model is never offered a tool the listing lacks: the agent cannot call it.
                raise LookupError(f"tool {name!r} is not among the listed tools {functions}")
            history = ChatHistory()
            call = FunctionCallContent(id="toolscore_call", name=f"{PLUGIN}-{name}", arguments=os.environ.get("TOOLSCORE_ARGUMENTS") or "{}")
            await kernel.invoke_function_call(function_call=call, chat_history=history, function_behavior=FunctionChoiceBehavior.Auto())
            message = history.messages[-1].to_dict()
            text = message.get("content")
            text = text if isinstance(text, str) else json.dumps(text, default=str)
            out["handed"] = {"kind": "text" if text else "none", "excerpt": text[:EXCERPT], "is_error": False}
    except BaseException as e:  # what escapes the kernel: verbatim
        if isinstance(e, (KeyboardInterrupt, SystemExit)):
            raise
        out["raised"] = raised(e)
    sys.stdout.write(json.dumps(out) + "\n")
    sys.stdout.flush()


asyncio.run(main())
