package model

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Script is what the scripted model does: call Tool (the server's name for it; the agent may
// expose it under a prefixed name such as mcp__<server>__<tool>) with Arguments, then answer.
//
// Retries is how many times it calls the tool again after a result that failed (see failed),
// before it answers: 0, the default, answers from the first result, as a model that does not
// retry. With it, what the agent does with a model that tries again is measured: the calls it
// makes on the wire, and whether its own client layer adds tries of its own.
type Script struct {
	Tool      string
	Arguments map[string]any
	Retries   int
}

// TryID is the id of the scripted model's try n (from 1) of the call, base being its vendor's
// fixed id: the first try has the fixed id itself (the one the agents' graders look for), each
// try after it the id with its number ("toolu_toolscore_call_2").
func TryID(base string, n int) string {
	if n <= 1 {
		return base
	}
	return fmt.Sprintf("%s_%d", base, n)
}

// lastTry finds the result of the last try the request carries, find being the vendor's
// lookup of the result of a call by its id; tries is how many tries it carries results of.
func lastTry(base string, find func(id string) *result) (last *result, tries int) {
	for n := 1; ; n++ {
		r := find(TryID(base, n))
		if r == nil {
			return last, n - 1
		}
		last = r
	}
}

// failed says whether a result failed, for a script that tries again: the agent marked it an
// error (an API with an error flag: Anthropic's is_error, Gemini's error response), or, on an
// API without one (Chat Completions, Responses), its text says so: it starts with "error" in
// any case, or carries the MCP result's "isError":true as the agent passed it on.
func failed(r result) bool {
	text := strings.TrimSpace(r.Text)
	return r.IsError || strings.HasPrefix(strings.ToLower(text), "error") ||
		strings.Contains(text, `"isError":true`) || strings.Contains(text, `"isError": true`)
}

// seen is a request in the form every vendor's decoder reads it into: all the script looks at.
type seen struct {
	// Result is the result of the scripted call's last try, when the request carries it, and
	// Tries how many tries it carries results of.
	Result *result
	Tries  int
	// Tool is the name the agent exposes the scenario's tool under, when it offers it (with a
	// result: the name the first try called it by, which a try after it calls again).
	Tool string
	// Search is the vendor's call of its tool search that loads the tool, when the tool is
	// deferred behind one and not loaded yet.
	Search *step
}

// result is a tool result as the model was shown it: its text, and whether the agent marked it
// as a failure.
type result struct {
	Text    string
	IsError bool
}

// step is what the scripted model does in one turn: call Tool with Input (the vendor's tool
// search when Search), or say Text.
type step struct {
	Text   string
	Tool   string
	Input  any
	Search bool
	// Try is the try of the call this step is (see TryID); 0 and 1 are the first.
	Try int
}

func (st step) String() string {
	if st.Tool != "" {
		return "call " + st.Tool
	}
	return "answer"
}

// play is the script, the same for every vendor: answer from the tool's result once it is
// there; before that, call the tool with the scenario's arguments, searching for it first when
// the agent defers it; without the tool, say so.
func (sc Script) play(s seen) step {
	args := sc.Arguments
	if args == nil {
		args = map[string]any{}
	}
	switch {
	case s.Result != nil && s.Tool != "" && s.Tries <= sc.Retries && failed(*s.Result):
		return step{Tool: s.Tool, Input: args, Try: s.Tries + 1}
	case s.Result != nil:
		return step{Text: answer(*s.Result)}
	case s.Tool != "":
		return step{Tool: s.Tool, Input: args}
	case s.Search != nil:
		return *s.Search
	}
	return step{Text: "I have no tool named " + sc.Tool + "."}
}

// answer is the scripted model's final answer: it believes what it was shown, and says it back
// verbatim (so the answer carries exactly the values the model saw).
func answer(s result) string {
	text := strings.TrimSpace(s.Text)
	switch {
	case s.IsError:
		return "The tool call failed: " + text
	case text == "":
		return "The tool returned nothing I can use."
	}
	return "The tool returned: " + text
}

// outTokens is the step's output token count for the usage a response reports.
func outTokens(st step) int {
	if st.Tool != "" {
		b, _ := json.Marshal(st.Input)
		return len(b)/4 + 1
	}
	return len(st.Text)/4 + 1
}

// exposedName finds the name under which the agent exposes tool: the tool itself, the tool
// behind a prefix (mcp__<server>__<tool>, <server>.<tool>, <server>_<tool>...), or the name one
// of the agent CLIs makes of the tool behind a prefix (madeOf: its characters replaced, the name
// cut short, a hash added). Where several names fit, the one with the shortest prefix is the
// tool's: for the tool sum, mcp__s__sum and not mcp__s__get_sum.
func exposedName(names []string, tool string) string {
	best, bestPrefix := "", -1
	for _, n := range names {
		if p := madeOf(n, tool); p >= 0 && (bestPrefix < 0 || p < bestPrefix) {
			best, bestPrefix = n, p
		}
	}
	return best
}

// Exposed is the name under which an agent offers its model the scenario's tool, among the
// names of the tools it offers (see exposedName), or "".
func Exposed(names []string, tool string) string { return exposedName(names, tool) }
