package model

import "testing"

// The tool names of cmd/toolscore/testdata/toolnames: a hyphen, a dot, more than 64 characters.
const (
	hyphened = "get-sum"
	dotted   = "math.add"
	long     = "sum_of_two_numbers_with_a_name_longer_than_sixty_four_characters_in_all"
)

// Each CLI's name for the three tools, as the CLI's own function gives it: Qwen Code's from
// normalizeToolNameForProvider of 0.24.4 (chunks/chunk-WZAD4ZNJ.js) run under node, Gemini CLI's
// from generateValidName of 0.61.0 likewise (a character outside the BMP is two code units to
// both); Copilot CLI's as the model was offered them in its cell (TestAgentToolNamesOnDocker).
func TestAgentNames(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{SanitizedName("mcp__scenario__", hyphened), "mcp__scenario__get-sum"},
		{SanitizedName("mcp__scenario__", dotted), "mcp__scenario__math_add"},
		{SanitizedName("scenario_", long), "scenario_" + long},
		{GeminiName("mcp_scenario_", hyphened), "mcp_scenario_get-sum"},
		{GeminiName("mcp_scenario_", dotted), "mcp_scenario_math.add"},
		{GeminiName("mcp_scenario_", long), "mcp_scenario_sum_of_two_number...n_sixty_four_characters_in_all"},
		{GeminiName("mcp_scenario_", "wéird 𝒳"), "mcp_scenario_w_ird___"},
		{QwenName("mcp__scenario__", hyphened), "mcp__scenario__get-sum"},
		{QwenName("mcp__scenario__", "get_account_balance"), "mcp__scenario__get_account_balance"},
		{QwenName("mcp__scenario__", dotted), "mcp__scenario__math_add_0vljia2"},
		{QwenName("mcp__scenario__", long), "mcp__scenario__sum_of_two_numbers_with_a_name_longer_th_077qbsh"},
		{QwenName("mcp__scenario__", "wéird 𝒳"), "mcp__scenario__w_ird____02lzca2"},
		{CopilotName("scenario-", hyphened), "scenario-get-sum"},
		{CopilotName("scenario-", dotted), "scenario-math-add"},
		{CopilotName("scenario-", long), "scenario-sum_of_two_numbers_with_a_name_longer_than_sixty_four_c"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

// The scripted model finds each tool among the names every agent lists it and the other two
// under, and never takes another tool's name for it where its own is there.
func TestExposedUnderEveryAgentsName(t *testing.T) {
	// Codex's name for the long tool in its later sources: its namespace, the name cut to fit 64
	// with "__" between, "_" and 12 hex digits of a hash only Codex can work out.
	codexLong := "mcp__scenario__" + long[:36] + "_4f0c1e9a22b7"
	agents := map[string]map[string]string{
		"claude-code": {hyphened: "mcp__scenario__get-sum", dotted: "mcp__scenario__math_add", long: "mcp__scenario__" + long},
		// Codex 0.171.0 as its cell shows it; its later sources keep the hyphen and cut a long name.
		"codex":               {hyphened: "mcp__scenario__get_sum", dotted: "mcp__scenario__math_add", long: "mcp__scenario__" + long},
		"codex, later source": {hyphened: "mcp__scenario__get-sum", dotted: "mcp__scenario__math_add", long: codexLong},
		"gemini-cli": {hyphened: "mcp_scenario_get-sum", dotted: "mcp_scenario_math.add",
			long: "mcp_scenario_sum_of_two_number...n_sixty_four_characters_in_all"},
		"qwen-code": {hyphened: "mcp__scenario__get-sum", dotted: "mcp__scenario__math_add_0vljia2",
			long: "mcp__scenario__sum_of_two_numbers_with_a_name_longer_th_077qbsh"},
		"opencode": {hyphened: "scenario_get-sum", dotted: "scenario_math_add", long: "scenario_" + long},
		"copilot-cli": {hyphened: "scenario-get-sum", dotted: "scenario-math-add",
			long: "scenario-sum_of_two_numbers_with_a_name_longer_than_sixty_four_c"},
	}
	for agent, names := range agents {
		listed := []string{"ToolSearch", names[hyphened], names[dotted], names[long]}
		for tool, want := range names {
			if got := Exposed(listed, tool); got != want {
				t.Errorf("%s: %s exposed as %q, want %q", agent, tool, got, want)
			}
		}
	}
	for _, c := range []struct {
		names      []string
		tool, want string
	}{
		// The shortest prefix wins: mcp__s__sum is sum's name, mcp__s__get_sum another tool's.
		{[]string{"mcp__s__get_sum", "mcp__s__sum"}, "sum", "mcp__s__sum"},
		{[]string{"mcp__s__math.add", "mcp__s__add"}, "add", "mcp__s__add"},
		{[]string{"scenario_get-sum", "scenario_sum"}, "sum", "scenario_sum"},
		// An agent that keeps the name as it is, behind any separator.
		{[]string{"scenario_get balance", "scenario_get_balance"}, "get balance", "scenario_get balance"},
		{[]string{"srv/get-sum"}, hyphened, "srv/get-sum"},
		// A hash alone is no name of a tool, and another tool's name cut short is not this one's.
		{[]string{"mcp__scenario___4f0c1e9a22b7"}, long, ""},
		{[]string{"mcp__scenario__" + "product_of_two_numbers_with_a_long_n" + "_4f0c1e9a22b7"}, long, ""},
		{[]string{"mcp_scenario_sum_of_two_number...n_sixty_four_characters_in_any"}, long, ""},
	} {
		if got := Exposed(c.names, c.tool); got != c.want {
			t.Errorf("Exposed(%q, %q) = %q, want %q", c.names, c.tool, got, c.want)
		}
	}
}
