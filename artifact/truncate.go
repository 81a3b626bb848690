package artifact

import (
	"slices"
	"strings"
	"unicode/utf8"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/semconv"
)

// TruncatedPrefix begins the key of the marker attribute a [Writer] adds
// when it cuts a value short to keep a line within the line limit: the
// marker for attribute K is TruncatedPrefix + K, an int holding K's
// original length in bytes (of a string or bytes value; for a structured
// value, of its typed encoding, see [ContentSize]), in the same attribute map as K (the
// span's, an event's or a link's). So a reader knows that, and by how
// much, a value is incomplete, and nothing is lost silently.
const TruncatedPrefix = semconv.TruncatedPrefix

// LineSizeOption sets the line limit of a [Reader] or a [Writer]; see
// [WithMaxLineSize].
type LineSizeOption struct{ n int }

func (o LineSizeOption) applyReader(c *readerConfig) {
	if o.n > 0 {
		c.maxLine = o.n
	}
}

func (o LineSizeOption) applyWriter(w *Writer) { w.enc.SetMaxLineSize(o.n) }

// WithMaxLineSize sets the longest line, not counting its newline, that a
// Reader accepts (longer lines are reported with [ErrLineTooLong] and
// skipped) or that a Writer writes (it cuts the largest values of a longer
// record short, see [TruncatedPrefix]), so that what is written with a
// limit can be read with it. n <= 0 keeps the default,
// [DefaultMaxLineSize].
func WithMaxLineSize(n int) LineSizeOption { return LineSizeOption{n: n} }

// minCut is the smallest value worth cutting: a marker costs about as much.
const minCut = 64

// markerRoom is what a marker attribute and the cut may add to a line
// (the key, the length, and a string's quoting), so one cut usually fits.
const markerRoom = 256

// leaf is a string or bytes value somewhere in an attribute's value, and
// the attribute it belongs to.
type leaf struct {
	v     pcommon.Value
	size  int
	attrs pcommon.Map // the map holding the attribute
	key   string      // the attribute's key
	top   pcommon.Value
}

// lineLimit is an Encoder's line limit and what it did with the record
// it was last given.
type lineLimit struct {
	max       int   // 0 for DefaultMaxLineSize
	truncated int64 // values of the last record marked as cut short
	skipped   bool  // the last record could not be made to fit
}

// SetMaxLineSize sets the longest line, newline not counted, that
// AppendRecord appends; n <= 0 means [DefaultMaxLineSize], the Reader's
// default.
func (e *Encoder) SetMaxLineSize(n int) { e.lim.max = max(n, 0) }

// MaxLineSize returns the longest line AppendRecord appends.
func (e *Encoder) MaxLineSize() int {
	if e.lim.max == 0 {
		return DefaultMaxLineSize
	}
	return e.lim.max
}

// AppendRecord appends rec as one line, newline included.
//
// A line longer than the line limit, which a Reader with that limit would
// skip, is appended with rec's largest string and bytes values cut short,
// largest first, each cut attribute marked with its original length (see
// [TruncatedPrefix]); rec itself is not changed. [Encoder.Truncated] then
// counts the marked values, for the trailer's "truncated". A record that
// no cut makes fit (very many small values) is not appended at all, and
// [Encoder.Skipped] says so: count it as dropped
// ([Tally.AddDropped] with [Encoder.Reading]). Either way the reading is
// that of rec as given, so tallies count what the span reported.
func (e *Encoder) AppendRecord(dst []byte, rec *Record) []byte {
	start := len(dst)
	if red := e.red; red != nil {
		// Redacted once, in the first encoding's walk: the cut copies
		// below are made from the redacted span.
		red.Begin(rec.Span)
		dst = e.appendRecord(dst, rec, red)
		red.End()
	} else {
		dst = e.appendRecord(dst, rec, nil)
	}
	e.lim.skipped = false
	limit := e.MaxLineSize()
	if len(dst)-start-1 <= limit {
		e.lim.truncated = readMarkers(e.reading(), rec.Span)
		return dst
	}
	// A copy of the reading survives the encodings of the cut copy: its
	// consumed slice points into the Reading's own array, which the
	// assignment back restores.
	rd := e.reading()
	saved := *rd
	line, fit, ok := fitRecord(e, dst[start:], rec, limit)
	*rd = saved
	if !ok {
		e.lim.truncated, e.lim.skipped = 0, true
		return dst[:start]
	}
	e.lim.truncated = countMarkers(fit.Span)
	return append(dst[:start], line...)
}

// Truncated returns how many values of the record AppendRecord appended
// last are marked as cut short: now, to fit the line limit, or when the
// record was first written.
func (e *Encoder) Truncated() int64 { return e.lim.truncated }

// Skipped reports whether AppendRecord left out the record it was given
// last, because no cut made it fit the line limit.
func (e *Encoder) Skipped() bool { return e.lim.skipped }

// fitRecord returns a copy of rec whose encoding fits in limit bytes (not
// counting the newline), made by cutting its largest string and bytes
// values short, largest first, each cut attribute marked with its original
// length; and its line, written over line, rec's own. ok is false when no
// cut makes it fit. rec itself is never changed: its span may be shared (a
// collector's batch, an SDK span's data).
func fitRecord(enc *Encoder, line []byte, rec *Record, limit int) (_ []byte, out Record, ok bool) {
	out = *rec
	out.Span = ptrace.NewSpan()
	rec.Span.CopyTo(out.Span)
	var leaves []leaf
	for first := true; ; first = false {
		if !first {
			line = enc.appendRecord(line[:0], &out, nil)
		}
		over := len(line) - 1 - limit
		if over <= 0 {
			return line, out, true
		}
		// The maps are walked afresh after each cut: a marker added to a
		// map may move the values the last walk found.
		leaves = collectLeaves(leaves[:0], out.Span)
		if len(leaves) == 0 {
			return line, out, false
		}
		l := slices.MaxFunc(leaves, func(a, b leaf) int { return a.size - b.size })
		marker := TruncatedPrefix + l.key
		_, marked := l.attrs.Get(marker)
		size := valueSize(l.top)
		cutValue(l.v, max(l.size-over-markerRoom, 0))
		if !marked { // after the cut: the put may move the values
			l.attrs.PutInt(marker, size)
		}
	}
}

// collectLeaves appends the string and bytes values worth cutting in the
// attributes of sp, its events and its links.
func collectLeaves(dst []leaf, sp ptrace.Span) []leaf {
	dst = mapLeaves(dst, sp.Attributes())
	for _, ev := range sp.Events().All() {
		dst = mapLeaves(dst, ev.Attributes())
	}
	for _, l := range sp.Links().All() {
		dst = mapLeaves(dst, l.Attributes())
	}
	return dst
}

func mapLeaves(dst []leaf, attrs pcommon.Map) []leaf {
	for k, v := range attrs.All() {
		if strings.HasPrefix(k, TruncatedPrefix) {
			continue
		}
		dst = valueLeaves(dst, v, leaf{attrs: attrs, key: k, top: v})
	}
	return dst
}

func valueLeaves(dst []leaf, v pcommon.Value, at leaf) []leaf {
	switch v.Type() {
	case pcommon.ValueTypeStr:
		if n := len(v.Str()); n >= minCut {
			at.v, at.size = v, n
			dst = append(dst, at)
		}
	case pcommon.ValueTypeBytes:
		if n := v.Bytes().Len(); n >= minCut {
			at.v, at.size = v, n
			dst = append(dst, at)
		}
	case pcommon.ValueTypeSlice:
		for _, e := range v.Slice().All() {
			dst = valueLeaves(dst, e, at)
		}
	case pcommon.ValueTypeMap:
		for _, e := range v.Map().All() {
			dst = valueLeaves(dst, e, at)
		}
	}
	return dst
}

// valueSize is the length of an attribute's value as a marker records
// it: a string's or bytes' length, else its typed encoding's.
func valueSize(v pcommon.Value) int64 {
	if v.Type() == pcommon.ValueTypeBytes {
		return int64(v.Bytes().Len())
	}
	return int64(ContentSize(v))
}

// cutValue cuts a string (at a character boundary) or bytes value to at
// most n bytes.
func cutValue(v pcommon.Value, n int) {
	if v.Type() == pcommon.ValueTypeBytes {
		b := v.Bytes().AsRaw()
		v.SetEmptyBytes().FromRaw(b[:n])
		return
	}
	s := v.Str()
	for n > 0 && n < len(s) && !utf8.RuneStart(s[n]) {
		n--
	}
	v.SetStr(s[:n])
}

// countMarkers counts the truncation markers of sp: the values a writer
// cut short, now or when the record was first written.
func countMarkers(sp ptrace.Span) int64 {
	n := mapMarkers(sp.Attributes())
	for _, ev := range sp.Events().All() {
		n += mapMarkers(ev.Attributes())
	}
	for _, l := range sp.Links().All() {
		n += mapMarkers(l.Attributes())
	}
	return n
}

// readMarkers is countMarkers of the span rd was just read from: Read
// counted the markers among its attributes in its walk, so only events'
// and links' attributes, which most spans have none of, are walked here.
func readMarkers(rd *semconv.Reading, sp ptrace.Span) int64 {
	attrs := sp.Attributes()
	n, ok := rd.Markers(attrs)
	if !ok {
		return countMarkers(sp)
	}
	n64 := int64(n)
	for _, ev := range sp.Events().All() {
		n64 += mapMarkers(ev.Attributes())
	}
	for _, l := range sp.Links().All() {
		n64 += mapMarkers(l.Attributes())
	}
	return n64
}

func mapMarkers(attrs pcommon.Map) int64 {
	var n int64
	for k := range attrs.All() {
		if strings.HasPrefix(k, TruncatedPrefix) {
			n++
		}
	}
	return n
}

// Truncated calls f for each value of sp a writer cut short, with the
// attribute's key, where it is ("" for the span's attributes, "event
// NAME" or "link SPANID" otherwise) and its original length in bytes; so
// validators and reports can say what is incomplete.
func Truncated(sp ptrace.Span, f func(where, key string, size int64)) {
	each := func(where string, attrs pcommon.Map) {
		for k, v := range attrs.All() {
			if key, ok := strings.CutPrefix(k, TruncatedPrefix); ok && v.Type() == pcommon.ValueTypeInt {
				f(where, key, v.Int())
			}
		}
	}
	each("", sp.Attributes())
	for _, ev := range sp.Events().All() {
		each("event "+ev.Name(), ev.Attributes())
	}
	for _, l := range sp.Links().All() {
		each("link "+l.SpanID().String(), l.Attributes())
	}
}

// truncatedSize returns the original size its marker records for the
// attribute key, when a writer cut it short. It looks without allocating:
// call estimates ask it for every tool call. rd, when it was read from
// attrs, knows whether attrs has any marker at all: nearly every map has
// none, and then there is nothing to walk.
func truncatedSize(rd *semconv.Reading, attrs pcommon.Map, key string) (int64, bool) {
	if n, ok := rd.Markers(attrs); ok && n == 0 {
		return 0, false
	}
	for k, v := range attrs.All() {
		if len(k) == len(TruncatedPrefix)+len(key) && strings.HasPrefix(k, TruncatedPrefix) &&
			k[len(TruncatedPrefix):] == key && v.Type() == pcommon.ValueTypeInt {
			return v.Int(), true
		}
	}
	return 0, false
}
