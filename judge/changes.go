package judge

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.opentelemetry.io/collector/pdata/pcommon"
)

// changeList collects the changes between two payloads, listing at most
// max of them and counting all.
type changeList struct {
	max, maxValue int
	out           []Change
	total         int
}

// payload compares one payload (args or result) of a pair.
func (c *changeList) payload(root string, a pcommon.Value, hasA bool, b pcommon.Value, hasB bool) {
	switch {
	case hasA && hasB:
		c.walk(root, jsonOf(a), jsonOf(b))
	case hasA:
		c.add(root, Removed, jsonOf(a), nil)
	case hasB:
		c.add(root, Added, nil, jsonOf(b))
	}
}

func (c *changeList) add(path string, op ChangeOp, a, b any) {
	c.total++
	if len(c.out) >= c.max {
		return
	}
	ch := Change{Path: path, Op: op}
	if op != Added {
		ch.A = show(a, c.maxValue)
	}
	if op != Removed {
		ch.B = show(b, c.maxValue)
	}
	c.out = append(c.out, ch)
}

// walk compares two JSON trees: objects by key (sorted), arrays by
// index, anything else by value.
func (c *changeList) walk(path string, a, b any) {
	switch x := a.(type) {
	case map[string]any:
		if y, ok := b.(map[string]any); ok {
			keys := make([]string, 0, len(x)+len(y))
			for k := range x {
				keys = append(keys, k)
			}
			for k := range y {
				if _, ok := x[k]; !ok {
					keys = append(keys, k)
				}
			}
			slices.Sort(keys)
			for _, k := range keys {
				va, inA := x[k]
				vb, inB := y[k]
				p := joinKey(path, k)
				switch {
				case inA && inB:
					c.walk(p, va, vb)
				case inA:
					c.add(p, Removed, va, nil)
				default:
					c.add(p, Added, nil, vb)
				}
			}
			return
		}
	case []any:
		if y, ok := b.([]any); ok {
			for i := range max(len(x), len(y)) {
				p := path + "[" + strconv.Itoa(i) + "]"
				switch {
				case i < len(x) && i < len(y):
					c.walk(p, x[i], y[i])
				case i < len(x):
					c.add(p, Removed, x[i], nil)
				default:
					c.add(p, Added, nil, y[i])
				}
			}
			return
		}
	}
	if !jsonEqual(a, b) {
		c.add(path, Changed, a, b)
	}
}

// writeChanges lists changes for a terminal, one a line ("~" changed, "+"
// added, "-" removed), and says so when fewer are listed than were found
// (total). Diff and replay reports list them alike.
func writeChanges(b *strings.Builder, changes []Change, truncated bool, total int) {
	for _, ch := range changes {
		switch ch.Op {
		case Changed:
			fmt.Fprintf(b, "  ~ %s: %s -> %s\n", ch.Path, ch.A, ch.B)
		case Added:
			fmt.Fprintf(b, "  + %s: %s\n", ch.Path, ch.B)
		case Removed:
			fmt.Fprintf(b, "  - %s: %s\n", ch.Path, ch.A)
		}
	}
	if truncated {
		fmt.Fprintf(b, "  (%d of %d changes shown)\n", len(changes), total)
	}
}

// firstDifference says where JSON values a and b (arguments, say) first
// differ, naming the sides they come from (inA, inB), and how many more
// differences there are: "path is x in inA, y in inB", "path is only in
// inB (y)", "path is only in inA (x)". It is "" when they do not differ.
func firstDifference(a, b any, inA, inB string) string {
	cl := changeList{max: 1, maxValue: 80}
	cl.walk("args", a, b)
	if len(cl.out) == 0 {
		return ""
	}
	where := ""
	switch ch := cl.out[0]; ch.Op {
	case Changed:
		where = fmt.Sprintf("%s is %s in %s, %s in %s", ch.Path, ch.A, inA, ch.B, inB)
	case Added:
		where = fmt.Sprintf("%s is only in %s (%s)", ch.Path, inB, ch.B)
	case Removed:
		where = fmt.Sprintf("%s is only in %s (%s)", ch.Path, inA, ch.A)
	}
	if cl.total > 1 {
		where += fmt.Sprintf(", and %d more difference(s)", cl.total-1)
	}
	return where
}

// joinKey appends an object key to a path: ".key" for a plain name,
// `["key"]` otherwise.
func joinKey(path, k string) string {
	plain := k != ""
	for i, r := range k {
		if !(r == '_' || r == '$' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && (r == '-' || r >= '0' && r <= '9')) {
			plain = false
			break
		}
	}
	if plain {
		return path + "." + k
	}
	return path + "[" + strconv.Quote(k) + "]"
}

// show renders a JSON value as text of at most n bytes (plus "…" when cut
// short, on a UTF-8 boundary).
func show(v any, n int) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	s := strings.TrimSuffix(buf.String(), "\n")
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// jsonOf returns the content of a JSON-valued attribute as a tree of
// map[string]any, []any, string, bool, nil and json.Number: a string that
// holds a JSON object or array is parsed, any other string is itself; a
// structured value is converted, ints and doubles becoming numbers.
func jsonOf(v pcommon.Value) any {
	if v.Type() == pcommon.ValueTypeStr {
		return parseText(v.Str())
	}
	return plainOf(v)
}

// plainOf converts a pdata value without parsing the strings in it.
func plainOf(v pcommon.Value) any {
	switch v.Type() {
	case pcommon.ValueTypeStr:
		return v.Str()
	case pcommon.ValueTypeBool:
		return v.Bool()
	case pcommon.ValueTypeInt:
		return json.Number(strconv.FormatInt(v.Int(), 10))
	case pcommon.ValueTypeDouble:
		f := v.Double()
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return strconv.FormatFloat(f, 'g', -1, 64)
		}
		return json.Number(strconv.FormatFloat(f, 'g', -1, 64))
	case pcommon.ValueTypeBytes:
		return base64.StdEncoding.EncodeToString(v.Bytes().AsRaw())
	case pcommon.ValueTypeMap:
		m := make(map[string]any, v.Map().Len())
		for k, e := range v.Map().All() {
			if _, dup := m[k]; !dup {
				m[k] = plainOf(e)
			}
		}
		return m
	case pcommon.ValueTypeSlice:
		s := make([]any, 0, v.Slice().Len())
		for _, e := range v.Slice().All() {
			s = append(s, plainOf(e))
		}
		return s
	}
	return nil
}

// parseText parses s when it holds a JSON object or array, and returns s
// itself otherwise.
func parseText(s string) any {
	t := strings.TrimSpace(s)
	if t == "" || (t[0] != '{' && t[0] != '[') {
		return s
	}
	if v, ok := decodeJSON(t); ok {
		return v
	}
	return s
}

// decodeJSON decodes one JSON value that is all of s, keeping numbers'
// text.
func decodeJSON(s string) (any, bool) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, false
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, false
	}
	return v, true
}

// jsonEqual compares two JSON trees: objects whatever their key order,
// numbers by value (2 equals 2.0 and 2e0). It is equality of [canonical]
// forms, so that grouping by canonical form and comparing agree.
func jsonEqual(a, b any) bool { return canonical(a) == canonical(b) }

// canonical renders a JSON tree so that two trees render the same exactly
// when they are the same JSON: keys sorted, numbers as exact fractions. It
// is a key for grouping and comparing, not JSON.
func canonical(v any) string {
	var b strings.Builder
	appendCanonical(&b, v)
	return b.String()
}

func appendCanonical(b *strings.Builder, v any) {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Quote(k))
			b.WriteByte(':')
			appendCanonical(b, x[k])
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			appendCanonical(b, e)
		}
		b.WriteByte(']')
	case json.Number:
		if r, ok := new(big.Rat).SetString(string(x)); ok {
			b.WriteString("#" + r.RatString())
		} else {
			b.WriteString("#" + string(x))
		}
	case string:
		b.WriteString(strconv.Quote(x))
	case bool:
		b.WriteString(strconv.FormatBool(x))
	default:
		b.WriteString("null")
	}
}
