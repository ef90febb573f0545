package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// checkAdapter is a client adapter written for these tests, not by toolscore: Python speaking
// raw JSON-RPC to the server command on its pipes, validating as a strict library would (a
// balance_minor that is no number is an error). Its argument breaks the contract on purpose.
const checkAdapter = `import json, os, subprocess, sys, time

mode = sys.argv[1]
if mode == "silent":
    sys.exit(0)
if mode == "sleep":
    time.sleep(3600)
if mode == "text":
    print("balance: 40718.77")
    sys.exit(0)
if mode == "nooutcome":
    print(json.dumps({"client": "check-test", "library": "rawpy 0.1", "listed": False}))
    sys.exit(0)
if mode == "fails":
    print("cannot reach the server", file=sys.stderr)
    sys.exit(3)
# What a hostile adapter can print: workflow commands, ANSI and OSC escapes, bidi overrides,
# and text of any size.
HOSTILE = "::error title=pwn::owned\n::warning::w\x1b[2J\x1b]0;title\x07\u202egnp.exe\u202c "
if mode == "hostilefail":
    print(HOSTILE * 20000)
    print(HOSTILE * 20000, file=sys.stderr)
    sys.exit(3)

server = subprocess.Popen(json.loads(os.environ["TOOLSCORE_SERVER"]), stdin=subprocess.PIPE, stdout=subprocess.PIPE)

def send(msg):
    server.stdin.write((json.dumps(msg) + "\n").encode())
    server.stdin.flush()

def answer(id):
    while True:
        msg = json.loads(server.stdout.readline())
        if msg.get("id") == id:
            return msg

send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "check-test", "version": "0.1"}}})
answer(1)
send({"jsonrpc": "2.0", "method": "notifications/initialized"})
send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": os.environ["TOOLSCORE_TOOL"], "arguments": json.loads(os.environ["TOOLSCORE_ARGUMENTS"])}})
result = answer(2).get("result", {})
server.stdin.close()
server.wait()

obs = {"client": "check-test", "library": "rawpy 0.1", "listed": False}
if mode == "agent":
    # An agent would put the result in front of its model; this one shows the model the
    # structured content as text, and answers with the prompt's account.
    text = json.dumps(result.get("structuredContent"))
    obs["agent"] = {"model_view": {"kind": "text", "excerpt": text, "schema_sent": False,
        "block": {"type": "tool_result", "content": text}}, "answer": "asked: " + os.environ["TOOLSCORE_PROMPT"]}
    print(json.dumps(obs))
    sys.exit(0)
if mode == "hostile":
    obs["client"], obs["library"] = HOSTILE * 3, HOSTILE
    obs["raised"] = {"class": HOSTILE, "message": HOSTILE * 20000}
    print(json.dumps(obs))
    sys.exit(0)
if mode == "hostilehanded":
    obs["handed"] = {"kind": "text", "excerpt": HOSTILE * 20000}
    print(json.dumps(obs))
    sys.exit(0)
if mode == "nolibrary":
    del obs["library"]
if mode == "noclient":
    del obs["client"]
minor = (result.get("structuredContent") or {}).get("balance_minor")
if mode == "nomessage":
    obs["raised"] = {"class": "ValueError"}
elif minor is not None and not isinstance(minor, int):
    obs["raised"] = {"class": "ValueError", "message": "balance_minor is not a number: %r" % (minor,)}
else:
    obs["returned"] = result
print(json.dumps(obs))
`

// TestCheckClient runs check-client on an adapter that keeps the contract and on variants that
// break it, each with the one complaint it must get, on both runs.
func TestCheckClient(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not on PATH: the test's adapter is Python")
	}
	dir := t.TempDir()
	adapter := filepath.Join(dir, "adapter.py")
	if err := os.WriteFile(adapter, []byte(checkAdapter), 0o644); err != nil {
		t.Fatal(err)
	}
	// both is what check-client prints when both runs break the contract with these lines.
	both := func(lines ...string) string {
		var b strings.Builder
		for _, run := range []string{"clean, hidden: ", "type-swap, published: "} {
			for _, l := range lines {
				b.WriteString(run + l + "\n")
			}
		}
		return b.String() + "the client contract does not hold\n"
	}
	for _, c := range []struct {
		name string
		args []string
		want string
		code int
	}{
		{"holds", []string{"--", "python3", adapter, "good"},
			"clean, hidden: returned, graded passed (client check-test, library rawpy 0.1)\n" +
				"type-swap, published: raised: ValueError: balance_minor is not a number: '4071877', graded threw (client check-test, library rawpy 0.1)\n" +
				"the client contract holds\n", 0},
		{"relative path", []string{"--", "python3", "adapter.py", "good"}, "the client contract holds\n", 0},
		{"prints nothing", []string{"--", "python3", adapter, "silent"}, both(`no JSON line on stdout (stdout was: "")`), 1},
		{"not JSON", []string{"--", "python3", adapter, "text"},
			both(`no JSON line on stdout: its last line is not one JSON object (offset 0: invalid character 'b' looking for the beginning of a value; stdout was: "balance: 40718.77\n")`), 1},
		{"no outcome", []string{"--", "python3", adapter, "nooutcome"},
			both(`the JSON line has neither "returned" nor "raised": it says what the library returned, or what it raised`), 1},
		{"no client", []string{"--", "python3", adapter, "noclient"}, both(`the JSON line has no "client"`), 1},
		{"no library", []string{"--", "python3", adapter, "nolibrary"}, both(`the JSON line has no "library" (its name and version)`), 1},
		{"raised without message", []string{"--", "python3", adapter, "nomessage"}, both(`"raised" without "message"`), 1},
		{"exit status, no line", []string{"--", "python3", adapter, "fails"},
			both("exited with status 3 (the contract: exit 0); its stderr ended: cannot reach the server",
				`no JSON line on stdout (stdout was: ""); its stderr ended: cannot reach the server`), 1},
		{"not found", []string{"--", "no-such-adapter-here"},
			both(`the adapter could not be started: starting "no-such-adapter-here": exec: "no-such-adapter-here": executable file not found in $PATH`), 1},
		{"agent", []string{"--agent", "--", "python3", adapter, "agent"},
			"clean, hidden: the model got text, its answer no-value, graded altered (client check-test, library rawpy 0.1)\n" +
				"type-swap, published: the model got text, its answer no-value, graded altered (client check-test, library rawpy 0.1)\n" +
				"the client contract holds\n", 0},
		{"not an agent", []string{"--agent", "--", "python3", adapter, "good"},
			both(`the JSON line has no "agent" (what the model saw): it is not an agent adapter`), 1},
		// Only an agent is given the prompt: this one fails without it.
		{"agent unchecked as one", []string{"--", "python3", adapter, "agent"},
			both("exited with status 1 (the contract: exit 0); its stderr ended: KeyError: 'TOOLSCORE_PROMPT'",
				`no JSON line on stdout (stdout was: ""); its stderr ended: KeyError: 'TOOLSCORE_PROMPT'`), 1},
		{"hangs", []string{"--timeout", "2s", "--", "python3", adapter, "sleep"}, both("hung after 2s: no JSON line on stdout by then"), 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			stdout, stderr, code := toolscore(t, dir, append([]string{"check-client"}, c.args...)...)
			if code != c.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, c.code, stderr)
			}
			if c.name == "relative path" {
				if !strings.HasSuffix(stdout, c.want) {
					t.Errorf("stdout:\n%s\nwant it to end with:\n%s", stdout, c.want)
				}
				return
			}
			if stdout != c.want {
				t.Errorf("stdout:\n%s\nwant:\n%s", stdout, c.want)
			}
		})
	}
}

// TestCheckClientHostile: what an adapter prints reaches the terminal as the reports' terminal
// text does (no workflow command, ANSI or OSC escape, or bidi override) and each line is
// bounded, whether the adapter keeps the contract or breaks it.
func TestCheckClientHostile(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not on PATH: the test's adapter is Python")
	}
	dir := t.TempDir()
	adapter := filepath.Join(dir, "adapter.py")
	if err := os.WriteFile(adapter, []byte(checkAdapter), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		mode, want, last string
		code             int
	}{
		{"hostile", "raised: :\u200d:error title=pwn:\u200d:owned :\u200d:warning:\u200d:w\uFFFD[2J\uFFFD]0;title\uFFFD\uFFFDgnp.exe\uFFFD", "the client contract holds", 0},
		{"hostilehanded", "handed the model text: :\u200d:error title=pwn:\u200d:owned :\u200d:warning", "the client contract holds", 0},
		{"hostilefail", "exited with status 3 (the contract: exit 0); its stderr ended: :\u200d:warning:\u200d:w\uFFFD[2J", "the client contract does not hold", 1},
	} {
		t.Run(c.mode, func(t *testing.T) {
			t.Parallel()
			stdout, stderr, code := toolscore(t, dir, "check-client", "--", "python3", adapter, c.mode)
			if code != c.code {
				t.Errorf("exit %d, want %d; stderr:\n%.2000s", code, c.code, stderr)
			}
			if !strings.Contains(stdout, c.want) || !strings.HasSuffix(stdout, c.last+"\n") {
				t.Errorf("stdout lacks %q or does not end %q:\n%.3000q", c.want, c.last, stdout)
			}
			for _, l := range strings.Split(strings.TrimSuffix(stdout, "\n"), "\n") {
				if len(l) > 2000 {
					t.Errorf("a line of %d bytes: %.200q", len(l), l)
				}
				if strings.Contains(l, "::") {
					t.Errorf("a line carries a workflow command: %.200q", l)
				}
				if i := strings.IndexFunc(l, func(r rune) bool { return r < 0x20 || r == 0x7f || r == '\u202e' || r == '\u202c' }); i >= 0 {
					t.Errorf("a line carries the control %q: %.200q", l[i:i+1], l)
				}
			}
		})
	}
}

// TestCheckClientUsage: no command, or a bad flag, is a usage error, and says so: a --timeout
// that is not positive names the flag and the value given, instead of exiting 2 in silence.
func TestCheckClientUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"check-client"}, "toolscore check-client: no adapter command given after --"},
		{[]string{"check-client", "--"}, "toolscore check-client: no adapter command given after --"},
		{[]string{"check-client", "--bogus", "--", "true"}, "flag provided but not defined: -bogus"},
		{[]string{"check-client", "--timeout", "0s", "--", "true"}, "toolscore check-client: --timeout must be positive (how long each run may take before it counts as hung), got 0s"},
		{[]string{"check-client", "--timeout", "-1s", "--", "true"}, "toolscore check-client: --timeout must be positive (how long each run may take before it counts as hung), got -1s"},
	} {
		if _, stderr, code := toolscore(t, t.TempDir(), c.args...); code != 2 || !strings.Contains(stderr, c.says) {
			t.Errorf("%q: exit %d, want 2 saying %q; stderr:\n%s", c.args, code, c.says, stderr)
		}
	}
}
