package semconv

import (
	"math/bits"
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"
)

// Dialect names the convention a span was classified by.
type Dialect uint8

// Dialects, in the order [Read] tries them. A dialect file may name more
// (their names come from the table: [Dialect.String]).
const (
	DialectNone Dialect = iota
	DialectGenAI
	DialectOpenInference
	DialectTraceloop
	DialectVercel
	DialectLangfuse
	DialectGenkit
	// DialectName: the span name, in the conventions' "{operation}
	// {target}" form or a bare operation name, decided the kind.
	DialectName
	// DialectEvidence: no rule decided, but the span names a model and
	// carries usage or messages (per the table's keys), or a provider's
	// own request or response body.
	DialectEvidence
)

var dialectNames = [...]string{"", "gen_ai", "openinference", "traceloop", "vercel", "langfuse", "genkit", "span_name", "evidence"}

// String returns the dialect's name, empty for DialectNone.
func (d Dialect) String() string {
	if names := active.Load().dialects; int(d) < len(names) {
		return names[d]
	}
	return ""
}

// keyID numbers every attribute key the table or the classifier looks at, so
// one map lookup per attribute is all a Reading costs.
type keyID uint16

// The embedded table's key ids and sources; a table laid over it keeps
// these ids (compile).
var (
	keyIDs   = embedded.keyIDs   // attribute key -> id
	keyTab   = &embedded.keyTab  // the same, for Read's walk
	numKeys  = embedded.numKeys  // ids below numKeys are in use
	numKnown = embedded.numKnown // ids below numKnown are the fields' and the classifier's
	srcIDs   = &embedded.srcIDs  // fieldSpecs[f].sources[i].key -> id

	idOp                                = keyIDs[OperationName]
	idAINoCache                         = keyIDs[AIUsageNoCache]
	idAIProvMeta, idLFUsage, idGKOutput = keyIDs[AIProviderMetadata], keyIDs[LFUsageDetails], keyIDs[GenkitOutput]
)

func init() {
	active.Store(embedded)
}

// maxKeys bounds the key table; TestKeyTableFits fails if the table outgrows it.
const maxKeys = 128

// A srcSpec is a field's source as resolve reads it.
type srcSpec struct {
	id   keyID
	typ  ValueType
	cond condition
	// want is the one attribute type the source takes, or anyType when
	// typeMatches must look closer (a list, a JSON value): resolve
	// compares it in line, this being most sources.
	want pcommon.ValueType
}

// anyType is srcSpec.want of a source typeMatches decides.
const anyType pcommon.ValueType = -1

// wantType is srcSpec.want of a source of type typ.
func wantType(typ ValueType) pcommon.ValueType {
	switch {
	case typ == TypeString: // for TypeStrings too: a one-element list
		return pcommon.ValueTypeStr
	case typ == TypeInt:
		return pcommon.ValueTypeInt
	case typ == TypeDouble:
		return pcommon.ValueTypeDouble
	}
	return anyType
}

// checked is the fields whose values Reading.acceptable judges.
const checked = fieldSet(1<<FieldOp | 1<<FieldCode | 1<<FieldRequestModel)

// noSources is Reading.src before resolve: every field absent.
var noSources = func() (a [NumFields]int8) {
	for f := range a {
		a[f] = -1
	}
	return a
}()

// A fieldSet has bit f set for each field f in it.
type fieldSet uint32

// fieldSet must hold every field.
var _ = [32 - NumFields]struct{}{}

// A Reading is what agenttrace reads off one span: its kind and, for each
// field, the attribute that supplies it. The zero value is ready for [Read];
// reuse one Reading across spans to avoid allocation. A Reading refers to the
// span's attribute map and is valid until that map changes.
type Reading struct {
	// Kind is the span's record kind.
	Kind Kind
	// Dialect is the convention that decided Kind.
	Dialect Dialect

	// seen is, for each key id, the number of its attribute among hits
	// + 1, 0 when absent. The attributes found are kept densely, in the
	// order the walk met them, rather than in an array indexed by key id:
	// a span has a handful of known keys out of a hundred, and a writer
	// that reads a batch before it tallies it keeps one Reading per
	// record, so what Read touches is what it costs. A promoted value is
	// a hit, named by its index (hv), not copied: no pointer writes per
	// field, which cost a write barrier while the GC marks.
	seen     [maxKeys]uint8
	hits     [maxKeys]hit
	src      [NumFields]int8  // index into fieldSpecs[f].sources, -1 when the field is absent
	hv       [NumFields]uint8 // the promoted value's index in hits
	consumed []int32          // attribute indexes promoted to fields, ascending
	buf      [NumFields]int32
	scope    string // instrumentation scope name and version, see SetScope
	scopeVer string
	attrs    pcommon.Map // for the few keys read only on some dialects' spans
	est      int64       // see SetCallEstimate
	hasEst   bool
	marks    int32 // attributes whose key begins with TruncatedPrefix, see Markers
	opNormal bool  // the operation name's attribute is a string that NormalizeOperation keeps as it is (classify)
	ev       evidence
	why      int16   // the rule that decided Kind, see Why
	t        *tables // the table Read applied
}

// A hit is an attribute with a key Read notes.
type hit struct {
	val pcommon.Value
	idx int32             // attribute index + 1
	typ pcommon.ValueType // val.Type(), asked once: it is a type switch
}

// SetScope tells the reading which instrumentation scope reported the
// span. [Reading.TokenUsage] needs it where a library's token counts
// differ from the conventions'; [Read] clears it.
func (r *Reading) SetScope(name, version string) { r.scope, r.scopeVer = name, version }

// Read fills r from a span's name, attributes and status. statusError tells
// whether the span's status is Error, the only case in which error.type is
// promoted to the record's code.
//
// Read walks the attributes once and never modifies them. It is safe to call
// from many goroutines on distinct Readings.
func Read(r *Reading, name string, attrs pcommon.Map, statusError bool) {
	read(r, name, attrs, statusError, nil)
}

// An AttrHook sees each attribute of [ReadWith]'s walk, in order, before
// the reading keeps it, and may change its value in place. The encoder
// plugs its redactor in (artifact.SpanRedactor is one), so that a span's
// attributes are redacted and read in one walk and the reading holds the
// redacted values.
type AttrHook interface {
	// Attr sees attribute key with value v.
	Attr(key string, v pcommon.Value)
}

// ReadWith is [Read] calling hook on each attribute in its walk, before
// reading it (nil: Read). The name is read as given: one the hook's owner
// changes (a redacted span name) is changed before.
func ReadWith(r *Reading, name string, attrs pcommon.Map, statusError bool, hook AttrHook) {
	read(r, name, attrs, statusError, hook)
}

func read(r *Reading, name string, attrs pcommon.Map, statusError bool, hook AttrHook) {
	t := active.Load()
	r.t = t
	clear(r.seen[:t.numKeys])
	i := int32(0)
	n := uint8(0)
	var fields fieldSet
	var ev evidence
	marks := int32(0)
	for k, v := range attrs.All() {
		i++
		id, ok := t.keyTab.find(k)
		if hook != nil {
			hook.Attr(k, v) // before v.Type(): a redacted value may be a new type
		}
		if ok {
			if r.seen[id] == 0 {
				// At most one hit per key id: n stays below maxKeys.
				r.hits[n] = hit{val: v, idx: i, typ: v.Type()}
				n++
				r.seen[id] = n
				fields |= t.keyFields[id]
				ev |= t.keyEv[id]
			}
		} else if len(k) >= len(TruncatedPrefix) && k[:len(TruncatedPrefix)] == TruncatedPrefix {
			// No key of the table has the prefix (TestNoKeyIsAMarker): a
			// marker is always a miss.
			marks++
		}
	}
	r.marks = marks
	r.ev = ev
	r.Kind, r.Dialect = r.classify(name, attrs)
	r.resolve(statusError, fields)
	r.scope, r.scopeVer = "", ""
	r.attrs = attrs
	r.hasEst = false
}

// SetCallEstimate keeps n, the estimated tokens of the tool call read
// from attrs (artifact.CallEstimate), with the reading until the next
// [Read]: a writer encodes a record, which writes the estimate, and then
// tallies it, which sums it, and the second asks [Reading.CallEstimate]
// instead of working it out again. It keeps nothing when attrs is not
// the map r was read from.
func (r *Reading) SetCallEstimate(attrs pcommon.Map, n int64) {
	if attrs == r.attrs {
		r.est, r.hasEst = n, true
	}
}

// CallEstimate returns the estimate SetCallEstimate kept for attrs since
// the last Read, and false when none was.
func (r *Reading) CallEstimate(attrs pcommon.Map) (int64, bool) {
	if !r.hasEst || attrs != r.attrs {
		return 0, false
	}
	return r.est, true
}

// Markers returns how many attributes of attrs are truncation markers
// (their key begins with [TruncatedPrefix]), counted by the
// last [Read], and false when attrs is not the map it read: a writer
// that cut nothing (nearly every span) then neither counts them nor
// looks for one in another walk.
func (r *Reading) Markers(attrs pcommon.Map) (int, bool) {
	if attrs != r.attrs {
		return 0, false
	}
	return int(r.marks), true
}

func (r *Reading) str(id keyID) string {
	h := r.seen[id]
	if h == 0 || r.hits[h-1].typ != pcommon.ValueTypeStr {
		return ""
	}
	return r.hits[h-1].val.Str()
}

// classify applies the dialect rules to what the walk found.
func (r *Reading) classify(name string, attrs pcommon.Map) (Kind, Dialect) {
	// The first rule decides nearly every span that has an operation
	// name; the others' facts are gathered only when it does not.
	op := r.str(idOp)
	norm := NormalizeOperation(op)
	// The promotion rule for op (acceptable) asks the same.
	r.opNormal = norm == op
	if k, ok := normalOperationKind(norm); ok {
		r.why = whyOp
		return k, DialectGenAI
	}
	t := r.t
	var v classVals
	for slot, id := range t.classIDs {
		if h := r.seen[id]; h != 0 {
			v[slot].ok = true
			if r.hits[h-1].typ == pcommon.ValueTypeStr {
				v[slot].s = r.hits[h-1].val.Str()
			}
		}
	}
	k, d, why := t.decide(name, &v, r.ev)
	if d == DialectNone && bodyEvidence(attrs) {
		k, d, why = Inference, DialectEvidence, whyBody
	}
	if partOfCall(k, why, r.ev) && !t.sentInput(attrs) && !bodyEvidence(attrs) {
		k, why = Span, why|whyPart
	}
	r.why = why
	return k, d
}

// sentInput reports whether some attribute of attrs holds what a model
// was sent (see [tables.sentKey]): asked only of a span partOfCall doubts.
func (t *tables) sentInput(attrs pcommon.Map) bool {
	for k := range attrs.All() {
		if t.sentKey(k) {
			return true
		}
	}
	return false
}

// sentKey reports whether an attribute with key k holds what a model was
// sent: a key of the table that names a model or holds input or system
// messages (evOwn), or one the message normalization reads a request
// from (a request body, flattened input messages, a dialect's input).
func (t *tables) sentKey(k string) bool {
	if id, ok := t.keyTab.find(k); ok && t.keyEv[id]&evOwn != 0 {
		return true
	}
	switch k {
	case OIInputValue, TLEntityInput, ADKLLMRequest, LFObservationInput, GenkitInput:
		return true
	}
	return strings.HasPrefix(k, OIInputMessages+".") || strings.HasPrefix(k, TLPromptPrefix)
}

// bodyEvidence reports whether some string attribute holds a provider's
// own request or response body naming a model and usage: the evidence of
// a model call whose library keeps everything there.
func bodyEvidence(attrs pcommon.Map) bool {
	for _, v := range attrs.All() {
		if v.Type() == pcommon.ValueTypeStr && providerBody(v.Str()) {
			return true
		}
	}
	return false
}

// operationKind returns the kind a gen_ai.operation.name value decides,
// and false when it decides none: the first rule of classifyFacts.
func operationKind(op string) (Kind, bool) {
	return normalOperationKind(NormalizeOperation(op))
}

// normalOperationKind is operationKind of an operation name already
// normalized.
func normalOperationKind(op string) (Kind, bool) {
	switch op {
	case OpChat, OpTextCompletion, OpGenerate, OpEmbeddings, OpRetrieval, "completion", "generate":
		return Inference, true
	case OpExecuteTool:
		return Call, true
	case OpInvokeAgent, OpCreateAgent, OpInvokeWorkflow:
		return Agent, true
	}
	return Span, false
}

func (r *Reading) condHolds(c condition, statusError bool) bool {
	switch c {
	case ifOpenInferenceTool:
		return r.Dialect == DialectOpenInference && r.Kind == Call
	case ifTraceloopTool:
		return r.Dialect == DialectTraceloop && r.Kind == Call
	case ifTraceloopAgent:
		return r.Dialect == DialectTraceloop && r.Kind == Agent
	case ifError:
		return statusError
	case ifGenkitModel:
		return r.Dialect == DialectGenkit && r.Kind == Inference
	case ifGenkitTool:
		return r.Dialect == DialectGenkit && r.Kind == Call
	case ifGenkitFlow:
		return r.Dialect == DialectGenkit && r.Kind == Agent
	}
	return true
}

// typeMatches reports whether v, of type t, can be a source of type want.
func typeMatches(want ValueType, t pcommon.ValueType, v pcommon.Value) bool {
	switch want {
	case TypeString:
		return t == pcommon.ValueTypeStr
	case TypeInt:
		return t == pcommon.ValueTypeInt
	case TypeDouble:
		return t == pcommon.ValueTypeDouble
	case TypeStrings:
		if t != pcommon.ValueTypeSlice {
			return false
		}
		s := v.Slice()
		for i := range s.Len() {
			if s.At(i).Type() != pcommon.ValueTypeStr {
				return false
			}
		}
		return true
	case TypeJSON:
		switch t {
		case pcommon.ValueTypeStr, pcommon.ValueTypeMap, pcommon.ValueTypeSlice:
			return true
		}
	}
	return false
}

// resolve promotes each field's first acceptable source, fields in
// order; fields holds every field some attribute seen is a source of (the
// others have none).
func (r *Reading) resolve(statusError bool, fields fieldSet) {
	r.consumed = r.buf[:0]
	r.src = noSources
	// taken has bit id set once key id's attribute is promoted: it is
	// then not offered to a later field. (An attribute has one key, so
	// this is the attribute's index in consumed.)
	var taken [maxKeys / 64]uint64
	specs := &r.t.srcSpecs
	for ; fields != 0; fields &= fields - 1 {
		f := Field(bits.TrailingZeros32(uint32(fields)))
		for si, s := range specs[f] {
			id := s.id
			h := r.seen[id]
			if h == 0 || taken[id/64]&(1<<(id%64)) != 0 || s.cond != always && !r.condHolds(s.cond, statusError) {
				continue
			}
			a := &r.hits[h-1]
			if s.want != anyType {
				if a.typ != s.want {
					continue
				}
			} else if !typeMatches(s.typ, a.typ, a.val) {
				continue
			}
			if checked&(1<<f) != 0 && !r.acceptable(f, a.val) {
				continue
			}
			r.src[f] = int8(si)
			r.hv[f] = uint8(h - 1)
			r.consumed = append(r.consumed, a.idx)
			taken[id/64] |= 1 << (id % 64)
			break
		}
	}
	// Ascending order lets a writer skip promoted attributes in one walk.
	c := r.consumed
	for i := 1; i < len(c); i++ {
		for j := i; j > 0 && c[j] < c[j-1]; j-- {
			c[j], c[j-1] = c[j-1], c[j]
		}
	}
}

// acceptable holds the value rules that keep promotion lossless.
func (r *Reading) acceptable(f Field, v pcommon.Value) bool {
	switch f {
	case FieldOp:
		// A value that normalizes differently stays an attribute. Its
		// one source is the attribute classify normalized.
		return r.opNormal
	case FieldCode:
		// "error" is what a failed span without error.type reads as;
		// an error.type spelled "error" stays an attribute.
		return v.Str() != "error"
	case FieldRequestModel:
		// Only a request model that differs from the model is its own field.
		return r.src[FieldModel] >= 0 && r.Value(FieldModel).Str() != v.Str()
	}
	return true
}

// Lookup is attrs.Get(k). When attrs is the map r was read from, a key
// Read notes (a field's source, a classifier's key, or one of the few
// read later: Langfuse's cost_details, agenttrace.estimated_tokens) is
// answered from Read's walk, without walking the attributes again.
func (r *Reading) Lookup(attrs pcommon.Map, k string) (pcommon.Value, bool) {
	if attrs == r.attrs {
		if id, ok := r.t.keyTab.find(k); ok {
			return r.attr(id)
		}
	}
	return attrs.Get(k)
}

// attr is the attribute with key id, the first one when several have it
// (as pcommon.Map.Get finds it).
func (r *Reading) attr(id keyID) (pcommon.Value, bool) {
	h := r.seen[id]
	if h == 0 {
		return pcommon.Value{}, false
	}
	return r.hits[h-1].val, true
}

// Has reports whether field f is present.
func (r *Reading) Has(f Field) bool { return r.src[f] >= 0 }

// Value returns the attribute value that supplies f; valid only if Has(f).
func (r *Reading) Value(f Field) pcommon.Value { return r.hits[r.hv[f]].val }

// Str returns a string field, or "" when absent.
func (r *Reading) Str(f Field) string {
	if r.src[f] < 0 || r.hits[r.hv[f]].typ != pcommon.ValueTypeStr {
		return ""
	}
	return r.hits[r.hv[f]].val.Str()
}

// Int returns an integer field, or 0 when absent.
func (r *Reading) Int(f Field) int64 {
	if r.src[f] < 0 {
		return 0
	}
	return r.hits[r.hv[f]].val.Int()
}

// Source returns the attribute key that supplied f, or "" when absent.
func (r *Reading) Source(f Field) string {
	if r.src[f] < 0 {
		return ""
	}
	return r.t.specs[f].sources[r.src[f]].key
}

// Aliased reports whether f came from a key other than its canonical one, so
// that a record must name the key to be converted back exactly.
func (r *Reading) Aliased(f Field) bool { return r.src[f] > 0 }

// Consumed returns the indexes, in attribute order, of the attributes that
// fields were read from; a writer that promotes fields skips them.
func (r *Reading) Consumed() []int32 { return r.consumed }

// Model returns the model, or "" when the span names none.
func (r *Reading) Model() string { return r.Str(FieldModel) }

// Usage returns the token usage the span reports.
func (r *Reading) Usage() Usage {
	return Usage{
		Input:         r.Int(FieldInputTokens),
		Output:        r.Int(FieldOutputTokens),
		CacheRead:     r.Int(FieldCacheReadTokens),
		CacheCreation: r.Int(FieldCacheCreationTokens),
		Reasoning:     r.Int(FieldReasoningTokens),
	}
}

// Usage is token usage as the conventions define it: Input includes cached
// input tokens; CacheRead and CacheCreation are subsets of Input, Reasoning
// a subset of Output.
type Usage struct {
	Input, Output, CacheRead, CacheCreation, Reasoning int64
}

// Add adds o to u.
func (u *Usage) Add(o Usage) {
	u.Input += o.Input
	u.Output += o.Output
	u.CacheRead += o.CacheRead
	u.CacheCreation += o.CacheCreation
	u.Reasoning += o.Reasoning
}

// Sub subtracts o from u: usage counted for a span that turned out to be
// a wrapper.
func (u *Usage) Sub(o Usage) {
	u.Input -= o.Input
	u.Output -= o.Output
	u.CacheRead -= o.CacheRead
	u.CacheCreation -= o.CacheCreation
	u.Reasoning -= o.Reasoning
}

// Total is input plus output tokens: what a budget spends.
func (u Usage) Total() int64 { return u.Input + u.Output }

// IsZero reports whether no usage was recorded. It ORs the classes
// rather than comparing structs: Go compares a struct of five words with a
// call to memequal, and the usage rule asks this of every span.
func (u Usage) IsZero() bool {
	return u.Input|u.Output|u.CacheRead|u.CacheCreation|u.Reasoning == 0
}
