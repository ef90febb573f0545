package jsonstream

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math/rand/v2"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

func decodeAny(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	return v, dec.Decode(&v)
}

func digestOf(t *testing.T, s string) [32]byte {
	t.Helper()
	d, err := NewReader(strings.NewReader(s)).Digest()
	if err != nil {
		t.Fatalf("digest of %q: %v", s, err)
	}
	return d
}

// TestDigestMeansDeepEqual: two values have the same digest exactly when encoding/json decodes
// them to deep-equal values: key order, escapes, duplicates and invalid UTF-8 as it treats them.
func TestDigestMeansDeepEqual(t *testing.T) {
	values := []string{
		`{"a":1,"b":[true,false,null]}`, `{"b":[true,false,null],"a":1}`, `{ "a" : 1 , "b" : [ true , false , null ] }`,
		`{"a":1.0,"b":[true,false,null]}`, `{"a":"1","b":[true,false,null]}`, `{"a":1,"b":[true,null,false]}`,
		`{"a":1,"a":2}`, `{"a":2}`, `{"a":2,"a":1}`, `{"a":1}`, `{"a":1,"b":2,"a":3}`, `{"b":2,"a":3}`,
		`"A/é"`, `"\u0041\/\u00e9"`, `"A/e\u0301"`, `"\ud83d\ude00"`, `"😀"`, `"\ud83d"`, `"\ufffd"`, "\"\xff\"", "\"\xed\xa0\x80\"",
		`"\ud83dx"`, `"\ufffdx"`, `"\"\\\b\f\n\r\t"`, "\"\\\"\\\\\\u0008\\u000c\\n\\r\\t\"",
		`[]`, `{}`, `[[]]`, `[{}]`, `null`, `true`, `false`, `0`, `-0`, `1e3`, `1E3`, `1000`, `""`, `"null"`, `["a","b"]`, `["ab"]`,
		`{"":""}`, `{"a":{}}`, `{"a":[]}`, `{"a":null}`, `{"b":null}`,
	}
	for _, a := range values {
		for _, b := range values {
			va, _ := decodeAny([]byte(a))
			vb, _ := decodeAny([]byte(b))
			if same := digestOf(t, a) == digestOf(t, b); same != reflect.DeepEqual(va, vb) {
				t.Errorf("%s and %s: same digest %v, deep-equal %v", a, b, same, !same)
			}
		}
	}
}

// TestDigestRandom: random values, written out again with their members shuffled and some
// characters escaped, keep their digest; changing one scalar changes it.
func TestDigestRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 300 {
		v := randomValue(rng, 0)
		a, _ := json.Marshal(v)
		b := rewrite(rng, v)
		if digestOf(t, string(a)) != digestOf(t, b) {
			t.Fatalf("case %d: %s and %s decode alike but digest differently", i, a, b)
		}
		mutated, _ := json.Marshal(mutate(rng, v))
		va, _ := decodeAny(a)
		vm, _ := decodeAny(mutated)
		if same := digestOf(t, string(a)) == digestOf(t, string(mutated)); same != reflect.DeepEqual(va, vm) {
			t.Fatalf("case %d: %s and %s: same digest %v", i, a, mutated, same)
		}
	}
}

func randomValue(rng *rand.Rand, depth int) any {
	switch k := rng.IntN(7); {
	case k == 0 && depth < 4:
		m := map[string]any{}
		for range rng.IntN(5) {
			m[randomString(rng)] = randomValue(rng, depth+1)
		}
		return m
	case k == 1 && depth < 4:
		var l []any
		for range rng.IntN(5) {
			l = append(l, randomValue(rng, depth+1))
		}
		return append([]any{}, l...)
	case k == 2:
		return json.Number(strconv.Itoa(rng.IntN(2000) - 1000))
	case k == 3:
		return rng.IntN(2) == 0
	case k == 4:
		return nil
	}
	return randomString(rng)
}

func randomString(rng *rand.Rand) string {
	alphabet := []string{"a", "b", "é", "😀", `"`, `\`, "\n", "\t", "/", "<", "\u2028", "\x01"}
	var b strings.Builder
	for range rng.IntN(6) {
		b.WriteString(alphabet[rng.IntN(len(alphabet))])
	}
	return b.String()
}

// rewrite writes v as JSON another way: members in random order, characters escaped at random.
func rewrite(rng *rand.Rand, v any) string {
	switch v := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		rng.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
		var parts []string
		for _, k := range keys {
			parts = append(parts, rewriteString(rng, k)+" : "+rewrite(rng, v[k]))
		}
		return "{ " + strings.Join(parts, " ,\n") + " }"
	case []any:
		var parts []string
		for _, e := range v {
			parts = append(parts, rewrite(rng, e))
		}
		return "[" + strings.Join(parts, ",") + "]"
	case string:
		return rewriteString(rng, v)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func rewriteString(rng *rand.Rand, s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteString(`\` + string(r))
		case r < 0x20 || rng.IntN(3) == 0:
			if r > 0xffff {
				r1, r2 := (r-0x10000)>>10+0xd800, (r-0x10000)&0x3ff+0xdc00
				b.WriteString(`\u` + strconv.FormatInt(int64(r1), 16) + `\u` + strconv.FormatInt(int64(r2), 16))
			} else {
				b.WriteString(`\u` + strings.Repeat("0", 4-len(strconv.FormatInt(int64(r), 16))) + strconv.FormatInt(int64(r), 16))
			}
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// mutate changes one scalar somewhere in v (or v itself), in a copy.
func mutate(rng *rand.Rand, v any) any {
	switch v := v.(type) {
	case map[string]any:
		if len(v) == 0 {
			return map[string]any{"x": nil}
		}
		m := map[string]any{}
		pick := rng.IntN(len(v))
		i := 0
		for k, e := range v {
			if i == pick {
				e = mutate(rng, e)
			}
			m[k] = e
			i++
		}
		return m
	case []any:
		if len(v) == 0 {
			return []any{nil}
		}
		l := append([]any{}, v...)
		i := rng.IntN(len(l))
		l[i] = mutate(rng, l[i])
		return l
	case string:
		return v + "x"
	case json.Number:
		n, _ := v.Int64()
		return json.Number(strconv.FormatInt(n+1, 10))
	case bool:
		return !v
	}
	return false
}

// TestSkipMeansValid: Skip accepts exactly what json.Valid does, nesting limit included.
func TestSkipMeansValid(t *testing.T) {
	cases := []string{
		`{"a":[1,2,{"b":null}]}`, `{"a":}`, `{"a" 1}`, `{"a":1,}`, `[1,]`, `[1 2]`, `"abc`, `"a\qb"`, `"a\u12"`, "\"a\x01\"",
		`01`, `-`, `1.`, `1e`, `1e+`, `.5`, `-0.5e-7`, `tru`, `nul`, `{"a":1}}`, `[`, `]`, `{`, ``, `   `, `{"\ud800":1}`,
		strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth), strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1),
	}
	for _, c := range cases {
		d := NewReader(strings.NewReader(c))
		err := d.Skip()
		if err == nil {
			if _, e := d.Peek(); e != io.EOF {
				err = errors.New("trailing data")
			}
		}
		if (err == nil) != json.Valid([]byte(c)) {
			t.Errorf("%.40q: Skip says %v, json.Valid %v", c, err, json.Valid([]byte(c)))
		}
	}
}

// TestStringReader: a string read piece by piece, in pieces of any size, is what encoding/json
// decodes, and the reader goes on after it.
func TestStringReader(t *testing.T) {
	for _, s := range []string{`"plain"`, `"\u00e9\ud83d\ude00\ud83d\n\"\\x"`, "\"\xff\xfe é\"", `""`, `"` + strings.Repeat(`ab\u00e9`, 30000) + `"`} {
		var want string
		json.Unmarshal([]byte(s), &want)
		for _, size := range []int{1, 3, 64, 100, 1 << 20} {
			d := NewReader(strings.NewReader(s + ` 7`))
			r, err := d.StringReader()
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			buf := make([]byte, size)
			for {
				n, err := r.Read(buf)
				got.Write(buf[:n])
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			if got.String() != want {
				t.Errorf("%.30q in reads of %d: %.60q, want %.60q", s, size, got.String(), want)
			}
			if n, err := d.Raw(10); err != nil || string(n) != "7" {
				t.Errorf("after the string: %q, %v", n, err)
			}
		}
	}
}

// TestCaptureAndRaw: a capture gets the value's bytes exactly, without the whitespace around
// it; Raw gives up past its limit, having consumed the value.
func TestCaptureAndRaw(t *testing.T) {
	d := NewReader(strings.NewReader(` {"a": [1, "x"]}  [2]  "` + strings.Repeat("y", 100) + `" 3`))
	k := NewKeeper(KeepLimit)
	if err := d.Capture(k, d.Skip); err != nil {
		t.Fatal(err)
	}
	if b, whole := k.Whole(); !whole || string(b) != `{"a": [1, "x"]}` {
		t.Errorf("captured %q", b)
	}
	if b, err := d.Raw(10); err != nil || string(b) != "[2]" {
		t.Errorf("Raw: %q, %v", b, err)
	}
	if _, err := d.Raw(10); err != ErrTooLarge {
		t.Errorf("Raw over its limit: %v", err)
	}
	if b, err := d.Raw(10); err != nil || string(b) != "3" {
		t.Errorf("after a value too large: %q, %v", b, err)
	}
}

// TestBoundedMemory: a 48 MiB answer read from a stream is digested and excerpted in memory
// that does not grow with it.
func TestBoundedMemory(t *testing.T) {
	const size = 48 << 20
	body := io.MultiReader(strings.NewReader(`{"content":[{"type":"text","text":"`), io.LimitReader(repeat('x'), size), strings.NewReader(`"}]}`))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	d := NewReader(body)
	k := NewKeeper(KeepLimit)
	var sum [32]byte
	err := d.Capture(k, func() (err error) { sum, err = d.Digest(); return err })
	runtime.ReadMemStats(&after)
	if err != nil || k.Len() != size+39 || sum == ([32]byte{}) {
		t.Fatalf("err %v, %d bytes", err, k.Len())
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 2<<20 {
		t.Errorf("digesting %d MiB allocated %d KiB", size>>20, alloc>>10)
	}
}

type repeat byte

func (r repeat) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}

func TestKeeperHead(t *testing.T) {
	k := NewKeeper(4)
	k.Write([]byte("aé😀"))
	if _, whole := k.Whole(); whole || k.Head(4) != "aé" || k.Excerpt().Bytes != 7 {
		t.Errorf("head %q, excerpt %+v", k.Head(4), k.Excerpt())
	}
}

// FuzzReader: Skip accepts what json.Valid does, and a valid value digests like encoding/json's
// own re-encoding of it (sorted keys, duplicates dropped, escapes rewritten).
func FuzzReader(f *testing.F) {
	for _, s := range []string{`{"a":[1,"\u00e9"],"a":{"b":null}}`, `"\ud800\udc00\ud800"`, "[\"\xff\"]", `-0.5e+3`, `{"a":`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		d := NewReader(bytes.NewReader(b))
		sum, err := d.Digest()
		if err == nil {
			if _, e := d.Peek(); e != io.EOF {
				err = errors.New("trailing data")
			}
		}
		if (err == nil) != json.Valid(b) {
			t.Fatalf("%q: Digest says %v, json.Valid %v", b, err, json.Valid(b))
		}
		if err != nil {
			return
		}
		v, err := decodeAny(b)
		if err != nil {
			t.Skip() // valid, but past encoding/json's own limits
		}
		again, _ := json.Marshal(v)
		if s2 := digestOf(t, string(again)); s2 != sum {
			t.Fatalf("%q and its re-encoding %q digest differently", b, again)
		}
	})
}
