"""An SDK-level adapter written for toolscore's tests (inject_test.go): a harness that keeps the
words of a tool result from its model by handing over structuredContent alone, the text blocks
dropped. Plain python3, MCP by hand over the server's pipes, on the client contract."""

import json
import os
import subprocess


def main():
    server = json.loads(os.environ["TOOLSCORE_SERVER"])
    proc = subprocess.Popen(server, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    ids = iter(range(1, 100))

    def send(msg):
        proc.stdin.write(json.dumps(msg) + "\n")
        proc.stdin.flush()

    def request(method, params):
        id_ = next(ids)
        send({"jsonrpc": "2.0", "id": id_, "method": method, "params": params})
        while True:
            msg = json.loads(proc.stdout.readline())
            if msg.get("id") == id_ and "method" not in msg:
                return msg

    request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                           "clientInfo": {"name": "textless", "version": "0.1.0"}})
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    reply = request("tools/call", {"name": os.environ["TOOLSCORE_TOOL"],
                                   "arguments": json.loads(os.environ.get("TOOLSCORE_ARGUMENTS") or "{}")})
    proc.stdin.close()
    proc.wait()
    out = {"client": "textless", "library": "textless 0.1.0", "listed": False}
    if "error" in reply:
        out["raised"] = {"class": "McpError", "code": reply["error"].get("code"), "message": reply["error"].get("message", "")}
    else:
        result = dict(reply["result"])
        result["content"] = []
        out["returned"] = result
    print(json.dumps(out))


main()
