package hostile

import "strings"

// The wire-shape tools answer with what a JSON parser may not give back as it came: each writes
// its answer (WireAnswer) by hand, and toolscore must carry it byte for byte.
var wireTools = []Tool{
	{"odd-id", "Answers with its request's id written as a decimal: 3.0 for 3 (the same number)."},
	{"big-number", "Answers with the integer 12345678901234567890123, past what a float64 holds exactly."},
	{"inf-number", "Answers with the number 1e400, past what a float64 holds at all."},
	{"bad-utf8", "Answers with strings holding bytes that are not UTF-8."},
	{"bom", "Answers with strings that start with a byte order mark."},
	{"crlf", "Answers with a frame that ends in CRLF, and text with CRLF line breaks."},
}

func init() { Tools = append(Tools, wireTools...) }

// WireAnswer is the exact frame (its line ending included) a wire-shape tool writes to request
// id, as the request wrote the id; ok is false for any other tool.
func WireAnswer(tool, id string) (frame string, ok bool) {
	answer := func(id, text, structured string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"result":{"content":[{"type":"text","text":"` + text +
			`"}],"structuredContent":` + structured + `}}`
	}
	switch tool {
	case "odd-id":
		if id != "" && strings.Trim(id, "0123456789") == "" {
			id += ".0"
		}
		return answer(id, "ACC-4471: balance 40,718.77 USD as of 2026-03-31",
			`{"account_id":"ACC-4471","balance_minor":4071877,"currency":"USD","as_of":"2026-03-31"}`) + "\n", true
	case "big-number":
		return answer(id, "12345678901234567890123", `{"n":12345678901234567890123}`) + "\n", true
	case "inf-number":
		return answer(id, "1e400", `{"n":1e400,"m":-1e400}`) + "\n", true
	case "bad-utf8":
		return answer(id, "bad \xff\xfe bytes, a cut \xe2\x82 rune and 42", "{\"s\":\"bad \xc3 byte\",\"n\":42}") + "\n", true
	case "bom":
		return answer(id, "\ufeffwith a BOM", `{"s":"\ufeffwith a BOM"}`) + "\n", true
	case "crlf":
		return answer(id, `line one\r\nline two\r\n`, `{"s":"a\r\nb"}`) + "\r\n", true
	}
	return "", false
}
