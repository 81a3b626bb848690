package semconv

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
)

// readRef is Read as it was before it kept a set of the fields the
// attributes can supply and before its own key table: every field's
// every source tried, keys looked up in the keyIDs map. Read must agree
// with it on every span (FuzzReadAgreesWithRef).
func readRef(r *Reading, name string, attrs pcommon.Map, statusError bool) {
	clear(r.seen[:numKeys])
	i := int32(0)
	n := uint8(0)
	for k, v := range attrs.All() {
		i++
		if id, ok := keyIDs[k]; ok && r.seen[id] == 0 {
			r.hits[n] = hit{val: v, idx: i, typ: v.Type()}
			n++
			r.seen[id] = n
		}
	}
	r.t = active.Load()
	r.ev = 0
	for k := range attrs.All() {
		if id, ok := keyIDs[k]; ok {
			r.ev |= embedded.keyEv[id]
		}
	}
	r.Kind, r.Dialect = r.classify(name, attrs)
	r.resolveRef(statusError)
	r.scope, r.scopeVer = "", ""
	r.attrs = attrs
}

func (r *Reading) resolveRef(statusError bool) {
	r.consumed = r.buf[:0]
	for f := range NumFields {
		r.src[f] = -1
		for si, s := range fieldSpecs[f].sources {
			id := srcIDs[f][si]
			h := r.seen[id]
			if h == 0 {
				continue
			}
			idx, v := r.hits[h-1].idx, r.hits[h-1].val
			if r.taken(idx) || !r.condHolds(s.cond, statusError) {
				continue
			}
			if s.typ == TypeString && f.Type() == TypeStrings {
				if v.Type() != pcommon.ValueTypeStr {
					continue
				}
			} else if !typeMatches(s.typ, v.Type(), v) {
				continue
			}
			if !r.acceptable(f, v) {
				continue
			}
			r.src[f] = int8(si)
			r.hv[f] = h - 1
			r.consumed = append(r.consumed, idx)
			break
		}
	}
	c := r.consumed
	for i := 1; i < len(c); i++ {
		for j := i; j > 0 && c[j] < c[j-1]; j-- {
			c[j], c[j-1] = c[j-1], c[j]
		}
	}
}

func (r *Reading) taken(idx int32) bool {
	for _, c := range r.consumed {
		if c == idx {
			return true
		}
	}
	return false
}

// fuzzAttrs builds an attribute map from data: each pair of bytes picks a
// key (a known one, a near miss of one, or an unknown one) and a value
// (of each type, including values the fields' rules refuse).
func fuzzAttrs(data []byte) pcommon.Map {
	keys := append(KnownKeys(), embedded.table.Lookups...)
	m := pcommon.NewMap()
	for i := 0; i+1 < len(data); i += 2 {
		kb, vb := data[i], data[i+1]
		k := keys[int(kb)%len(keys)]
		switch kb % 7 {
		case 5:
			k += "x"
		case 6:
			k = k[:len(k)-1]
		}
		if kb%11 == 3 {
			k = string([]byte{'a' + vb%26, kb})
		}
		if kb%17 == 9 { // a truncation marker, the bare prefix included
			k = TruncatedPrefix + k[:int(vb)%(len(k)+1)]
		}
		var v pcommon.Value
		if vb%13 == 0 {
			// A duplicate key: pdata keeps both, Get finds the first.
			kv := m.PutEmpty(k)
			v = kv
		} else {
			v = m.PutEmpty(k)
		}
		switch vb % 7 {
		case 6:
			v.SetStr([]string{`{"input":5,"output":3,"input_cached_tokens":2}`, `{"usage":{"inputTokens":4,"outputTokens":1}}`,
				`{"anthropic":{"usage":{"cache_creation_input_tokens":9}}}`, `{"total":0.25}`, "ERROR", "anthropic.messages"}[int(vb/7)%6])
		case 0:
			v.SetStr([]string{"chat", "error", "gpt-4o", "TOOL", "tool", "generation", "model", "", "ai.toolCall", "flow"}[int(vb/6)%10])
		case 1:
			v.SetInt(int64(vb))
		case 2:
			v.SetDouble(float64(vb) / 3)
		case 3:
			s := v.SetEmptySlice()
			s.AppendEmpty().SetStr("stop")
			if vb&64 != 0 {
				s.AppendEmpty().SetInt(1)
			}
		case 4:
			v.SetEmptyMap().PutStr("a", "b")
		case 5:
			v.SetBool(true)
		}
	}
	return m
}

func requireSameReading(t *testing.T, want, got *Reading) {
	t.Helper()
	require.Equal(t, want.Kind, got.Kind)
	require.Equal(t, want.Dialect, got.Dialect)
	require.Equal(t, want.src, got.src)
	require.Equal(t, want.consumed, got.consumed)
	for f := range NumFields {
		if want.Has(f) {
			require.Equal(t, want.Value(f).AsRaw(), got.Value(f).AsRaw(), f.Name())
			require.Equal(t, want.Value(f).Type(), got.Value(f).Type(), f.Name())
		}
	}
	require.Equal(t, want.seen[:numKeys], got.seen[:numKeys])
}

// FuzzReadAgreesWithRef holds Read to readRef, the code it replaced.
func FuzzReadAgreesWithRef(f *testing.F) {
	f.Add([]byte{0, 0, 1, 1, 2, 2}, "chat gpt-4o", false)
	f.Add([]byte{9, 6, 10, 12, 11, 18, 40, 7, 41, 13}, "ai.generateText.doGenerate", true)
	for i := range 64 {
		b := make([]byte, 24)
		for j := range b {
			b[j] = byte(i*37 + j*101)
		}
		f.Add(b, "span", i%2 == 0)
	}
	f.Fuzz(func(t *testing.T, data []byte, name string, statusError bool) {
		m := fuzzAttrs(data)
		var want, got Reading
		readRef(&want, name, m, statusError)
		Read(&got, name, m, statusError)
		requireSameReading(t, &want, &got)
		for _, scope := range []string{"", "@traceloop/instrumentation-anthropic"} {
			got.SetScope(scope, "")
			require.Equal(t, got.tokenUsageRef(), got.TokenUsage())
		}
		require.Equal(t, got.reportsErrorRef(), got.ReportsError())
		marks, ok := got.Markers(m)
		require.True(t, ok)
		require.Equal(t, markersRef(m), marks)
		_, ok = got.Markers(pcommon.NewMap())
		require.False(t, ok, "another map's markers")
		for _, k := range append(KnownKeys(), append(embedded.table.Lookups, "x", LFLevel+"x")...) {
			wv, wok := m.Get(k)
			gv, gok := got.Lookup(m, k)
			require.Equal(t, wok, gok, k)
			if wok {
				require.Equal(t, wv, gv, k) // the very same value
			}
		}
	})
}

// tokenUsageRef is TokenUsage as it was before Read noted the keys it
// reads: each looked up in the attributes.
func (r *Reading) tokenUsageRef() Usage {
	if r.Has(FieldInputTokens) || r.Has(FieldOutputTokens) {
		u := r.Usage()
		switch {
		case r.scope == "@traceloop/instrumentation-anthropic" && strings.EqualFold(r.Str(FieldProvider), "anthropic"):
			u.Input += u.CacheRead + u.CacheCreation
		case r.Dialect == DialectVercel && strings.HasPrefix(r.Str(FieldProvider), "anthropic.") && !hasAttrRef(r.attrs, AIUsageNoCache):
			if v, ok := r.attrs.Get(AIProviderMetadata); ok && !r.Has(FieldCacheCreationTokens) {
				u.CacheCreation = anthropicCacheWrite(v)
			}
			u.Input += u.CacheRead + u.CacheCreation
		}
		return u
	}
	if v, ok := r.attrs.Get(LFUsageDetails); ok {
		if u, ok := langfuseUsage(v); ok {
			return u
		}
	}
	if r.Dialect == DialectGenkit {
		if v, ok := r.attrs.Get(GenkitOutput); ok {
			if u, ok := genkitUsage(v); ok {
				return u
			}
		}
	}
	return r.Usage()
}

// reportsErrorRef is ReportsError as it was, looking Langfuse's level and
// Genkit's state up in the attributes.
func (r *Reading) reportsErrorRef() bool {
	if isError(attrStrRef(r.attrs, LFLevel)) || isError(attrStrRef(r.attrs, GenkitState)) {
		return true
	}
	// Two extensions of the one truth for errors (issue 21 point 4): a
	// model call's finish reasons left as an attribute count too, and a
	// JSON array held in a string is read as the array (Mastra's).
	var v pcommon.Value
	switch {
	case r.Has(FieldFinishReasons):
		v = r.Value(FieldFinishReasons)
	case r.Kind == Inference:
		var ok bool
		if v, ok = r.attrs.Get(ResponseFinishReasons); !ok {
			return false
		}
	default:
		return false
	}
	if v.Type() == pcommon.ValueTypeStr {
		if str := v.Str(); strings.HasPrefix(str, "[") {
			var reasons []string
			if json.Unmarshal([]byte(str), &reasons) == nil {
				return slices.ContainsFunc(reasons, isError)
			}
		}
		return isError(v.Str())
	}
	if v.Type() != pcommon.ValueTypeSlice {
		return false
	}
	s := v.Slice()
	for i := range s.Len() {
		if isError(s.At(i).Str()) {
			return true
		}
	}
	return false
}

func attrStrRef(m pcommon.Map, k string) string {
	if v, ok := m.Get(k); ok && v.Type() == pcommon.ValueTypeStr {
		return v.Str()
	}
	return ""
}

func hasAttrRef(m pcommon.Map, k string) bool {
	_, ok := m.Get(k)
	return ok
}

// markersRef counts the truncation markers of m in a walk of its own, as
// the converter did before Read counted them.
func markersRef(m pcommon.Map) int {
	n := 0
	for k := range m.All() {
		if strings.HasPrefix(k, TruncatedPrefix) {
			n++
		}
	}
	return n
}
