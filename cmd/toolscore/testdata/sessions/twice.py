"""A client adapter for toolscore's tests that starts the server twice in one run: one session
makes the call, as raw would (the result returned as it came, an error raised), and a probe
session lists the tools and calls nothing, started before the call and held open through it
(probe-first) or started after it (probe-after)."""

import json
import os
import subprocess
import sys


def session(server):
    proc = subprocess.Popen(server, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    rpc = Rpc(proc)
    rpc.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                               "clientInfo": {"name": "twice", "version": "0.1.0"}})
    rpc.notify("notifications/initialized")
    rpc.request("tools/list", {})
    return proc, rpc


def close(proc):
    proc.stdin.close()
    proc.wait()


def main():
    mode = sys.argv[1]
    server = json.loads(os.environ["TOOLSCORE_SERVER"])
    tool = os.environ["TOOLSCORE_TOOL"]
    arguments = json.loads(os.environ.get("TOOLSCORE_ARGUMENTS") or "{}")
    if mode == "probe-first":
        probe, _ = session(server)
    proc, rpc = session(server)
    reply = rpc.request("tools/call", {"name": tool, "arguments": arguments})
    close(proc)
    if mode == "probe-first":
        close(probe)
    else:
        close(session(server)[0])
    out = {"client": mode, "library": "twice 0.1.0", "listed": True}
    if "error" in reply:
        err = reply["error"]
        out["raised"] = {"class": "McpError", "code": err.get("code"), "message": err.get("message", "")}
    else:
        out["returned"] = reply["result"]
    print(json.dumps(out))


class Rpc:
    """Newline-delimited JSON-RPC over the server's pipes."""

    def __init__(self, proc):
        self.proc = proc
        self.next_id = 1

    def notify(self, method):
        self.proc.stdin.write(json.dumps({"jsonrpc": "2.0", "method": method}) + "\n")
        self.proc.stdin.flush()

    def request(self, method, params):
        id_ = self.next_id
        self.next_id += 1
        self.proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": id_, "method": method, "params": params}) + "\n")
        self.proc.stdin.flush()
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise EOFError("the server closed its output before answering " + method)
            msg = json.loads(line)
            if msg.get("id") == id_ and "method" not in msg:
                return msg


main()
