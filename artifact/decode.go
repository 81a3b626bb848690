package artifact

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"unsafe"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/internal/jsonlex"
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
	sc     jsonlex.Scanner
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
		return s.Str()
	}
	s.WS()
	start := s.Pos + 1
	b := s.StrBytes()
	if s.Err == nil && len(b) == s.Pos-1-start {
		// Unescaped (escapes always shrink): the bytes are the line's.
		return d.lineStr[start : s.Pos-1]
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
		s.Reset(line)
		if s.Open('{') {
			for first := true; s.More(&first, '}'); {
				if string(s.Key()) == "kind" {
					k = []byte(s.Str())
					break
				}
				s.SkipValue()
			}
		}
		if s.Err != nil {
			return 0, "", s.Err
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
	s.Reset(line)
	p := &d.p
	*p = pending{}
	d.view(line)
	defer func() { d.viewable = false }()
	sp := rec.Span
	sp.SetKind(ptrace.SpanKindInternal) // what a record without span_kind means
	attrs := sp.Attributes()
	var own ownMeta
	if !s.Open('{') {
		return s.Err
	}
	for first := true; s.More(&first, '}'); {
		key := s.Key()
		switch string(key) {
		case "kind":
			p.kind = kindName(s.StrBytes())
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
		case "in_flight":
			rec.InFlight = s.Bool()
		case "elapsed_ms":
			// Derived; needed only by a record that lacks one of its times.
			p.elapsedRaw, p.hasElapsed = s.Skip(), true
		case "ok":
			p.ok, p.hasOK = s.Bool(), true
		case "status":
			p.statusOK = s.Str() == "ok"
		case "status_code":
			p.statusCode, p.hasCode = s.Int(), true
		case "message":
			sp.Status().SetMessage(d.str())
		case "estimated_tokens":
			p.estimated, p.hasEst = s.Int(), true
		case "usage":
			d.usage()
		case "aliases":
			d.aliases()
		case "structured":
			d.structured()
		case "attrs":
			// One allocation for every attribute the span will have.
			attrs.EnsureCapacity(attrs.Len() + p.nFields + s.CountMembers())
			if s.Open('{') {
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
			d.dropped(sp)
		case "resource", "resource_dropped", "resource_schema_url", "scope":
			d.ownMetaField(key, &own)
		default:
			if f, ok := semconv.FieldByName(string(key)); ok {
				d.field(f)
			} else {
				s.SkipValue() // unknown fields are ignored: forward compatible
			}
		}
	}
	s.End()
	if s.Err != nil {
		return s.Err
	}
	return d.finishRecord(rec, &own, def)
}

// finishRecord applies what a record's fields left pending (its status,
// the promoted fields put back as attributes) and gives it its resource
// and scope: its own, else def's.
func (d *decoder) finishRecord(rec *Record, own *ownMeta, def *Meta) error {
	sp := rec.Span
	d.applyStatus(sp)
	if err := d.applyFields(sp.Attributes()); err != nil {
		return err
	}
	d.viewable = false // resource and scope are decoded from copies
	res, resSchema, sc, scSchema, err := d.resourceAndScope(own, def)
	if err != nil {
		return err
	}
	rec.Resource, rec.ResourceSchemaURL, rec.Scope, rec.ScopeSchemaURL = res, resSchema, sc, scSchema
	return nil
}

// view makes line the one string values of this record may be views of:
// the reader's own copy of the line when line is it, else a copy made
// once.
func (d *decoder) view(line []byte) {
	d.lineStr, d.viewable = d.lineSrc, true
	if len(d.lineStr) != len(line) || (len(line) > 0 && unsafe.StringData(d.lineStr) != &line[0]) {
		d.lineStr = string(line) // not the reader's line: copy it once
	}
}

// usage reads a record's usage object: each token class is a field.
func (d *decoder) usage() {
	s := &d.sc
	if !s.Open('{') {
		return
	}
	for first := true; s.More(&first, '}'); {
		if f, ok := usageField(s.Key()); ok {
			d.field(f)
		} else {
			s.SkipValue()
		}
	}
}

// aliases reads which source key each lifted field came from.
func (d *decoder) aliases() {
	s, p := &d.sc, &d.p
	if !s.Open('{') {
		return
	}
	for first := true; s.More(&first, '}'); {
		f, ok := semconv.FieldByName(string(s.Key()))
		v := d.intern(s.StrBytes())
		if ok {
			p.alias[f] = v
		}
	}
}

// structured reads the fields that were JSON values at their source.
func (d *decoder) structured() {
	s, p := &d.sc, &d.p
	if !s.Open('[') {
		return
	}
	for first := true; s.More(&first, ']'); {
		if f, ok := semconv.FieldByName(string(s.StrBytes())); ok {
			p.structured[f] = true
		}
	}
}

// dropped reads a span's dropped attribute, event and link counts.
func (d *decoder) dropped(sp ptrace.Span) {
	s := &d.sc
	if !s.Open('{') {
		return
	}
	for first := true; s.More(&first, '}'); {
		switch string(s.Key()) {
		case "attrs":
			sp.SetDroppedAttributesCount(d.uint32())
		case "events":
			sp.SetDroppedEventsCount(d.uint32())
		case "links":
			sp.SetDroppedLinksCount(d.uint32())
		default:
			s.SkipValue()
		}
	}
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
		m.resRaw, m.ownRes = s.Skip(), true
	case "resource_dropped":
		m.resDropped = d.uint32()
	case "resource_schema_url":
		m.resSchema = s.Str()
	case "scope":
		m.scopeRaw, m.ownScope = s.Skip(), true
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
		p.num[f] = d.sc.Int()
	default:
		d.sc.WS()
		start := d.sc.Pos
		d.sc.SkipValue()
		p.span[f] = [2]int{start, d.sc.Pos}
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
		s.Pos = start // the scanner is still on the line
		v := attrs.PutEmpty(key)
		switch f.Type() {
		case semconv.TypeDouble:
			if s.Peek() == '{' {
				d.value(v)
			} else {
				v.SetDouble(s.Float())
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
			case s.Data[start] == '"':
				v.SetStr(d.str())
			default:
				v.SetStr(d.lineStr[start:end]) // embedded JSON: the original string, byte for byte
				s.Pos = end
			}
		}
		if s.Err == nil && s.Pos != end {
			s.Fail("unexpected data in field")
		}
		if s.Err != nil {
			return fmt.Errorf("field %q: %w", f.Name(), s.Err)
		}
	}
	return nil
}
