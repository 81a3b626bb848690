package artifact_test

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/internal/artifacttest"
	"github.com/agenttrace/agenttrace/semconv"
)

// bigSpan returns a record of one span whose attributes set fills in.
func bigSpan(set func(sp ptrace.Span)) *artifact.Record {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	ss := rs.ScopeSpans().AppendEmpty()
	sp := ss.Spans().AppendEmpty()
	sp.SetTraceID(pcommon.TraceID{1})
	sp.SetSpanID(pcommon.SpanID{2})
	sp.SetName("execute_tool fetch")
	sp.SetStartTimestamp(1e18)
	sp.SetEndTimestamp(1e18 + 1e9)
	set(sp)
	return &artifact.Record{Span: sp, Resource: rs.Resource(), Scope: ss.Scope()}
}

// readBack reads an artifact with the line limit, failing on any problem:
// every line can be read with the limit it was written with.
func readBack(t *testing.T, b []byte, limit int) ([]artifact.Record, *artifact.Summary) {
	t.Helper()
	recs, r := artifacttest.ReadBytes(t, b, artifact.WithMaxLineSize(limit))
	return recs, r.Summary()
}

// markers returns the truncation markers of sp, by where and key.
func markers(sp ptrace.Span) map[string]int64 {
	out := map[string]int64{}
	artifact.Truncated(sp, func(where, key string, size int64) { out[where+"|"+key] = size })
	return out
}

// TestWriterTruncates: a record too long for the line limit is written
// with its largest values cut, each marked with its original length, and
// counted in the trailer; the caller's span is untouched.
func TestWriterTruncates(t *testing.T) {
	const limit = 4096
	big := strings.Repeat("x", 10_000)
	tests := []struct {
		name    string
		set     func(sp ptrace.Span)
		markers map[string]int64
		check   func(t *testing.T, sp ptrace.Span)
	}{
		{
			name: "string attribute",
			set: func(sp ptrace.Span) {
				sp.Attributes().PutStr("payload", big)
				sp.Attributes().PutStr("small", "kept")
			},
			markers: map[string]int64{"|payload": 10_000},
			check: func(t *testing.T, sp ptrace.Span) {
				v, _ := sp.Attributes().Get("payload")
				assert.True(t, strings.HasPrefix(big, v.Str()), "a prefix is kept")
				assert.Greater(t, len(v.Str()), limit/2, "as much as fits")
				v, _ = sp.Attributes().Get("small")
				assert.Equal(t, "kept", v.Str())
			},
		},
		{
			name: "the largest of two is cut first",
			set: func(sp ptrace.Span) {
				sp.Attributes().PutStr("a", strings.Repeat("a", 3000))
				sp.Attributes().PutStr("b", strings.Repeat("b", 2000))
			},
			markers: map[string]int64{"|a": 3000},
			check: func(t *testing.T, sp ptrace.Span) {
				v, _ := sp.Attributes().Get("b")
				assert.Len(t, v.Str(), 2000)
			},
		},
		{
			name:    "multibyte text is cut at a character",
			set:     func(sp ptrace.Span) { sp.Attributes().PutStr("text", strings.Repeat("é€", 2000)) },
			markers: map[string]int64{"|text": 10_000},
			check: func(t *testing.T, sp ptrace.Span) {
				v, _ := sp.Attributes().Get("text")
				assert.True(t, strings.HasPrefix(strings.Repeat("é€", 2000), v.Str()))
			},
		},
		{
			name:    "bytes",
			set:     func(sp ptrace.Span) { sp.Attributes().PutEmptyBytes("blob").FromRaw(bytes.Repeat([]byte{7}, 10_000)) },
			markers: map[string]int64{"|blob": 10_000},
			check: func(t *testing.T, sp ptrace.Span) {
				v, _ := sp.Attributes().Get("blob")
				assert.Equal(t, pcommon.ValueTypeBytes, v.Type(), "the type is kept")
			},
		},
		{
			name: "a string deep in a structured value",
			set: func(sp ptrace.Span) {
				msgs := sp.Attributes().PutEmptySlice(semconv.InputMessages)
				m := msgs.AppendEmpty().SetEmptyMap()
				m.PutStr("role", "user")
				m.PutEmptySlice("parts").AppendEmpty().SetEmptyMap().PutStr("content", big)
			},
			markers: map[string]int64{"|" + semconv.InputMessages: int64(len(`[{"role":"user","parts":[{"content":""}]}]`) + len(big))},
			check: func(t *testing.T, sp ptrace.Span) {
				v, _ := sp.Attributes().Get(semconv.InputMessages)
				require.Equal(t, pcommon.ValueTypeSlice, v.Type(), "the structure is kept")
				role, _ := v.Slice().At(0).Map().Get("role")
				assert.Equal(t, "user", role.Str())
			},
		},
		{
			name: "a tool result",
			set: func(sp ptrace.Span) {
				sp.Attributes().PutStr(semconv.OperationName, "execute_tool")
				sp.Attributes().PutStr(semconv.ToolName, "fetch")
				sp.Attributes().PutStr(semconv.ToolCallResult, big)
			},
			markers: map[string]int64{"|" + semconv.ToolCallResult: 10_000},
		},
		{
			name: "an event attribute",
			set: func(sp ptrace.Span) {
				ev := sp.Events().AppendEmpty()
				ev.SetName("gen_ai.choice")
				ev.Attributes().PutStr("message", big)
			},
			markers: map[string]int64{"event gen_ai.choice|message": 10_000},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := bigSpan(tt.set)
			before := ptrace.NewSpan()
			rec.Span.CopyTo(before)
			var out bytes.Buffer
			w := artifact.NewWriter(&out, nil, artifact.WithMaxLineSize(limit))
			require.NoError(t, w.Write(rec))
			require.NoError(t, w.Close())

			assert.True(t, reflect.DeepEqual(before.Attributes().AsRaw(), rec.Span.Attributes().AsRaw()) &&
				before.Events().Len() == rec.Span.Events().Len() && (before.Events().Len() == 0 ||
				reflect.DeepEqual(before.Events().At(0).Attributes().AsRaw(), rec.Span.Events().At(0).Attributes().AsRaw())),
				"the caller's span is not changed")
			for i, line := range bytes.Split(bytes.TrimSuffix(out.Bytes(), []byte("\n")), []byte("\n")) {
				assert.LessOrEqual(t, len(line), limit, "line %d", i+1)
			}
			recs, sum := readBack(t, out.Bytes(), limit)
			require.Len(t, recs, 1)
			assert.Equal(t, tt.markers, markers(recs[0].Span))
			require.NotNil(t, sum)
			assert.Equal(t, int64(len(tt.markers)), sum.Truncated)
			assert.Equal(t, int64(1), sum.Records)
			assert.Zero(t, sum.Dropped)
			if tt.check != nil {
				tt.check(t, recs[0].Span)
			}

			// Written again (convert artifact -> artifact), the count stays.
			var again bytes.Buffer
			w = artifact.NewWriter(&again, nil, artifact.WithMaxLineSize(limit))
			require.NoError(t, w.Write(&recs[0]))
			require.NoError(t, w.Close())
			_, sum2 := readBack(t, again.Bytes(), limit)
			assert.Equal(t, sum.Truncated, sum2.Truncated)
		})
	}
}

// TestWriterTruncatedCallEstimate: a tool result cut short still counts
// whole in the call's estimate, in the record and in the trailer.
func TestWriterTruncatedCallEstimate(t *testing.T) {
	rec := bigSpan(func(sp ptrace.Span) {
		sp.Attributes().PutStr(semconv.OperationName, "execute_tool")
		sp.Attributes().PutStr(semconv.ToolName, "fetch")
		sp.Attributes().PutStr(semconv.ToolCallResult, strings.Repeat("r", 40_000))
	})
	var out bytes.Buffer
	w := artifact.NewWriter(&out, nil, artifact.WithMaxLineSize(4096))
	require.NoError(t, w.Write(rec))
	require.NoError(t, w.Close())
	assert.Contains(t, out.String(), `"estimated_tokens":10000`)
	recs, _ := readBack(t, out.Bytes(), 4096)
	var tally artifact.Tally
	tally.Add(&recs[0])
	assert.Equal(t, int64(10_000), tally.Spent(), "a tool-dispatch budget sees the whole result")
}

// TestWriterCannotFit: a record of very many small values, none worth
// cutting, is not written but counted as dropped: never a line a reader
// skips, never a silent loss.
func TestWriterCannotFit(t *testing.T) {
	rec := bigSpan(func(sp ptrace.Span) {
		for i := range 1000 {
			sp.Attributes().PutInt(strings.Repeat("k", 20)+string(rune('a'+i%26))+strings.Repeat("0", i%7)+string(rune('A'+i/26)), int64(i))
		}
	})
	var out bytes.Buffer
	w := artifact.NewWriter(&out, nil, artifact.WithMaxLineSize(4096))
	require.NoError(t, w.Write(rec))
	require.NoError(t, w.Close())
	recs, sum := readBack(t, out.Bytes(), 4096)
	assert.Empty(t, recs)
	assert.Equal(t, int64(1), sum.Dropped)
	assert.Zero(t, sum.Records)
}

// TestWriterTruncatesAtTheDefaultLimit: a 20 MiB value with no option
// given is cut to fit the Reader's default limit.
func TestWriterTruncatesAtTheDefaultLimit(t *testing.T) {
	const size = 20 << 20
	rec := bigSpan(func(sp ptrace.Span) {
		sp.Attributes().PutStr(semconv.ToolCallResult, strings.Repeat("r", size))
	})
	var out bytes.Buffer
	w := artifact.NewWriter(&out, nil)
	assert.Equal(t, artifact.DefaultMaxLineSize, w.MaxLineSize())
	require.NoError(t, w.Write(rec))
	require.NoError(t, w.Close())
	recs, sum := readBack(t, out.Bytes(), 0)
	require.Len(t, recs, 1)
	assert.Equal(t, map[string]int64{"|" + semconv.ToolCallResult: size}, markers(recs[0].Span))
	assert.Equal(t, int64(1), sum.Truncated)
}

// TestWriterFitsWithoutCutting: records within the limit are written as
// they are, with no marker and no "truncated" in the trailer.
func TestWriterFitsWithoutCutting(t *testing.T) {
	rec := bigSpan(func(sp ptrace.Span) { sp.Attributes().PutStr("payload", strings.Repeat("x", 1000)) })
	var out bytes.Buffer
	w := artifact.NewWriter(&out, nil, artifact.WithMaxLineSize(4096))
	require.NoError(t, w.Write(rec))
	require.NoError(t, w.Close())
	assert.NotContains(t, out.String(), artifact.TruncatedPrefix)
	assert.NotContains(t, out.String(), `"truncated"`)
}

// FuzzWriterFits: whatever a span's values and the limit, every line the
// Writer writes is within the limit and reads back without a problem, and
// the span is either written (with a marker for each value it cut) or
// counted as dropped: never lost silently.
func FuzzWriterFits(f *testing.F) {
	f.Add(uint16(600), "hello", []byte{1, 2, 3}, uint16(3000), uint8(2))
	f.Add(uint16(300), "é€\x00\"\\\n", []byte{}, uint16(9000), uint8(0))
	f.Add(uint16(100), "", []byte{0xff}, uint16(0), uint8(40))
	f.Fuzz(func(t *testing.T, limit uint16, text string, blob []byte, repeat uint16, events uint8) {
		lim := 100 + int(limit)%20000
		rec := bigSpan(func(sp ptrace.Span) {
			sp.Attributes().PutStr("text", strings.Repeat(text, int(repeat)%5000))
			sp.Attributes().PutEmptyBytes("blob").FromRaw(bytes.Repeat(blob, int(repeat)%3000))
			m := sp.Attributes().PutEmptyMap("nested")
			m.PutStr("inner", strings.Repeat(text, int(repeat)%700))
			for i := range int(events) % 50 {
				ev := sp.Events().AppendEmpty()
				ev.SetName("e")
				ev.Attributes().PutStr("body", strings.Repeat(text, i*int(repeat)%400))
			}
		})
		var out bytes.Buffer
		w := artifact.NewWriter(&out, nil, artifact.WithMaxLineSize(lim))
		require.NoError(t, w.Write(rec))
		require.NoError(t, w.Close())
		for _, line := range bytes.Split(bytes.TrimSuffix(out.Bytes(), []byte("\n")), []byte("\n")) {
			// Only records are cut: the header and the trailer are what
			// they are (a limit too small for them is the caller's).
			if !bytes.HasPrefix(line, []byte(`{"v":1,"kind":"meta"`)) && !bytes.HasPrefix(line, []byte(`{"kind":"summary"`)) {
				require.LessOrEqual(t, len(line), lim)
			}
		}
		recs, sum := readBack(t, out.Bytes(), max(lim, out.Len()))
		require.NotNil(t, sum)
		require.Equal(t, int64(1), int64(len(recs))+sum.Dropped, "written or counted as dropped")
		if len(recs) == 1 {
			var n int64
			artifact.Truncated(recs[0].Span, func(string, string, int64) { n++ })
			require.Equal(t, n, sum.Truncated)
		}
	})
}
