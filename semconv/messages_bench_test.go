package semconv

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// realSpans returns every span of the captured payloads in
// testdata/real (their protobuf files), for benchmarks over real shapes.
func realSpans(tb testing.TB) []ptrace.Span {
	tb.Helper()
	files, err := filepath.Glob("../testdata/real/*/payloads/*.traces.pb")
	require.NoError(tb, err)
	require.NotEmpty(tb, files)
	var out []ptrace.Span
	for _, f := range files {
		raw, err := os.ReadFile(f)
		require.NoError(tb, err)
		td, err := (&ptrace.ProtoUnmarshaler{}).UnmarshalTraces(raw)
		require.NoError(tb, err, f)
		for _, rs := range td.ResourceSpans().All() {
			for _, ss := range rs.ScopeSpans().All() {
				for _, sp := range ss.Spans().All() {
					out = append(out, sp)
				}
			}
		}
	}
	return out
}

// BenchmarkMessages reads the conversation of every span of the real
// corpus once per iteration.
func BenchmarkMessages(b *testing.B) {
	spans := realSpans(b)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		for _, sp := range spans {
			_ = Messages(sp)
		}
	}
}
