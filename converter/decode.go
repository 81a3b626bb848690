package converter

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"
	"unsafe"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/semconv"
)

// Sentinel errors a caller can branch on. Errors about a line wrap one of
// these in a [LineError].
var (
	// ErrUnsupportedVersion: the header's v is newer than this reader.
	ErrUnsupportedVersion = errors.New("unsupported artifact version")
	// ErrTornLine: the last line was cut short, as a crash leaves it.
	ErrTornLine = errors.New("torn last line (cut short by a crash?)")
	// ErrLineTooLong: a line exceeds the reader's buffer limit.
	ErrLineTooLong = errors.New("line exceeds the buffer limit")
	// ErrNoHeader: the first line is not a meta header.
	ErrNoHeader = errors.New("first line is not a meta header")
	// ErrBadRecord: a line is not a valid record.
	ErrBadRecord = errors.New("invalid record")
)

// lineKind is what a line holds.
type lineKind uint8

const (
	lineRecord lineKind = iota
	lineMeta
	lineSummary
	lineUnknown
	lineLog
)

// decoder turns lines into metas, summaries and spans. It is not safe for
// concurrent use.
type decoder struct {
	sc     scanner
	strs   map[string]string // interned attribute keys
	recent [512]string
	// lineStr is the record line being decoded, as one string: string
	// values without escapes are slices of it, so a line costs one
	// allocation and one copy rather than one per value. A decoded span
	// keeps its line alive; the line is mostly its values anyway.
	lineStr  string
	viewable bool   // the scanner is on the line lineStr holds
	lineSrc  string // the line as the reader holds it, when it can share it
	lastRes  struct {
		raw    []byte
		res    pcommon.Resource
		schema string
		ok     bool
	}
	lastScope struct {
		raw    []byte
		sc     pcommon.InstrumentationScope
		schema string
		ok     bool
	}
	p pending
}

// pending holds what a record line says before it can be applied: fields
// are put back as attributes only once the whole line (and so its aliases)
// has been read.
type pending struct {
	has        [semconv.NumFields]bool
	nFields    int
	str        [semconv.NumFields]string // TypeString fields, read in place
	num        [semconv.NumFields]int64  // TypeInt fields, read in place
	span       [semconv.NumFields][2]int // other fields: where the value is in the line, read once the line is done
	alias      [semconv.NumFields]string
	structured [semconv.NumFields]bool
	kind       string
	hasTrace   bool
	hasSpan    bool
	hasStart   bool
	hasEnd     bool
	ok         bool
	hasOK      bool
	statusOK   bool
	statusCode int64
	hasCode    bool
	elapsedRaw []byte
	hasElapsed bool
	estimated  int64
	hasEst     bool
	hasName    bool
}

const maxInterned = 4096

// str reads a string value: a slice of the line when it has no escapes.
func (d *decoder) str() string {
	s := &d.sc
	if !d.viewable {
		return s.str()
	}
	s.ws()
	start := s.pos + 1
	b := s.strBytes()
	if s.err == nil && len(b) == s.pos-1-start {
		// Unescaped (escapes always shrink): the bytes are the line's.
		return d.lineStr[start : s.pos-1]
	}
	return string(b)
}

func (d *decoder) intern(k []byte) string {
	if len(k) == 0 {
		return ""
	}
	// A direct-mapped cache in front of the map: the same few keys and
	// values come back on every line, and a compare is cheaper than a hash.
	h := (uint(len(k))*131 + uint(k[0])*31 + uint(k[len(k)/2])*7 + uint(k[len(k)-1])) % uint(len(d.recent))
	if c := d.recent[h]; c == string(k) {
		return c
	}
	if s, ok := d.strs[string(k)]; ok {
		d.recent[h] = s
		return s
	}
	s := string(k)
	if d.strs == nil {
		d.strs = make(map[string]string, 256)
	}
	if len(d.strs) < maxInterned && len(k) <= 256 {
		d.strs[s] = s
	}
	return s
}

var (
	prefixKind = []byte(`{"kind":"`)
	prefixV    = []byte(`{"v":`)
	infixKind  = []byte(`,"kind":"`)
)

// classify returns what the line holds without decoding it. Writers put
// "kind" first (after "v" in a header), so the common case looks at a prefix.
func (d *decoder) classify(line []byte) (lineKind, string, error) {
	var k []byte
	switch {
	case bytes.HasPrefix(line, prefixKind):
		rest := line[len(prefixKind):]
		if i := bytes.IndexByte(rest, '"'); i >= 0 {
			k = rest[:i]
		}
	case bytes.HasPrefix(line, prefixV):
		if i := bytes.Index(line, infixKind); i >= 0 && i < 24 {
			rest := line[i+len(infixKind):]
			if j := bytes.IndexByte(rest, '"'); j >= 0 {
				k = rest[:j]
			}
		}
	}
	if k == nil || bytes.IndexByte(k, '\\') >= 0 {
		// Another writer's key order: find "kind" among the top-level keys.
		s := &d.sc
		s.reset(line)
		if s.open('{') {
			for first := true; s.more(&first, '}'); {
				if string(s.key()) == "kind" {
					k = []byte(s.str())
					break
				}
				s.skipValue()
			}
		}
		if s.err != nil {
			return 0, "", s.err
		}
	}
	switch string(k) {
	case "meta":
		return lineMeta, "meta", nil
	case "summary":
		return lineSummary, "summary", nil
	case KindLog:
		return lineLog, KindLog, nil
	case "":
		return 0, "", errors.New(`no "kind"`)
	}
	name := kindName(k)
	if _, ok := semconv.ParseKind(name); ok {
		return lineRecord, name, nil
	}
	return lineUnknown, name, nil
}

// decodeRecord decodes a record line into sp, putting promoted fields back
// as attributes under the keys they came from. def supplies the resource and
// scope of records that carry none.
func (d *decoder) decodeRecord(line []byte, rec *Record, def *Meta) error {
	s := &d.sc
	s.reset(line)
	p := &d.p
	*p = pending{}
	d.lineStr, d.viewable = d.lineSrc, true
	if len(d.lineStr) != len(line) || (len(line) > 0 && unsafe.StringData(d.lineStr) != &line[0]) {
		d.lineStr = string(line) // not the reader's line: copy it once
	}
	defer func() { d.viewable = false }()
	sp := rec.Span
	sp.SetKind(ptrace.SpanKindInternal) // what a record without span_kind means
	attrs := sp.Attributes()
	var own ownMeta
	if !s.open('{') {
		return s.err
	}
	for first := true; s.more(&first, '}'); {
		key := s.key()
		switch string(key) {
		case "kind":
			p.kind = kindName(s.strBytes())
		case "name":
			sp.SetName(d.str())
			p.hasName = true
		case "trace_id":
			sp.SetTraceID(d.traceID())
			p.hasTrace = true
		case "span_id":
			sp.SetSpanID(d.spanID())
			p.hasSpan = true
		case "parent_span_id":
			sp.SetParentSpanID(d.spanID())
		case "span_kind":
			sp.SetKind(d.spanKind())
		case "started_at":
			sp.SetStartTimestamp(pcommon.Timestamp(d.timestamp()))
			p.hasStart = true
		case "finished_at":
			sp.SetEndTimestamp(pcommon.Timestamp(d.timestamp()))
			p.hasEnd = true
		case "elapsed_ms":
			// Derived; needed only by a record that lacks one of its times.
			p.elapsedRaw, p.hasElapsed = s.skip(), true
		case "ok":
			p.ok, p.hasOK = s.boolean(), true
		case "status":
			p.statusOK = s.str() == "ok"
		case "status_code":
			p.statusCode, p.hasCode = s.int(), true
		case "message":
			sp.Status().SetMessage(d.str())
		case "estimated_tokens":
			p.estimated, p.hasEst = s.int(), true
		case "usage":
			if !s.open('{') {
				break
			}
			for first := true; s.more(&first, '}'); {
				k := s.key()
				if f, ok := usageField(k); ok {
					d.field(f)
				} else {
					s.skipValue()
				}
			}
		case "aliases":
			if !s.open('{') {
				break
			}
			for first := true; s.more(&first, '}'); {
				f, ok := semconv.FieldByName(string(s.key()))
				v := d.intern(s.strBytes())
				if ok {
					p.alias[f] = v
				}
			}
		case "structured":
			if !s.open('[') {
				break
			}
			for first := true; s.more(&first, ']'); {
				if f, ok := semconv.FieldByName(string(s.strBytes())); ok {
					p.structured[f] = true
				}
			}
		case "attrs":
			// One allocation for every attribute the span will have.
			attrs.EnsureCapacity(attrs.Len() + p.nFields + s.countMembers())
			if s.open('{') {
				d.members(attrs)
			}
		case "events":
			d.events(sp.Events())
		case "links":
			d.links(sp.Links())
		case "trace_state":
			sp.TraceState().FromRaw(d.str())
		case "flags":
			sp.SetFlags(d.uint32())
		case "dropped":
			if !s.open('{') {
				break
			}
			for first := true; s.more(&first, '}'); {
				switch string(s.key()) {
				case "attrs":
					sp.SetDroppedAttributesCount(d.uint32())
				case "events":
					sp.SetDroppedEventsCount(d.uint32())
				case "links":
					sp.SetDroppedLinksCount(d.uint32())
				default:
					s.skipValue()
				}
			}
		case "resource", "resource_dropped", "resource_schema_url", "scope":
			d.ownMetaField(key, &own)
		default:
			if f, ok := semconv.FieldByName(string(key)); ok {
				d.field(f)
			} else {
				s.skipValue() // unknown fields are ignored: forward compatible
			}
		}
	}
	s.end()
	if s.err != nil {
		return s.err
	}
	d.applyStatus(sp)
	if err := d.applyFields(attrs); err != nil {
		return err
	}
	d.viewable = false // resource and scope are decoded from copies
	res, resSchema, sc, scSchema, err := d.resourceAndScope(&own, def)
	if err != nil {
		return err
	}
	rec.Resource, rec.ResourceSchemaURL, rec.Scope, rec.ScopeSchemaURL = res, resSchema, sc, scSchema
	return nil
}

// ownMeta holds the resource and scope fields of a record or log line,
// which are decoded once the line is read (see resourceAndScope).
type ownMeta struct {
	resRaw, scopeRaw []byte
	resDropped       uint32
	resSchema        string
	ownRes, ownScope bool
}

// ownMetaField reads key, one of "resource", "resource_dropped",
// "resource_schema_url" and "scope", into m.
func (d *decoder) ownMetaField(key []byte, m *ownMeta) {
	s := &d.sc
	switch string(key) {
	case "resource":
		m.resRaw, m.ownRes = s.skip(), true
	case "resource_dropped":
		m.resDropped = d.uint32()
	case "resource_schema_url":
		m.resSchema = s.str()
	case "scope":
		m.scopeRaw, m.ownScope = s.skip(), true
	}
}

// resourceAndScope returns a line's resource and scope: its own, as m
// read them, or def's when it carries none.
func (d *decoder) resourceAndScope(m *ownMeta, def *Meta) (res pcommon.Resource, resSchema string, sc pcommon.InstrumentationScope, scSchema string, err error) {
	res, resSchema = def.Resource, def.ResourceSchemaURL
	if m.ownRes {
		if res, err = d.resource(m.resRaw, m.resDropped, m.resSchema); err != nil {
			return res, resSchema, sc, scSchema, fmt.Errorf("resource: %w", err)
		}
		resSchema = m.resSchema
	}
	sc, scSchema = def.Scope, def.ScopeSchemaURL
	if m.ownScope {
		if sc, scSchema, err = d.scope(m.scopeRaw); err != nil {
			return res, resSchema, sc, scSchema, fmt.Errorf("scope: %w", err)
		}
	}
	return res, resSchema, sc, scSchema, nil
}

// kindName returns the record kind spelled k without allocating for the
// kinds this package knows.
func kindName(k []byte) string {
	for _, name := range [...]string{"call", "inference", "agent", "span"} {
		if string(k) == name {
			return name
		}
	}
	return string(k)
}

// elapsedNS returns the record's elapsed_ms in nanoseconds.
func (p *pending) elapsedNS() int64 {
	ms, err := strconv.ParseFloat(string(p.elapsedRaw), 64)
	if err != nil || ms < 0 {
		return 0
	}
	return int64(ms * 1e6)
}

func usageField(k []byte) (semconv.Field, bool) {
	switch string(k) {
	case "input_tokens":
		return semconv.FieldInputTokens, true
	case "output_tokens":
		return semconv.FieldOutputTokens, true
	case "cache_read_input_tokens":
		return semconv.FieldCacheReadTokens, true
	case "cache_creation_input_tokens":
		return semconv.FieldCacheCreationTokens, true
	case "reasoning_output_tokens":
		return semconv.FieldReasoningTokens, true
	}
	return 0, false
}

func (d *decoder) applyStatus(sp ptrace.Span) {
	p := &d.p
	st := sp.Status()
	switch {
	case p.hasCode:
		st.SetCode(ptrace.StatusCode(int32(p.statusCode)))
	case p.hasOK && !p.ok:
		st.SetCode(ptrace.StatusCodeError)
	case p.statusOK:
		st.SetCode(ptrace.StatusCodeOk)
	}
}

// field reads the value of promoted field f. Strings and integers are read
// in place; for the rest, where the value is in the line is kept, and it
// is read once the aliases are known.
func (d *decoder) field(f semconv.Field) {
	p := &d.p
	if !p.has[f] {
		p.nFields++
	}
	p.has[f] = true
	switch f.Type() {
	case semconv.TypeString:
		p.str[f] = d.str()
	case semconv.TypeInt:
		p.num[f] = d.sc.int()
	default:
		d.sc.ws()
		start := d.sc.pos
		d.sc.skipValue()
		p.span[f] = [2]int{start, d.sc.pos}
	}
}

// applyFields puts the promoted fields back as attributes, each under the
// key it came from (its alias) or its canonical key.
func (d *decoder) applyFields(attrs pcommon.Map) error {
	p := &d.p
	s := &d.sc
	attrs.EnsureCapacity(attrs.Len() + p.nFields)
	for f := range semconv.NumFields {
		if !p.has[f] {
			continue
		}
		key := p.alias[f]
		if key == "" {
			key = f.CanonicalKey()
		}
		switch f.Type() {
		case semconv.TypeString:
			if f == semconv.FieldCode {
				// code "error" is what a failed span without error.type reads as.
				if _, exists := attrs.Get(key); exists || p.str[f] == "error" {
					continue
				}
			}
			attrs.PutStr(key, p.str[f])
			continue
		case semconv.TypeInt:
			attrs.PutInt(key, p.num[f])
			continue
		}
		start, end := p.span[f][0], p.span[f][1]
		s.pos = start // the scanner is still on the line
		v := attrs.PutEmpty(key)
		switch f.Type() {
		case semconv.TypeDouble:
			if s.peek() == '{' {
				d.value(v)
			} else {
				v.SetDouble(s.float())
			}
		case semconv.TypeStrings:
			d.value(v)
			// A finish reason read from a single-string key goes back as one.
			if t, _ := f.SourceType(key); t == semconv.TypeString && v.Type() == pcommon.ValueTypeSlice && v.Slice().Len() == 1 {
				v.SetStr(v.Slice().At(0).AsString())
			}
		case semconv.TypeJSON:
			switch {
			case p.structured[f]:
				d.value(v)
			case s.data[start] == '"':
				v.SetStr(d.str())
			default:
				v.SetStr(d.lineStr[start:end]) // embedded JSON: the original string, byte for byte
				s.pos = end
			}
		}
		if s.err == nil && s.pos != end {
			s.fail("unexpected data in field")
		}
		if s.err != nil {
			return fmt.Errorf("field %q: %w", f.Name(), s.err)
		}
	}
	return nil
}

// resource decodes a resource's attributes, reusing the last line's
// resource when it is the same.
func (d *decoder) resource(raw []byte, dropped uint32, schema string) (pcommon.Resource, error) {
	lr := &d.lastRes
	if lr.ok && bytes.Equal(lr.raw, raw) && lr.res.DroppedAttributesCount() == dropped && lr.schema == schema {
		return lr.res, nil
	}
	res := pcommon.NewResource()
	d.sc.reset(raw)
	d.attrs(res.Attributes())
	if d.sc.err != nil {
		return res, d.sc.err
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
	s.reset(raw)
	if !s.open('{') {
		return "", s.err
	}
	for first := true; s.more(&first, '}'); {
		switch string(s.key()) {
		case "name":
			sc.SetName(s.str())
		case "version":
			sc.SetVersion(s.str())
		case "attrs":
			d.attrs(sc.Attributes())
		case "dropped":
			sc.SetDroppedAttributesCount(d.uint32())
		case "schema_url":
			schema = s.str()
		default:
			s.skipValue()
		}
	}
	return schema, s.err
}

func (d *decoder) events(evs ptrace.SpanEventSlice) {
	s := &d.sc
	if !s.open('[') {
		return
	}
	for first := true; s.more(&first, ']'); {
		ev := evs.AppendEmpty()
		if !s.open('{') {
			return
		}
		for first := true; s.more(&first, '}'); {
			switch string(s.key()) {
			case "name":
				ev.SetName(d.str())
			case "time":
				ev.SetTimestamp(pcommon.Timestamp(d.timestamp()))
			case "attrs":
				d.attrs(ev.Attributes())
			case "dropped":
				ev.SetDroppedAttributesCount(d.uint32())
			default:
				s.skipValue()
			}
		}
	}
}

func (d *decoder) links(links ptrace.SpanLinkSlice) {
	s := &d.sc
	if !s.open('[') {
		return
	}
	for first := true; s.more(&first, ']'); {
		l := links.AppendEmpty()
		if !s.open('{') {
			return
		}
		for first := true; s.more(&first, '}'); {
			switch string(s.key()) {
			case "trace_id":
				l.SetTraceID(d.traceID())
			case "span_id":
				l.SetSpanID(d.spanID())
			case "trace_state":
				l.TraceState().FromRaw(s.str())
			case "flags":
				l.SetFlags(d.uint32())
			case "attrs":
				d.attrs(l.Attributes())
			case "dropped":
				l.SetDroppedAttributesCount(d.uint32())
			default:
				s.skipValue()
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
	if d.sc.open('{') {
		d.members(m)
	}
}

func (d *decoder) hexID(dst []byte) {
	b := d.sc.strBytes()
	if d.sc.err != nil {
		return
	}
	if len(b) != 2*len(dst) {
		d.sc.fail("id %q: want %d hex digits", b, 2*len(dst))
		return
	}
	if _, err := hex.Decode(dst, b); err != nil {
		d.sc.fail("id %q: not hex", b)
	}
}

func (d *decoder) uint32() uint32 {
	v := d.sc.int()
	if v < 0 || v > math.MaxUint32 {
		d.sc.fail("%d out of range", v)
		return 0
	}
	return uint32(v)
}

func (d *decoder) spanKind() ptrace.SpanKind {
	s := &d.sc
	if c := s.peek(); c != '"' {
		return ptrace.SpanKind(int32(s.int()))
	}
	k := s.strBytes()
	for i, name := range spanKinds {
		if string(k) == name {
			return ptrace.SpanKind(i)
		}
	}
	s.fail("unknown span_kind %q", k)
	return 0
}

// timestamp reads an RFC 3339 time, or a number of epoch milliseconds as
// tool-dispatch traces write them, as nanoseconds since the epoch.
func (d *decoder) timestamp() uint64 {
	s := &d.sc
	if c := s.peek(); c != '"' {
		text, isInt := s.number()
		if s.err != nil {
			return 0
		}
		if isInt {
			// Integer milliseconds convert exactly; a float64 would not.
			ms, err := strconv.ParseUint(string(text), 10, 64)
			if err != nil || ms > math.MaxUint64/1_000_000 {
				s.fail("time %s out of range", text)
				return 0
			}
			return ms * 1_000_000
		}
		ms, err := strconv.ParseFloat(string(text), 64)
		if err != nil || ms < 0 || ms > math.MaxUint64/1e6 {
			s.fail("time %s out of range", text)
			return 0
		}
		return uint64(ms * 1e6)
	}
	b := s.strBytes()
	if s.err != nil {
		return 0
	}
	ns, err := parseTimestamp(b)
	if err != nil {
		s.fail("%v", err)
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

// decodeMeta decodes a header line. Besides the current fields it accepts
// the tool-dispatch trace's budget shapes: budget_tokens and warn_threshold
// at the top level, or "budget" as a number or an object.
func (d *decoder) decodeMeta(line []byte) (*Meta, error) {
	s := &d.sc
	s.reset(line)
	m := NewMeta(time.Time{})
	m.Producer = ""
	m.Version = 0
	var resRaw, scopeRaw []byte
	var resDropped uint32
	var budget Budget
	hasBudget, hasStart := false, false
	if !s.open('{') {
		return nil, s.err
	}
	for first := true; s.more(&first, '}'); {
		switch string(s.key()) {
		case "v":
			m.Version = int(s.int())
		case "started_at":
			ns := d.timestamp()
			m.StartedAt = UnixNano(ns)
			hasStart = true
		case "producer":
			m.Producer = s.str()
		case "core_version":
			m.CoreVersion = s.str()
		case "trace_id":
			m.TraceID = s.str()
		case "conversation_id":
			m.ConversationID = s.str()
		case "service":
			m.Service = s.str()
		case "resource":
			resRaw = s.skip()
		case "resource_dropped":
			resDropped = d.uint32()
		case "resource_schema_url":
			m.ResourceSchemaURL = s.str()
		case "scope":
			scopeRaw = s.skip()
		case "budget_tokens":
			budget.Tokens, hasBudget = s.int(), true
		case "warn_threshold":
			budget.WarnThreshold = s.float()
		case "budget":
			if s.peek() != '{' {
				budget.Tokens, hasBudget = int64(s.float()), true
				break
			}
			hasBudget = true
			s.open('{')
			for first := true; s.more(&first, '}'); {
				switch string(s.key()) {
				case "budget_tokens", "tokens":
					budget.Tokens = int64(s.float())
				case "budget_usd":
					if usd := s.float(); ValidUSD(usd) {
						budget.USD = usd
					}
				case "warn_threshold":
					budget.WarnThreshold = s.float()
				default:
					s.skipValue() // spent, overflowed: recomputed from the records
				}
			}
		case "redacted":
			m.Redacted = s.boolean()
		case "secrets_scanned":
			m.SecretsScanned = s.boolean()
		default:
			s.skipValue()
		}
	}
	s.end()
	if s.err != nil {
		return nil, s.err
	}
	if m.Version > Version {
		return nil, fmt.Errorf("%w: v=%d, this reader knows v=%d", ErrUnsupportedVersion, m.Version, Version)
	}
	if m.Version == 0 {
		m.Version = Version
	}
	if !hasStart {
		return nil, errors.New(`header has no "started_at"`)
	}
	if hasBudget {
		m.Budget = &budget
	}
	if resRaw != nil {
		s.reset(resRaw)
		d.attrs(m.Resource.Attributes())
		if s.err != nil {
			return nil, fmt.Errorf("resource: %w", s.err)
		}
		m.Resource.SetDroppedAttributesCount(resDropped)
	}
	if scopeRaw != nil {
		schema, err := d.scopeInto(m.Scope, scopeRaw)
		if err != nil {
			return nil, fmt.Errorf("scope: %w", err)
		}
		m.ScopeSchemaURL = schema
	}
	putHeaderOwned(m)
	return m, nil
}

// decodeSummary decodes a trailer line.
func (d *decoder) decodeSummary(line []byte) (*Summary, error) {
	s := &d.sc
	s.reset(line)
	sum := &Summary{}
	if !s.open('{') {
		return nil, s.err
	}
	for first := true; s.more(&first, '}'); {
		switch string(s.key()) {
		case "finished_at":
			sum.FinishedAt = UnixNano(d.timestamp())
		case "complete":
			sum.Complete = s.boolean()
		case "records":
			sum.Records = s.int()
		case "calls":
			sum.Calls = s.int()
		case "inferences":
			sum.Inferences = s.int()
		case "agents":
			sum.Agents = s.int()
		case "spans":
			sum.Spans = s.int()
		case "errors":
			sum.Errors = s.int()
		case "dropped":
			sum.Dropped = s.int()
		case "truncated":
			sum.Truncated = s.int()
		case "tokens":
			if !s.open('{') {
				break
			}
			for first := true; s.more(&first, '}'); {
				t := &sum.Tokens
				switch string(s.key()) {
				case "input":
					t.Input = s.int()
				case "output":
					t.Output = s.int()
				case "cache_read":
					t.CacheRead = s.int()
				case "cache_creation":
					t.CacheCreation = s.int()
				case "reasoning":
					t.Reasoning = s.int()
				case "total":
					t.Total = s.int()
				default:
					s.skipValue()
				}
			}
		case "budget":
			if s.literal("null") {
				break
			}
			b := &BudgetStatus{}
			sum.Budget = b
			if !s.open('{') {
				break
			}
			for first := true; s.more(&first, '}'); {
				switch string(s.key()) {
				case "budget_tokens":
					b.BudgetTokens = s.int()
				case "spent":
					b.Spent = s.int()
				case "remaining":
					b.Remaining = s.int()
				case "over_budget":
					b.OverBudget = s.boolean()
				case "near_budget":
					b.NearBudget = s.boolean()
				case "warn_threshold":
					b.WarnThreshold = s.float()
				case "budget_usd":
					b.cost().BudgetUSD = s.float()
				case "spent_usd":
					b.cost().SpentUSD = s.float()
				case "remaining_usd":
					b.cost().RemainingUSD = s.float()
				case "over_budget_usd":
					b.cost().OverBudgetUSD = s.boolean()
				case "near_budget_usd":
					b.cost().NearBudgetUSD = s.boolean()
				case "unpriced_calls":
					b.cost().UnpricedCalls = s.int()
				default:
					s.skipValue()
				}
			}
		default:
			s.skipValue()
		}
	}
	s.end()
	if s.err != nil {
		return nil, s.err
	}
	return sum, nil
}
