package artifact

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"math"
	"strconv"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// resource decodes a resource's attributes, reusing the last line's
// resource when it is the same.
func (d *decoder) resource(raw []byte, dropped uint32, schema string) (pcommon.Resource, error) {
	lr := &d.lastRes
	if lr.ok && bytes.Equal(lr.raw, raw) && lr.res.DroppedAttributesCount() == dropped && lr.schema == schema {
		return lr.res, nil
	}
	res := pcommon.NewResource()
	d.sc.Reset(raw)
	d.attrs(res.Attributes())
	if d.sc.Err != nil {
		return res, d.sc.Err
	}
	res.SetDroppedAttributesCount(dropped)
	lr.raw, lr.res, lr.schema, lr.ok = append(lr.raw[:0], raw...), res, schema, true
	return res, nil
}

// scope decodes a scope and its schema URL, reusing the last line's scope
// when it is the same.
func (d *decoder) scope(raw []byte) (pcommon.InstrumentationScope, string, error) {
	ls := &d.lastScope
	if ls.ok && bytes.Equal(ls.raw, raw) {
		return ls.sc, ls.schema, nil
	}
	sc := pcommon.NewInstrumentationScope()
	schema, err := d.scopeInto(sc, raw)
	if err != nil {
		return sc, "", err
	}
	ls.raw, ls.sc, ls.schema, ls.ok = append(ls.raw[:0], raw...), sc, schema, true
	return sc, schema, nil
}

// scopeInto decodes a scope object {"name","version","attrs","dropped","schema_url"}.
func (d *decoder) scopeInto(sc pcommon.InstrumentationScope, raw []byte) (schema string, err error) {
	s := &d.sc
	s.Reset(raw)
	if !s.Open('{') {
		return "", s.Err
	}
	for first := true; s.More(&first, '}'); {
		switch string(s.Key()) {
		case "name":
			sc.SetName(s.Str())
		case "version":
			sc.SetVersion(s.Str())
		case "attrs":
			d.attrs(sc.Attributes())
		case "dropped":
			sc.SetDroppedAttributesCount(d.uint32())
		case "schema_url":
			schema = s.Str()
		default:
			s.SkipValue()
		}
	}
	return schema, s.Err
}

func (d *decoder) events(evs ptrace.SpanEventSlice) {
	s := &d.sc
	if !s.Open('[') {
		return
	}
	for first := true; s.More(&first, ']'); {
		ev := evs.AppendEmpty()
		if !s.Open('{') {
			return
		}
		for first := true; s.More(&first, '}'); {
			switch string(s.Key()) {
			case "name":
				ev.SetName(d.str())
			case "time":
				ev.SetTimestamp(pcommon.Timestamp(d.timestamp()))
			case "attrs":
				d.attrs(ev.Attributes())
			case "dropped":
				ev.SetDroppedAttributesCount(d.uint32())
			default:
				s.SkipValue()
			}
		}
	}
}

func (d *decoder) links(links ptrace.SpanLinkSlice) {
	s := &d.sc
	if !s.Open('[') {
		return
	}
	for first := true; s.More(&first, ']'); {
		l := links.AppendEmpty()
		if !s.Open('{') {
			return
		}
		for first := true; s.More(&first, '}'); {
			switch string(s.Key()) {
			case "trace_id":
				l.SetTraceID(d.traceID())
			case "span_id":
				l.SetSpanID(d.spanID())
			case "trace_state":
				l.TraceState().FromRaw(s.Str())
			case "flags":
				l.SetFlags(d.uint32())
			case "attrs":
				d.attrs(l.Attributes())
			case "dropped":
				l.SetDroppedAttributesCount(d.uint32())
			default:
				s.SkipValue()
			}
		}
	}
}

// traceID reads a trace id: 32 hex digits.
func (d *decoder) traceID() (id pcommon.TraceID) {
	d.hexID(id[:])
	return id
}

// spanID reads a span id: 16 hex digits.
func (d *decoder) spanID() (id pcommon.SpanID) {
	d.hexID(id[:])
	return id
}

// attrs reads an object of attributes into m.
func (d *decoder) attrs(m pcommon.Map) {
	if d.sc.Open('{') {
		d.members(m)
	}
}

func (d *decoder) hexID(dst []byte) {
	b := d.sc.StrBytes()
	if d.sc.Err != nil {
		return
	}
	if len(b) != 2*len(dst) {
		d.sc.Fail("id %q: want %d hex digits", b, 2*len(dst))
		return
	}
	if _, err := hex.Decode(dst, b); err != nil {
		d.sc.Fail("id %q: not hex", b)
	}
}

func (d *decoder) uint32() uint32 {
	v := d.sc.Int()
	if v < 0 || v > math.MaxUint32 {
		d.sc.Fail("%d out of range", v)
		return 0
	}
	return uint32(v)
}

func (d *decoder) spanKind() ptrace.SpanKind {
	s := &d.sc
	if c := s.Peek(); c != '"' {
		return ptrace.SpanKind(int32(s.Int()))
	}
	k := s.StrBytes()
	for i, name := range spanKinds {
		if string(k) == name {
			return ptrace.SpanKind(i)
		}
	}
	s.Fail("unknown span_kind %q", k)
	return 0
}

// timestamp reads an RFC 3339 time, or a number of epoch milliseconds as
// tool-dispatch traces write them, as nanoseconds since the epoch.
func (d *decoder) timestamp() uint64 {
	s := &d.sc
	if c := s.Peek(); c != '"' {
		text, isInt := s.Number()
		if s.Err != nil {
			return 0
		}
		if isInt {
			// Integer milliseconds convert exactly; a float64 would not.
			ms, err := strconv.ParseUint(string(text), 10, 64)
			if err != nil || ms > math.MaxUint64/1_000_000 {
				s.Fail("time %s out of range", text)
				return 0
			}
			return ms * 1_000_000
		}
		ms, err := strconv.ParseFloat(string(text), 64)
		if err != nil || ms < 0 || ms > math.MaxUint64/1e6 {
			s.Fail("time %s out of range", text)
			return 0
		}
		return uint64(ms * 1e6)
	}
	b := s.StrBytes()
	if s.Err != nil {
		return 0
	}
	ns, err := parseTimestamp(b)
	if err != nil {
		s.Fail("%v", err)
	}
	return ns
}

// parseTimestamp parses RFC 3339 (a time without a zone is UTC) into
// nanoseconds since the epoch. The layout writers use is parsed by hand.
func parseTimestamp(b []byte) (uint64, error) {
	if ns, ok := parseUTC(b); ok {
		return ns, nil
	}
	s := string(b)
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		var err2 error
		if t, err2 = time.Parse("2006-01-02T15:04:05.999999999", s); err2 != nil {
			return 0, fmt.Errorf("bad time %q: want RFC 3339", s)
		}
	}
	if t.Before(time.Unix(0, 0)) {
		return 0, fmt.Errorf("time %q is before 1970", s)
	}
	sec := uint64(t.Unix())
	return sec*1e9 + uint64(t.Nanosecond()), nil
}

// parseUTC parses YYYY-MM-DDTHH:MM:SS[.fraction]Z.
func parseUTC(b []byte) (uint64, bool) {
	if len(b) < 20 || b[len(b)-1] != 'Z' || b[4] != '-' || b[7] != '-' || b[10] != 'T' || b[13] != ':' || b[16] != ':' {
		return 0, false
	}
	num := func(lo, hi int) (int, bool) {
		n := 0
		for _, c := range b[lo:hi] {
			if c < '0' || c > '9' {
				return 0, false
			}
			n = n*10 + int(c-'0')
		}
		return n, true
	}
	y, ok1 := num(0, 4)
	mo, ok2 := num(5, 7)
	dd, ok3 := num(8, 10)
	hh, ok4 := num(11, 13)
	mi, ok5 := num(14, 16)
	ss, ok6 := num(17, 19)
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) || y < 1970 || mo < 1 || mo > 12 || dd < 1 || dd > daysIn(y, mo) || hh > 23 || mi > 59 || ss > 59 {
		return 0, false
	}
	var frac uint64
	rest := b[19 : len(b)-1]
	if len(rest) > 0 {
		if rest[0] != '.' || len(rest) < 2 || len(rest) > 10 {
			return 0, false
		}
		digits := rest[1:]
		for _, c := range digits {
			if c < '0' || c > '9' {
				return 0, false
			}
			frac = frac*10 + uint64(c-'0')
		}
		for range 9 - len(digits) {
			frac *= 10
		}
	}
	days := daysFromCivil(int64(y), mo, dd)
	sec := uint64(days)*86400 + uint64(hh*3600+mi*60+ss)
	if sec > math.MaxUint64/1_000_000_000-1 {
		return 0, false
	}
	return sec*1e9 + frac, true
}

func daysIn(y, m int) int {
	switch m {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}
