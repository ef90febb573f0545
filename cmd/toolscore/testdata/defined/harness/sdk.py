"""An SDK-level adapter written for toolscore's tests, as a user would write one: plain python3,
MCP by hand over the server's pipes, on the client contract (CONTRIBUTING.md).

It lists the tools before it calls. When the tool publishes an outputSchema it checks the
result's structuredContent against it (present, of the schema's type, its required fields there,
each declared field of its type) and raises SchemaError on the first mismatch; without a schema
it returns the result as it came."""

import json
import os
import subprocess
import sys

LIBRARY = "acme-harness 0.1.0"


def main():
    # The install step (install: in defined.yaml) leaves this file beside the adapter.
    if not os.path.exists(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "installed.txt")):
        sys.exit("installed.txt is missing: the install step did not run")
    server = json.loads(os.environ["TOOLSCORE_SERVER"])
    tool = os.environ["TOOLSCORE_TOOL"]
    arguments = json.loads(os.environ.get("TOOLSCORE_ARGUMENTS") or "{}")
    proc = subprocess.Popen(server, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    rpc = Rpc(proc)
    rpc.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                               "clientInfo": {"name": "acme-harness", "version": "0.1.0"}})
    rpc.notify("notifications/initialized")
    listed = rpc.request("tools/list", {})
    schema = None
    for t in listed.get("result", {}).get("tools", []):
        if t.get("name") == tool:
            schema = t.get("outputSchema")
    reply = rpc.request("tools/call", {"name": tool, "arguments": arguments})
    proc.stdin.close()
    proc.wait()
    out = {"client": "acme-harness", "library": LIBRARY, "listed": True}
    if "error" in reply:
        err = reply["error"]
        out["raised"] = {"class": "McpError", "code": err.get("code"), "message": err.get("message", "")}
    else:
        result = reply["result"]
        problem = None
        if schema is not None and not result.get("isError"):
            problem = check(result, schema)
        if problem is not None:
            out["raised"] = {"class": "SchemaError", "message": problem}
        else:
            out["returned"] = result
    print(json.dumps(out))


def check(result, schema):
    """The first way result's structuredContent breaks schema, or None."""
    if "structuredContent" not in result:
        return "the tool has an outputSchema but returned no structuredContent"
    return check_value("structuredContent", result["structuredContent"], schema)


TYPES = {"object": dict, "array": list, "string": str, "boolean": bool, "number": (int, float), "integer": int}


def check_value(where, value, schema):
    want = schema.get("type")
    if want in TYPES and (not isinstance(value, TYPES[want]) or (want in ("integer", "number") and isinstance(value, bool))):
        return "%s: expected %s, got %s" % (where, want, type(value).__name__)
    if want == "object":
        for name in schema.get("required", []):
            if name not in value:
                return "%s: %s is required" % (where, name)
        for name, sub in schema.get("properties", {}).items():
            if name in value:
                problem = check_value(where + "." + name, value[name], sub)
                if problem:
                    return problem
    return None


class Rpc:
    """Newline-delimited JSON-RPC over the server's pipes."""

    def __init__(self, proc):
        self.proc = proc
        self.next_id = 1

    def notify(self, method, params=None):
        msg = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            msg["params"] = params
        self.proc.stdin.write(json.dumps(msg) + "\n")
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
