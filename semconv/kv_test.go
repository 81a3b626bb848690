package semconv

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/otel/attribute"
)

// kvs turns a pdata map into SDK key-values, as an SDK span holds them.
func kvs(m pcommon.Map) []attribute.KeyValue {
	out := make([]attribute.KeyValue, 0, m.Len())
	for k, v := range m.All() {
		switch v.Type() {
		case pcommon.ValueTypeStr:
			out = append(out, attribute.String(k, v.Str()))
		case pcommon.ValueTypeInt:
			out = append(out, attribute.Int64(k, v.Int()))
		case pcommon.ValueTypeDouble:
			out = append(out, attribute.Float64(k, v.Double()))
		case pcommon.ValueTypeBool:
			out = append(out, attribute.Bool(k, v.Bool()))
		default:
			out = append(out, attribute.String(k, v.AsString()))
		}
	}
	return out
}

// TestReadKVAgreesWithRead holds the live budget's reader to the one the
// artifact is written with, on every span of every payload in testdata.
func TestReadKVAgreesWithRead(t *testing.T) {
	files, err := filepath.Glob("../testdata/*/*.json")
	require.NoError(t, err)
	// The real libraries' payloads too (some, @mastra/arize's, protobuf
	// only): their dialect spans that are a part of a call (partOfCall).
	real, err := filepath.Glob("../testdata/real/*/payloads/*.traces.pb")
	require.NoError(t, err)
	files = append(files, real...)
	n := 0
	for _, f := range files {
		raw, err := os.ReadFile(f)
		require.NoError(t, err)
		var td ptrace.Traces
		if filepath.Ext(f) == ".pb" {
			td, err = (&ptrace.ProtoUnmarshaler{}).UnmarshalTraces(raw)
		} else {
			td, err = (&ptrace.JSONUnmarshaler{}).UnmarshalTraces(raw)
		}
		if err != nil || td.SpanCount() == 0 {
			continue // not an OTLP/JSON document (expectations, line files)
		}
		for _, rs := range td.ResourceSpans().All() {
			for _, ss := range rs.ScopeSpans().All() {
				for _, sp := range ss.Spans().All() {
					var r Reading
					Read(&r, sp.Name(), sp.Attributes(), false)
					got := ReadKV(sp.Name(), kvs(sp.Attributes()))
					quick := ReadUsageKV(sp.Name(), kvs(sp.Attributes()))
					require.Equal(t, got.Kind, quick.Kind, "%s: %s", f, sp.Name())
					if got.Kind == Inference { // the only usage a budget counts
						require.Equal(t, got.Usage, quick.Usage, "%s: %s", f, sp.Name())
					}
					u := r.Usage()
					require.Equal(t, r.Kind, got.Kind, "%s: %s", f, sp.Name())
					require.Equal(t, Usage{Input: u.Input, Output: u.Output}, got.Usage, "%s: %s", f, sp.Name())
					require.Equal(t, r.Str(FieldConversationID), got.Conversation, "%s: %s", f, sp.Name())
					n++
				}
			}
		}
	}
	require.Greater(t, n, 50)
}

func BenchmarkReadKV(b *testing.B) {
	attrs := []attribute.KeyValue{
		attribute.String(OperationName, "chat"), attribute.String(ProviderName, "openai"),
		attribute.String(RequestModel, "gpt-4o"), attribute.String(ResponseModel, "gpt-4o-2024-08-06"),
		attribute.String(ResponseID, "chatcmpl-1"), attribute.Int64(UsageInputTokens, 1400),
		attribute.Int64(UsageOutputTokens, 200), attribute.Int64(UsageCacheReadInput, 512),
		attribute.String(InputMessages, `[{"role":"user"}]`), attribute.String(OutputMessages, `[{"role":"assistant"}]`),
		attribute.String("server.address", "api.openai.com"), attribute.Int("server.port", 443),
		attribute.String(ConversationID, "conv-1"),
	}
	b.ReportAllocs()
	for b.Loop() {
		ReadKV("chat gpt-4o", attrs)
	}
}

// TestKVLookupMatchesTable: the generated length switch knows every key
// the dialect table gives ReadKV, with its action, and nothing else.
func TestKVLookupMatchesTable(t *testing.T) {
	inTable := map[string]bool{}
	for _, k := range embedded.table.KVActions() {
		require.Equal(t, kvAction(k.Act), kvLookup(k.Key), k.Key)
		inTable[k.Key] = true
	}
	others := append(KnownKeys(), "", "gen_ai", "gen_ai.usage.input_tokenz", "http.request.method")
	for _, k := range others {
		if !inTable[k] {
			require.Equal(t, actNone, kvLookup(k), k)
		}
	}
}
