"""toolscore's Python adapter: one tools/call through the real `mcp` SDK's ClientSession,
speaking the runner's contract: the request comes in TOOLSCORE_* variables, one JSON
observation line goes to stdout. `list-then-call` lists the tools first; `call` does not
(the SDK may still list them itself: that is what is measured). TOOLSCORE_URL, when set, is the
server's streamable HTTP endpoint (the http transport); otherwise TOOLSCORE_SERVER is its command."""

import asyncio
import json
import os
import sys
from importlib.metadata import version

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

try:  # its name in mcp 2.x; older versions spell it streamablehttp_client
    from mcp.client.streamable_http import streamable_http_client
except ImportError:
    from mcp.client.streamable_http import streamablehttp_client as streamable_http_client


def connect():
    """The SDK's client transport for the runner's request: (read, write) streams."""
    url = os.environ.get("TOOLSCORE_URL")
    if url:
        return streamable_http_client(url)
    server = json.loads(os.environ["TOOLSCORE_SERVER"])
    # The whole environment goes to the server: the SDK's default passes only a few variables.
    return stdio_client(StdioServerParameters(command=server[0], args=server[1:], env=dict(os.environ)))


async def main() -> None:
    mode = sys.argv[1] if len(sys.argv) > 1 else "call"
    out = {"client": "python-sdk/" + mode, "library": "mcp " + version("mcp"), "listed": mode == "list-then-call"}
    async with connect() as streams:
        read, write = streams[0], streams[1]
        async with ClientSession(read, write) as session:
            try:  # the handshake too: a server that fails it is something the library reacts to
                await session.initialize()
                if out["listed"]:
                    await session.list_tools()
                result = await session.call_tool(os.environ["TOOLSCORE_TOOL"], json.loads(os.environ.get("TOOLSCORE_ARGUMENTS") or "{}"))
                out["returned"] = result.model_dump(mode="json", by_alias=True, exclude_none=True)
            except Exception as e:  # every exception is an observation, verbatim
                raised = {"class": type(e).__name__, "message": str(e)}
                code = getattr(getattr(e, "error", None), "code", None)
                if isinstance(code, int):
                    raised["code"] = code
                out["raised"] = raised
    sys.stdout.write(json.dumps(out) + "\n")
    sys.stdout.flush()


asyncio.run(main())
