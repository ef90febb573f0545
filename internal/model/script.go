package model

import (
	"encoding/json"
	"strings"
)

// Script is what the scripted model does: call Tool (the server's name for it; the agent may
// expose it under a prefixed name such as mcp__<server>__<tool>) with Arguments, then answer.
type Script struct {
	Tool      string
	Arguments map[string]any
}

// seen is a request in the form every vendor's decoder reads it into: all the script looks at.
type seen struct {
	// Result is the result of the scripted call, when the request carries it.
	Result *result
	// Tool is the name the agent exposes the scenario's tool under, when it offers it.
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
	switch {
	case s.Result != nil:
		return step{Text: answer(*s.Result)}
	case s.Tool != "":
		args := sc.Arguments
		if args == nil {
			args = map[string]any{}
		}
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
