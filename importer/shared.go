package importer

// The helpers the importers share: the line-oriented importers' plumbing
// (lineIO), reading members of a JSON object whatever their spelling
// (memberKey, memberStr, memberInt, memberDuration), times (parseTime),
// token usage (usageMembers, putUsage), tool results (resultText,
// shortMessage), untyped JSON values (firstByte, lenientBool,
// putJSONValue) and line numbers of offsets in a whole document
// (offsetLines, jsonValueStart). Span building is in spans.go, derived ids
// in ids.go, emitting and problem reports in sink.go; a reader's own file
// holds only what that reader uses.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/semconv"
)

// lineIO is the plumbing the line-oriented importers (transcript and
// trajectory) share: the import's sink and the line reader.
type lineIO struct {
	synth
	lines *artifact.LineReader
}

func newLineIO(r io.Reader, name string, emit func(*artifact.Record) error) *lineIO {
	return &lineIO{synth: newSynth(name, emit), lines: artifact.NewLineReader(r, artifact.DefaultMaxLineSize)}
}

// each calls fn with every line of the input that is not blank (see
// sink.eachLine).
func (o *lineIO) each(fn func([]byte) error) error { return o.eachLine(o.lines, fn) }

// bad reports the current line as one that could not be read.
func (o *lineIO) bad(err error) {
	if o.torn {
		err = fmt.Errorf("%w: %w", artifact.ErrTornLine, err)
	} else {
		err = fmt.Errorf("%w: %w", artifact.ErrBadRecord, err)
	}
	o.problem(o.lines.Line(), err)
}

// time reads the current line's time raw (none when it is missing or
// null); a time that cannot be read is reported.
func (o *lineIO) time(raw []byte) (uint64, bool) {
	if len(raw) == 0 || string(raw) == "null" {
		return 0, false
	}
	ts, ok := parseTime(raw)
	if !ok {
		o.problem(o.lines.Line(), fmt.Errorf("cannot read the time %s: the record takes the previous record's time", raw))
	}
	return ts, ok
}

// usageMembers reads a usage object: input, output, cache read, cache
// create, under the names the logs use.
func usageMembers(f map[string]json.RawMessage) (u [4]int64, has [4]bool) {
	u[0], has[0] = memberInt(f, "input", "inputtokens", "prompttokens", "prompt")
	u[1], has[1] = memberInt(f, "output", "outputtokens", "completiontokens", "completion")
	u[2], has[2] = memberInt(f, "cacheread", "cachereadinputtokens", "cachereadtokens", "cachedtokens", "cachedinputtokens")
	u[3], has[3] = memberInt(f, "cachecreate", "cachecreation", "cachecreationinputtokens", "cachecreatetokens",
		"cachewrite", "cachewriteinputtokens", "cachewritetokens")
	return u, has
}

// putUsage writes usage as gen_ai.usage.*: input_tokens gets the
// cache counts added when the log's input excludes them.
func putUsage(attrs pcommon.Map, u [4]int64, has [4]bool, addCache bool) {
	in := u[0]
	if addCache {
		in += u[2] + u[3]
	}
	if has[0] || (addCache && (has[2] || has[3])) {
		attrs.PutInt(semconv.UsageInputTokens, in)
	}
	if has[1] {
		attrs.PutInt(semconv.UsageOutputTokens, u[1])
	}
	if has[2] {
		attrs.PutInt(semconv.UsageCacheReadInput, u[2])
	}
	if has[3] {
		attrs.PutInt(semconv.UsageCacheCreationInput, u[3])
	}
}

// resultText is a tool result as an attribute: a string result
// as the text itself, anything else as its JSON text.
func resultText(content json.RawMessage) string {
	if firstByte(content) == '"' {
		var s string
		if json.Unmarshal(content, &s) == nil {
			return s
		}
	}
	return string(content)
}

// shortMessage cuts s to a status message's length, on a rune boundary.
func shortMessage(s string) string {
	const n = 1024
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

// objectFields decodes a JSON object into its members, raw.
func objectFields(raw json.RawMessage) (map[string]json.RawMessage, error) {
	if firstByte(raw) != '{' {
		return nil, errors.New("not a JSON object")
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	return m, nil
}

// keyEq reports whether key k, ignoring case, "_" and "-",
// spells want (lower case, no separators).
func keyEq(k, want string) bool {
	j := 0
	for i := 0; i < len(k); i++ {
		c := k[i]
		if c == '_' || c == '-' {
			continue
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if j >= len(want) || want[j] != c {
			return false
		}
		j++
	}
	return j == len(want)
}

// memberKey returns the key of f that spells one of names (tried in
// order), or "".
func memberKey(f map[string]json.RawMessage, names ...string) string {
	for _, n := range names {
		if _, ok := f[n]; ok {
			return n
		}
		for k := range f {
			if keyEq(k, n) {
				return k
			}
		}
	}
	return ""
}

// memberStr returns the string member of f named one of names.
func memberStr(f map[string]json.RawMessage, names ...string) string {
	k := memberKey(f, names...)
	if k == "" {
		return ""
	}
	return rawString(f[k])
}

// rawString returns a raw JSON string's value, a number's text,
// or "" for anything else.
func rawString(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return ""
	}
	switch c := raw[0]; {
	case c == '"':
		if len(raw) >= 2 && bytes.IndexByte(raw[1:len(raw)-1], '\\') < 0 && raw[len(raw)-1] == '"' {
			return string(raw[1 : len(raw)-1])
		}
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
	case c == '-' || ('0' <= c && c <= '9'):
		return string(raw)
	}
	return ""
}

// memberInt returns the integer member of f named one of names (see
// jsonInt).
func memberInt(f map[string]json.RawMessage, names ...string) (int64, bool) {
	if k := memberKey(f, names...); k != "" {
		return jsonInt(f[k])
	}
	return 0, false
}

// jsonInt reads an integer: a number, possibly with a zero fraction, or a
// string of one.
func jsonInt(raw []byte) (int64, bool) {
	s := rawString(raw)
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n, true
	}
	if x, err := strconv.ParseFloat(s, 64); err == nil && x == math.Trunc(x) && math.Abs(x) < 1<<62 {
		return int64(x), true
	}
	return 0, false
}

// memberDuration returns a duration member in nanoseconds: a number of
// milliseconds, or a Go duration string ("1.2s").
func memberDuration(f map[string]json.RawMessage, names ...string) (int64, bool) {
	k := memberKey(f, names...)
	if k == "" {
		return 0, false
	}
	s := rawString(f[k])
	if x, err := strconv.ParseFloat(s, 64); err == nil && !math.IsNaN(x) && math.Abs(x) < 1e12 {
		return int64(math.Round(x * 1e6)), true
	}
	if d, err := time.ParseDuration(s); err == nil {
		return int64(d), true
	}
	return 0, false
}

// timeLayouts are the time layouts read, tried in order. A layout
// without a zone reads the time as UTC. Fractional seconds are accepted
// after the seconds in all of them.
var timeLayouts = [...]string{
	time.RFC3339,
	"2006-01-02T15:04:05",
	"2006-01-02T15:04:05Z0700",
	"2006-01-02 15:04:05Z07:00",
	"2006-01-02 15:04:05",
	"2006-01-02 15:04:05Z0700",
	"2006-01-02T15:04Z07:00",
	"2006-01-02T15:04",
	"2006-01-02",
}

// parseTime reads a time, as every importer does: an RFC 3339 string, one
// without a zone (UTC), or an epoch number (a JSON number or a string of
// digits). Epoch numbers are milliseconds, as the logs write them; a number
// too small to be milliseconds since 1973 is read as seconds, and one too
// large to be milliseconds before the year 5000 as microseconds (or
// nanoseconds). White space around a string's time is ignored. It returns
// Unix nanoseconds; times before 1970 or after 2261 are refused.
func parseTime(raw []byte) (uint64, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return 0, false
	}
	if raw[0] != '"' { // a JSON number (ParseFloat refuses the other values), read without a copy
		ns, ok, _ := epochTime(string(raw))
		return ns, ok
	}
	s := strings.TrimSpace(rawString(raw))
	if s == "" {
		return 0, false
	}
	if strings.Trim(s, "0123456789.eE+-") == "" { // not "NaN", "Inf" or hex, which ParseFloat reads
		if ns, ok, isNum := epochTime(s); isNum {
			return ns, ok
		}
	}
	for _, layout := range timeLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			if t.Year() < 1970 || t.Year() > 2261 || t.Before(time.Unix(0, 0)) {
				return 0, false
			}
			return uint64(t.UnixNano()), true
		}
	}
	return 0, false
}

// epochTime reads s as an epoch number (see parseTime); isNum is false
// when s is not a number ("2026-05-04" is a date).
func epochTime(s string) (ns uint64, ok, isNum bool) {
	x, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, false, false
	}
	var f float64
	switch {
	case x < 1e11:
		f = x * 1e9
	case x < 1e14:
		f = x * 1e6
	case x < 1e17:
		f = x * 1e3
	default:
		f = x
	}
	if x < 0 || f >= float64(maxTime) || math.IsNaN(x) {
		return 0, false, true
	}
	return uint64(math.Round(f)), true, true
}

// maxTime bounds the times read (2261-12-31, within int64 ns).
const maxTime = 9214646400 * int64(time.Second)

// putJSONValue puts an untyped JSON value: strings, bools and numbers as
// themselves, anything else as its JSON text.
func putJSONValue(m pcommon.Map, key string, raw []byte) {
	switch firstByte(raw) {
	case '"':
		var s string
		if json.Unmarshal(raw, &s) == nil {
			m.PutStr(key, s)
			return
		}
	case 't', 'f':
		if b, ok := lenientBool(raw); ok {
			m.PutBool(key, b)
			return
		}
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		if n, err := strconv.ParseInt(string(raw), 10, 64); err == nil {
			m.PutInt(key, n)
			return
		}
		if f, err := strconv.ParseFloat(string(raw), 64); err == nil {
			m.PutDouble(key, f)
			return
		}
	}
	m.PutStr(key, string(raw))
}

// firstByte returns the first byte of raw that is not JSON white space, 0
// when there is none.
func firstByte(raw []byte) byte {
	for _, c := range raw {
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		}
		return c
	}
	return 0
}

// lenientBool reads true/false, also as a string or 0/1.
func lenientBool(raw json.RawMessage) (bool, bool) {
	switch strings.Trim(string(bytes.TrimSpace(raw)), `"`) {
	case "true", "1", "True", "TRUE":
		return true, true
	case "false", "0", "False", "FALSE":
		return false, true
	}
	return false, false
}

// offsetLines maps byte offsets of a document to 1-based line numbers.
type offsetLines struct {
	data []byte
	off  int // offsets before off are counted
	line int // line of off
}

func newOffsetLines(data []byte) *offsetLines { return &offsetLines{data: data, line: 1} }

// at returns the line of offset off; offsets asked for should mostly grow.
func (l *offsetLines) at(off int) int {
	off = min(max(off, 0), len(l.data))
	if off < l.off {
		l.off, l.line = 0, 1
	}
	l.line += bytes.Count(l.data[l.off:off], []byte{'\n'})
	l.off = off
	return l.line
}

// jsonValueStart returns the offset of the value that follows off in data,
// skipping white space and the separators json.Decoder has not consumed.
func jsonValueStart(data []byte, off int) int {
	for off < len(data) {
		switch data[off] {
		case ' ', '\t', '\r', '\n', ',', ':':
			off++
		default:
			return off
		}
	}
	return off
}
