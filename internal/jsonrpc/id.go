package jsonrpc

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
)

// IDKey is a JSON-RPC id as a map key, by value rather than by spelling, as the Go SDKs match
// ids: a number by its exact numeric value (3, 3.0, 3e0 and 30e-1 are one key, "3"), a string by
// what it decodes to, written back as a JSON string (so the string "3" is never the number 3).
// It is "" for no id and for null; an id of any other type is keyed by its compact JSON.
func IDKey(id []byte) string {
	id = bytes.TrimSpace(id)
	if len(id) == 0 || string(id) == "null" {
		return ""
	}
	switch c := id[0]; {
	case c == '"':
		if bytes.IndexByte(id, '\\') < 0 && json.Valid(id) {
			return string(id) // no escape: already as it decodes
		}
		var s string
		if json.Unmarshal(id, &s) == nil {
			b, _ := json.Marshal(s)
			return string(b)
		}
	case c >= '1' && c <= '9' && digits(string(id)) && len(id) <= maxPlain:
		return string(id) // an integer, as almost every id is
	case c == '-' || c >= '0' && c <= '9':
		if k, ok := numberKey(string(id)); ok {
			return k
		}
	}
	var b bytes.Buffer
	if json.Compact(&b, id) != nil {
		return string(id)
	}
	return b.String()
}

// maxPlain bounds the integers numberKey writes out in full; a larger exponent is written as one.
const maxPlain = 64

// numberKey writes a JSON number in one spelling per value: an integer of up to maxPlain digits
// in full ("-12", "300"), any other number as its significant digits and a power of ten
// ("35e-1" for 3.5, "1e400"). ok is false for anything that is not a JSON number.
func numberKey(s string) (string, bool) {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	mant, exp, hasExp := strings.Cut(strings.ToLower(s), "e")
	whole, frac, hasFrac := strings.Cut(mant, ".")
	if !digits(whole) || len(whole) > 1 && whole[0] == '0' || hasFrac && !digits(frac) {
		return "", false
	}
	e := 0
	if hasExp {
		n, err := strconv.Atoi(exp)
		if unsigned := strings.TrimLeft(exp, "+-"); err != nil || len(exp)-len(unsigned) > 1 || !digits(unsigned) || n > 1e9 || n < -1e9 {
			return "", false // not a number, or an exponent no id needs (keyed as written)
		}
		e = n
	}
	// The value is d × 10^e, d without leading or trailing zeros.
	d := strings.TrimLeft(whole+frac, "0")
	e -= len(frac)
	trimmed := strings.TrimRight(d, "0")
	e += len(d) - len(trimmed)
	d = trimmed
	if d == "" {
		return "0", true // -0 and 0.0e7 are 0
	}
	sign := ""
	if neg {
		sign = "-"
	}
	if e >= 0 && len(d)+e <= maxPlain {
		return sign + d + strings.Repeat("0", e), true
	}
	return sign + d + "e" + strconv.Itoa(e), true
}

func digits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
