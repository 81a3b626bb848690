package converter_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/semconv"
)

// jsonSpans makes one tool call per value, its arguments and result
// both the value (a JSON field the encoder remembers per field), in
// order.
func jsonSpans(vals []string) []artifact.Record {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	ss := rs.ScopeSpans().AppendEmpty()
	for i, v := range vals {
		sp := ss.Spans().AppendEmpty()
		sp.SetTraceID(pcommon.TraceID{1})
		sp.SetSpanID(pcommon.SpanID{byte(i + 1)})
		sp.SetName("execute_tool t")
		a := sp.Attributes()
		a.PutStr(semconv.OperationName, "execute_tool")
		// A fresh copy each time: the same text in another string.
		a.PutStr(semconv.ToolCallArguments, strings.Clone(v))
		a.PutStr(semconv.ToolCallResult, v)
	}
	return artifact.Records(td)
}

// requireSameLines encodes recs with one Encoder, which remembers the
// JSON values it embedded, and each with an Encoder of its own, which
// remembers nothing: the lines must be the same bytes.
func requireSameLines(t *testing.T, recs []artifact.Record) {
	t.Helper()
	var shared artifact.Encoder
	for i := range recs {
		var fresh artifact.Encoder
		want := fresh.AppendRecord(nil, &recs[i])
		got := shared.AppendRecord(nil, &recs[i])
		require.Equal(t, string(want), string(got), "record %d", i)
	}
}

// TestEncoderRemembersEmbedded: a JSON value the same as the one its
// field embedded last is copied without a check, and nothing else is:
// a value of the same length that is not JSON, one with a newline, a
// value seen under another field, the empty string.
func TestEncoderRemembersEmbedded(t *testing.T) {
	obj := `{"origin":"BER","destination":"LIS","passengers":2}`
	for _, tc := range []struct {
		name string
		vals []string
	}{
		{"same value again", []string{obj, obj, obj}},
		{"same length, not JSON", []string{obj, strings.Replace(obj, "}", "!", 1), obj}},
		{"same length, a newline", []string{obj, strings.Replace(obj, ",", "\n", 1), obj}},
		{"same length, a space around it", []string{`[1,2] `, ` [1,2]`, `[1,2] `}},
		{"a string first, then JSON", []string{`{"a":` + "\n" + `1}`, `{"a":1}`, `{"a":1}`}},
		{"empty and short", []string{"", "{}", "", "[]", "[", "[]"}},
		{"invalid inside", []string{`[1,2]`, `[1,,]`, `[1,2]`}},
		{"the same plain text again", []string{"not JSON", "not JSON", "not JSON"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			requireSameLines(t, jsonSpans(tc.vals))
		})
	}
}

// FuzzEncoderRemembersEmbedded holds an Encoder that remembers embedded
// values to fresh ones on any three values in a row.
func FuzzEncoderRemembersEmbedded(f *testing.F) {
	f.Add(`{"a":1}`, `{"a":1}`, `{"a":2}`)
	f.Add(`[1]`, `[1`, `[1]`)
	f.Add(`{"a":"\u00e9"}`, "{\"a\":\"\xe9\"}", `{"a":"\u00e9"}`)
	f.Fuzz(func(t *testing.T, a, b, c string) {
		requireSameLines(t, jsonSpans([]string{a, b, c, a, b, c}))
	})
}
