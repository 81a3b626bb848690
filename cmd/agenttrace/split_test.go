package main

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/internal/artifacttest"
	"github.com/agenttrace/agenttrace/semconv"
	"github.com/agenttrace/agenttrace/store"
)

// conversationTraces builds three traces: two turns of one conversation
// (its id is not a safe file name) and one trace that names none.
func conversationTraces(t *testing.T, conv string) string {
	t.Helper()
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", "chat")
	spans := rs.ScopeSpans().AppendEmpty().Spans()
	add := func(trace, span byte, parent byte, conv string, at uint64) {
		sp := spans.AppendEmpty()
		sp.SetTraceID(pcommon.TraceID{trace})
		sp.SetSpanID(pcommon.SpanID{trace, span})
		if parent != 0 {
			sp.SetParentSpanID(pcommon.SpanID{trace, parent})
		}
		sp.SetName("chat m")
		sp.SetStartTimestamp(pcommon.Timestamp(at * 1e9))
		sp.SetEndTimestamp(pcommon.Timestamp(at*1e9 + 5e8))
		sp.Attributes().PutStr(semconv.OperationName, "chat")
		sp.Attributes().PutStr(semconv.RequestModel, "m")
		sp.Attributes().PutInt(semconv.UsageInputTokens, 10)
		if conv != "" {
			sp.Attributes().PutStr(semconv.ConversationID, conv)
		}
	}
	add(1, 1, 0, conv, 1)
	add(1, 2, 1, "", 2) // a span of the turn that names no conversation itself
	add(2, 1, 0, conv, 3)
	add(3, 1, 0, "", 4)
	b, err := (&ptrace.JSONMarshaler{}).MarshalTraces(td)
	require.NoError(t, err)
	return writeTemp(t, "conversation.json", string(b))
}

func listDir(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return names
}

func TestConvertSplit(t *testing.T) {
	const conv = "../conv 42/ü"
	src := conversationTraces(t, conv)
	convFile := store.FileName(store.ConversationKey(conv), "")
	trace3 := pcommon.TraceID{3}.String() + ".jsonl"
	tests := []struct {
		name  string
		args  []string
		files map[string]int // file -> records
	}{
		{"by trace", nil, map[string]int{
			pcommon.TraceID{1}.String() + ".jsonl": 2, pcommon.TraceID{2}.String() + ".jsonl": 1, trace3: 1,
		}},
		{"by conversation", []string{"--group-by", "conversation"}, map[string]int{convFile: 3, trace3: 1}},
		{"by conversation to OTLP", []string{"--group-by", "conversation", "--to", "otlp-proto"}, map[string]int{
			strings.TrimSuffix(convFile, ".jsonl") + ".pb": 3, pcommon.TraceID{3}.String() + ".pb": 1,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "out")
			r := agenttrace(t, "", append([]string{"convert", src, "--split", dir}, tt.args...)...)
			require.Equal(t, 0, r.code, r.stderr)
			var want []string
			for f := range tt.files {
				want = append(want, f)
			}
			sort.Strings(want)
			assert.Equal(t, want, listDir(t, dir), "nothing escapes DIR")
			printed := lines(r.stdout)
			sort.Strings(printed)
			var wantPaths []string
			for _, f := range want {
				wantPaths = append(wantPaths, filepath.Join(dir, f))
			}
			assert.Equal(t, wantPaths, printed)
			for f, n := range tt.files {
				path := filepath.Join(dir, f)
				if strings.HasSuffix(f, ".pb") {
					assert.Len(t, spansOf(t, path), n, f)
					continue
				}
				recs, meta := artifacttest.Read(t, path)
				assert.Len(t, recs, n, f)
				if f == convFile {
					assert.Equal(t, conv, meta.ConversationID)
				}
			}
		})
	}
}

// TestConvertSplitFixture runs on the generated conversation fixture when
// it exists: two traces of one conversation.
func TestConvertSplitFixture(t *testing.T) {
	src := "../../testdata/otlp/conversation.json"
	if _, err := os.Stat(src); err != nil {
		t.Skip("testdata/otlp/conversation.json not generated yet; TestConvertSplit covers the same case")
	}
	all := len(spansOf(t, src))
	for _, by := range []string{"trace", "conversation"} {
		dir := t.TempDir()
		r := agenttrace(t, "", "convert", src, "--split", dir, "--group-by", by)
		require.Equal(t, 0, r.code, r.stderr)
		files := lines(r.stdout)
		if by == "trace" {
			assert.Len(t, files, 2)
		} else {
			assert.Len(t, files, 1)
		}
		total := 0
		for _, f := range files {
			recs, _ := artifacttest.Read(t, f)
			total += len(recs)
		}
		assert.Equal(t, all, total)
	}
}

// TestStreamedHeaderIsWhole: a streamed conversion (an imported shape to
// one artifact, record by record) writes the header a whole conversion
// of the same records writes, and the same one --split writes for its one
// trace: the earliest start, the trace id.
func TestStreamedHeaderIsWhole(t *testing.T) {
	for _, in := range []string{"transcript.jsonl", "events.jsonl", "trajectory.jsonl", "jaeger.json"} {
		t.Run(in, func(t *testing.T) {
			src := filepath.Join("../../testdata/shapes", in)
			dir := t.TempDir()
			streamed, whole := filepath.Join(dir, "streamed.jsonl"), filepath.Join(dir, "whole.jsonl")
			r := agenttrace(t, "", "convert", src, "-o", streamed)
			require.Equal(t, 0, r.code, r.stderr)
			r = agenttrace(t, "", "convert", streamed, "-o", whole) // an artifact is read whole
			require.Equal(t, 0, r.code, r.stderr)
			recs, sm := artifacttest.Read(t, streamed)
			_, wm := artifacttest.Read(t, whole)
			assert.Equal(t, wm.StartedAt, sm.StartedAt)
			assert.Equal(t, wm.TraceID, sm.TraceID)
			assert.Equal(t, wm.ConversationID, sm.ConversationID)
			earliest := recs[0].Span.StartTimestamp()
			for _, rec := range recs {
				earliest = min(earliest, rec.Span.StartTimestamp())
			}
			assert.Equal(t, earliest.AsTime(), sm.StartedAt, "the earliest start, not the first record's")

			split := filepath.Join(dir, "split")
			r = agenttrace(t, "", "convert", src, "--split", split)
			require.Equal(t, 0, r.code, r.stderr)
			for _, path := range lines(r.stdout) {
				_, m := artifacttest.Read(t, path)
				if m.TraceID == sm.TraceID {
					assert.Equal(t, sm.StartedAt, m.StartedAt, path)
				}
			}
		})
	}
}
