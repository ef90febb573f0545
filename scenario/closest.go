package scenario

import (
	"fmt"
	"strings"
	"unicode"
)

// Closest is the name of known nearest to name (by edit distance, case and - or _ aside), or ""
// when none is near enough to be a slip of the keyboard.
func Closest[T ~string](name string, known []T) string {
	if !strings.ContainsFunc(name, unicode.IsLetter) {
		return "" // a version or a date: another one is no slip of the keyboard
	}
	fold := func(s string) string { return strings.ReplaceAll(strings.ToLower(s), "_", "-") }
	best, bestD := "", 0
	for _, k := range known {
		n := string(k)
		d := distance(fold(name), fold(n))
		if best == "" || d < bestD {
			best, bestD = n, d
		}
	}
	if bestD > max(2, len(name)/3) {
		return ""
	}
	return best
}

// distance is the Levenshtein distance between a and b, in runes.
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur := make([]int, len(rb)+1)
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(rb)]
}

// unknownName says that name is no known kind, suggesting the closest known one: "unknown fault
// "corupt"; did you mean "corrupt"? (known: ...)".
func unknownName[T ~string](kind, name string, known []T) string {
	msg := fmt.Sprintf("unknown %s %q", kind, name)
	if near := Closest(name, known); near != "" {
		msg += fmt.Sprintf("; did you mean %q?", near)
	}
	return msg + knownList(known)
}
