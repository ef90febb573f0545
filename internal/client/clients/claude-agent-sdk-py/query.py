"""The Claude Agent SDK for Python as an application uses it: query() with the scenario's MCP
server in ClaudeAgentOptions.mcp_servers, its one tool allowed, no built-in tools and no
settings from disk. The SDK starts the Claude Code executable its wheel bundles and hands it the
servers; the executable connects to the server and talks to the model at ANTHROPIC_BASE_URL
(toolscore's scripted model), both set by `toolscore agent claude-agent-sdk-py`, which writes
the options as JSON to the file named by the first argument.

Every message query() yields is printed as a JSON line in the shape of Claude Code's
stream-json (the SDK hands over typed messages, not the executable's JSON): the init message's
own data, each tool_result block of a user message as the SDK parsed it, and the result."""

import asyncio
import dataclasses
import json
import sys
from importlib.metadata import version

from claude_agent_sdk import (
    ClaudeAgentOptions,
    ResultMessage,
    SystemMessage,
    ToolResultBlock,
    UserMessage,
    query,
)


def emit(line):
    sys.stdout.write(json.dumps(line) + "\n")
    sys.stdout.flush()


def record(message):
    """The stream-json line of one message the SDK yielded, or None for those not read."""
    if isinstance(message, SystemMessage):
        return {"type": "system", "subtype": message.subtype, **message.data}
    if isinstance(message, UserMessage) and isinstance(message.content, list):
        blocks = []
        for b in message.content:
            if isinstance(b, ToolResultBlock):
                block = {"type": "tool_result", "tool_use_id": b.tool_use_id, "content": b.content}
                if b.is_error is not None:
                    block["is_error"] = b.is_error
                blocks.append(block)
        return {"type": "user", "message": {"content": blocks}}
    if isinstance(message, ResultMessage):
        return {"type": "result", "subtype": message.subtype, "result": message.result, "is_error": message.is_error}
    if dataclasses.is_dataclass(message):
        return {"type": type(message).__name__}
    return None


async def main():
    # First the SDK's own version (the messages name only the executable's).
    emit({"type": "toolscore", "sdk_version": version("claude-agent-sdk")})
    with open(sys.argv[1], encoding="utf-8") as f:
        cfg = json.load(f)
    options = ClaudeAgentOptions(
        mcp_servers=cfg["mcpServers"],
        strict_mcp_config=True,
        tools=[],
        allowed_tools=cfg["allowedTools"],
        setting_sources=[],
        model=cfg.get("model"),
        stderr=lambda line: sys.stderr.write(line + "\n"),
    )
    async for message in query(prompt=cfg["prompt"], options=options):
        line = record(message)
        if line is not None:
            emit(line)


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except Exception as e:  # the record so far is still the evidence
        sys.stderr.write(f"query() raised: {e!r}\n")
        sys.exit(1)
