"""toolscore's fastmcp adapter: one tool call through the real FastMCP `Client` (PyPI fastmcp),
speaking the runner's contract as images/python-sdk/adapter.py does: the request comes in
TOOLSCORE_* variables, one JSON observation line goes to stdout. `list-then-call` lists the tools
first; `call` does not (Client.call_tool lists them itself when it needs the outputSchema to
parse structuredContent: that is what is measured). TOOLSCORE_URL, when set, is the server's
streamable HTTP endpoint; otherwise TOOLSCORE_SERVER is its command.

What is reported: `Client.call_tool(name, args)`, fastmcp's own public way to call a tool, with
its defaults (raise_on_error=True). It raises ToolError on an isError result
(fastmcp/client/mixins/tools.py:394-399 in fastmcp-slim 4.1.6) and MCPError on a JSON-RPC error;
both are `raised`. Otherwise it returns its CallToolResult dataclass (content,
structured_content, meta, data, is_error; fastmcp/client/client.py:259-267), whose MCP fields
are `returned` re-encoded as MCP JSON, verbatim: fastmcp never alters them. Its `.data` is
fastmcp's own reading of structuredContent through the outputSchema (tools.py:427-435); when
that validation fails fastmcp only logs "Error parsing structured content" and leaves `.data`
None (tools.py:436-439), so the caller still holds the wire's structuredContent. The
observation keeps the wire fields (what a caller of the result object reads) and says what
`.data` became in stderr, never in the graded observation."""

import asyncio
import json
import os
import sys
from importlib.metadata import version

from fastmcp import Client
from pydantic_core import to_jsonable_python
from fastmcp.client.transports import StdioTransport, StreamableHttpTransport


def transport():
    url = os.environ.get("TOOLSCORE_URL")
    if url:
        return StreamableHttpTransport(url)
    server = json.loads(os.environ["TOOLSCORE_SERVER"])
    # The whole environment goes to the server, as the other adapters do.
    return StdioTransport(command=server[0], args=server[1:], env=dict(os.environ))


def raised(e: BaseException) -> dict:
    # An anyio task group may wrap the error: report the first leaf, as it was raised.
    while isinstance(e, BaseExceptionGroup) and e.exceptions:
        e = e.exceptions[0]
    out = {"class": type(e).__name__, "message": str(e)}
    code = getattr(e, "code", None)
    if code is None:
        code = getattr(getattr(e, "error", None), "code", None)
    if isinstance(code, int):
        out["code"] = code
    return out


def wire(result) -> dict:
    """The CallToolResult's MCP fields as MCP JSON (camelCase), as the server's bytes spell them."""
    out = {"content": [b.model_dump(mode="json", by_alias=True, exclude_none=True) for b in result.content]}
    if result.structured_content is not None:
        out["structuredContent"] = result.structured_content
    if result.meta is not None:
        out["_meta"] = result.meta
    out["isError"] = result.is_error
    return out


async def main() -> None:
    mode = sys.argv[1] if len(sys.argv) > 1 else "call"
    out = {"client": "fastmcp/" + mode, "library": "fastmcp " + version("fastmcp"), "listed": mode == "list-then-call"}
    try:  # the handshake too: a server that fails it is something the library reacts to
        async with Client(transport()) as client:
            if out["listed"]:
                await client.list_tools()
            result = await client.call_tool(os.environ["TOOLSCORE_TOOL"], json.loads(os.environ.get("TOOLSCORE_ARGUMENTS") or "{}"))
            out["returned"] = wire(result)
            if result.structured_content is not None:
                # .data is a typed object built from the outputSchema: compared as JSON.
                data = to_jsonable_python(result.data)
                note = "structuredContent, typed" if data == result.structured_content else "not structuredContent: " + repr(result.data)[:500]
                sys.stderr.write("toolscore: fastmcp's .data is " + note + "\n")
    except BaseException as e:  # every exception is an observation, verbatim
        if isinstance(e, (KeyboardInterrupt, SystemExit)):
            raise
        out.pop("returned", None)
        out["raised"] = raised(e)
    sys.stdout.write(json.dumps(out) + "\n")
    sys.stdout.flush()


asyncio.run(main())
