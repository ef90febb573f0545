package fault

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"regexp"
	"sort"
	"strings"
	"time"
	"unicode/utf8"
)

// textBlock returns the index and text of the result's first text content block, or -1.
func textBlock(r map[string]any) (int, string) {
	content, _ := r["content"].([]any)
	for i, c := range content {
		if m, ok := c.(map[string]any); ok && m["type"] == "text" {
			s, _ := m["text"].(string)
			return i, s
		}
	}
	return -1, ""
}

// withText returns a copy of the result whose text block i says s.
func withText(r map[string]any, i int, s string) map[string]any {
	out := clone(r)
	content := out["content"].([]any)
	block := clone(content[i].(map[string]any))
	block["text"] = s
	content[i] = block
	return out
}

// clone copies a result one level deep, and its content list, so a fault never edits the original.
func clone(r map[string]any) map[string]any {
	out := make(map[string]any, len(r))
	for k, v := range r {
		out[k] = v
	}
	if c, ok := out["content"].([]any); ok {
		// An empty list stays a list: append to nil would send it as null.
		out["content"] = append(make([]any, 0, len(c)), c...)
	}
	return out
}

// structured returns the result's structuredContent as an object, or nil.
func structured(r map[string]any) map[string]any {
	m, _ := r["structuredContent"].(map[string]any)
	return m
}

// sortedKeys gives map keys in a fixed order, so seeded choices do not depend on map iteration.
func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func isDate(s string) bool {
	_, err := time.Parse("2006-01-02", s)
	return err == nil
}

// otherDigit changes one digit of s (never the first of a multi-digit run, so widths and leading
// digits hold) to another digit; it returns s unchanged if s has no digit.
func otherDigit(rng *rand.Rand, s string) string {
	var pos []int
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			pos = append(pos, i)
		}
	}
	if len(pos) == 0 {
		return s
	}
	p := pos[rng.IntN(len(pos))]
	if len(pos) > 1 && p == pos[0] {
		p = pos[1+rng.IntN(len(pos)-1)]
	}
	d := byte('0' + (int(s[p]-'0')+1+rng.IntN(9))%10)
	return s[:p] + string(d) + s[p+1:]
}

// perturbNumber returns a different number with the same digit count and sign, as a json.Number.
func perturbNumber(rng *rand.Rand, n json.Number) json.Number {
	return json.Number(otherDigit(rng, n.String()))
}

// numberToken matches numbers in prose, with thousands separators and decimals: 40,718.77.
var numberToken = regexp.MustCompile(`[0-9](?:[0-9,.]*[0-9])?`)

// dateToken matches ISO dates in prose, which corrupt leaves alone like the structured dates.
var dateToken = regexp.MustCompile(`[0-9]{4}-[0-9]{2}-[0-9]{2}`)

func digitsOf(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// respell puts the digits of to into the shape of token (its separators at the same places from
// the right); to must have as many digits as token.
func respell(token, to string) string {
	b := []byte(token)
	j := len(to) - 1
	for i := len(b) - 1; i >= 0 && j >= 0; i-- {
		if b[i] >= '0' && b[i] <= '9' {
			b[i] = to[j]
			j--
		}
	}
	return string(b)
}

// numberTokens lists the number tokens of text outside dates, as [start, end) pairs.
func numberTokens(text string) [][]int {
	dates := dateToken.FindAllStringIndex(text, -1)
	var out [][]int
	for _, loc := range numberToken.FindAllStringIndex(text, -1) {
		inDate := false
		for _, d := range dates {
			if loc[0] < d[1] && d[0] < loc[1] {
				inDate = true
			}
		}
		if !inDate {
			out = append(out, loc)
		}
	}
	return out
}

// cutMidToken cuts text inside a word or number, never at a boundary, so the cut is visible.
func cutMidToken(rng *rand.Rand, text string) string {
	var cuts []int
	for i := 1; i < len(text); i++ {
		if isWordByte(text[i-1]) && isWordByte(text[i]) && utf8.RuneStart(text[i]) {
			cuts = append(cuts, i)
		}
	}
	if len(cuts) == 0 {
		return text[:len(text)/2]
	}
	return text[:cuts[rng.IntN(len(cuts))]]
}

func isWordByte(b byte) bool {
	return b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b == ',' || b == '.'
}

func path(parts ...any) string {
	var b strings.Builder
	for _, p := range parts {
		switch p := p.(type) {
		case int:
			fmt.Fprintf(&b, "[%d]", p)
		case string:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(p)
		}
	}
	return b.String()
}
