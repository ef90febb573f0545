package model

import (
	"strconv"
	"strings"
)

// The agent CLIs do not show their model an MCP tool under its own name: each puts a prefix
// naming the server in front (mcp__<server>__, mcp_<server>_, <server>_), and an MCP tool name
// may hold characters a vendor's API refuses (a dot) or be longer than it takes (64), which each
// CLI mends its own way. The functions below make the name one CLI makes of prefix+tool, as
// that CLI's source does; exposedName tries them all, so the scripted model finds the tool it
// was asked for whatever the agent called it, and the adapters use them where the CLI's
// settings must name the tool as the CLI does.

// SanitizedName is prefix+tool with every character outside [A-Za-z0-9_-] replaced by "_", as
// Claude Code 2.1.332 names an MCP tool (mcp__<server>__<tool>, each part so replaced: Hn and
// ur in the bun module at byte 328682000 and 329702104 of its linux-x64 executable) and so does
// opencode 1.18.33 (<server>_<tool>: McpCatalog's sanitize and toolName, line 445654 of
// `strings` on its linux-x64 executable). Neither cuts a long name short.
func SanitizedName(prefix, tool string) string {
	return prefix + replaceOutside(tool, "_-")
}

// GeminiName is the name Gemini CLI 0.61.0 gives an MCP tool (generateValidName,
// bundle/chunk-JDPZ4CE3.js:274891-274903, called with mcp_<server>_<tool>): characters outside
// [A-Za-z0-9_.:-] replaced by "_", and a name of more than 63 characters cut to its first 30
// and last 30 with "..." between.
func GeminiName(prefix, tool string) string {
	n := prefix + replaceOutside(tool, "_.:-")
	if len(n) > 63 {
		n = n[:30] + "..." + n[len(n)-30:]
	}
	return n
}

// QwenName is the name Qwen Code 0.24.4 gives an MCP tool (normalizeToolNameForProvider,
// chunks/chunk-WZAD4ZNJ.js:14-21, called with mcp__<server>__<tool> by
// chunks/chunk-2VS5EEXU.js:6328): the name itself when it is at most 63 characters of
// [A-Za-z][A-Za-z0-9_-]*; else the name with characters outside [A-Za-z0-9_-] replaced by "_",
// cut to leave room for "_" and a hash of the whole name (FNV-1a, base 36, seven digits), then
// that suffix. A dot alone is enough for the hash: math.add is mcp__<server>__math_add_<hash>.
func QwenName(prefix, tool string) string {
	n := prefix + tool
	if len(utf16Units(n)) <= 63 && providerSafe(n) {
		return n
	}
	s := replaceOutside(n, "_-")
	if s == "" || !isLetter(s[0]) {
		s = "tool_" + s
	}
	suffix := "_" + qwenHash(n)
	if limit := 63 - len(suffix); len(s) > limit {
		s = s[:limit]
	}
	return s + suffix
}

// CopilotName is the name GitHub Copilot CLI 1.0.102 gives an MCP tool, <server>-<tool>, as
// running it shows (its MCP layer is in the native part of its executable, whose source does not
// ship): math.add is <server>-math-add, every character outside [A-Za-z0-9_-] taken to become
// "-" as the dot does, and the name is cut at 64 characters, with no hash or mark.
func CopilotName(prefix, tool string) string {
	n := prefix + replaceOutsideBy(tool, "_-", "-")
	return n[:min(len(n), 64)]
}

// codexHashLen is the length of the hash Codex puts at the end of a name it had to shorten or
// tell apart from another: "_" and the first 12 hex digits of a SHA-1
// (callable_name_hash_suffix, codex-rs/codex-mcp/src/tools.rs).
const codexHashLen = 13

// codexShortened says whether n is the name Codex makes of prefix+tool when that is too long
// (more than 64 characters with the "__" between its namespace and name) or clashes with
// another: the tool's name, its characters outside [A-Za-z0-9_-] (or [A-Za-z0-9_]: it depends
// on the version) replaced by "_", cut short, then "_" and 12 hex digits of a SHA-1 of the
// tool's whole identity, which only Codex knows (fit_callable_parts_with_hash and
// unique_callable_parts, codex-rs/codex-mcp/src/tools.rs). What is left of the name must begin
// the tool's. Codex 0.171.0, the version its cell pins, does neither, as its cell shows: it
// offers mcp__<server>__<tool> with every character outside [A-Za-z0-9_] replaced by "_", the
// hyphen too (get-sum is mcp__<server>__get_sum), and a long name whole.
func codexShortened(n, prefix, tool string) bool {
	if len(n) < len(prefix)+codexHashLen+1 || n[len(n)-codexHashLen] != '_' || !isHex(n[len(n)-codexHashLen+1:]) {
		return false
	}
	kept := n[len(prefix) : len(n)-codexHashLen]
	return strings.HasPrefix(replaceOutside(tool, "_-"), kept) || strings.HasPrefix(replaceOutside(tool, "_"), kept)
}

// madeOf finds the prefix behind which an agent made n of tool: all of n before a separator
// (or nothing), with the rest the tool as it is or what one of the CLIs makes of it (Codex
// 0.171.0's, which keeps no hyphen, included). It returns the prefix's length, the shortest that
// fits, or -1.
func madeOf(n, tool string) int {
	for i := 0; i < len(n); i++ {
		if i > 0 && !strings.ContainsRune("_-.:/", rune(n[i-1])) {
			continue
		}
		p := n[:i]
		if p+tool == n || SanitizedName(p, tool) == n || p+replaceOutside(tool, "_") == n || GeminiName(p, tool) == n || QwenName(p, tool) == n ||
			CopilotName(p, tool) == n || codexShortened(n, p, tool) {
			return i
		}
	}
	return -1
}

// replaceOutside replaces every character of s but ASCII letters, digits and those of keep by
// "_": one for each UTF-16 code unit, as the JavaScript CLIs' regular expressions do (Codex's
// Rust puts one for a character outside the BMP where they put two).
func replaceOutside(s, keep string) string { return replaceOutsideBy(s, keep, "_") }

// replaceOutsideBy is replaceOutside with by in place of "_".
func replaceOutsideBy(s, keep, by string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r < 0x80 && (isLetter(byte(r)) || r >= '0' && r <= '9' || strings.ContainsRune(keep, r)):
			b.WriteRune(r)
		case r >= 0x10000:
			b.WriteString(by + by)
		default:
			b.WriteString(by)
		}
	}
	return b.String()
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// providerSafe is Qwen Code's /^[A-Za-z][A-Za-z0-9_-]*$/.
func providerSafe(s string) bool {
	return s != "" && isLetter(s[0]) && replaceOutside(s, "_-") == s
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if !(s[i] >= '0' && s[i] <= '9' || s[i] >= 'a' && s[i] <= 'f') {
			return false
		}
	}
	return s != ""
}

// qwenHash is Qwen Code's stableToolNameHash: 32-bit FNV-1a over the name's UTF-16 code units,
// in base 36, padded to seven digits.
func qwenHash(s string) string {
	h := uint32(2166136261)
	for _, u := range utf16Units(s) {
		h ^= uint32(u)
		h *= 16777619
	}
	d := strconv.FormatUint(uint64(h), 36)
	return strings.Repeat("0", max(0, 7-len(d))) + d
}

func utf16Units(s string) []uint16 {
	var out []uint16
	for _, r := range s {
		if r >= 0x10000 {
			r -= 0x10000
			out = append(out, uint16(0xD800+(r>>10)), uint16(0xDC00+(r&0x3FF)))
			continue
		}
		out = append(out, uint16(r))
	}
	return out
}
