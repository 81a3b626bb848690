package importer_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/importer"
	"github.com/agenttrace/agenttrace/semconv"
)

// TestForGrowingLeavesOpenSpansInFlight reads every prefix of the
// seed-shaped logs (a file as it looks while it is being written, line by
// line) both ways: read whole (For), what a prefix leaves open at its end
// — a tool call without its result, a model request without its
// response, an agent without its completion — is an error "incomplete";
// read as a file still growing (ForGrowing), the same span is a start
// record in flight, with no error, and a root without its final record
// spans what it has without failing. Every other record reads the same
// both ways.
func TestForGrowingLeavesOpenSpansInFlight(t *testing.T) {
	for _, tc := range []struct {
		file  string
		shape importer.Shape
	}{
		{"transcript.jsonl", importer.Transcript},
		{"transcript-edge.jsonl", importer.Transcript},
		{"trajectory-seed.jsonl", importer.Trajectory},
		{"trajectory.jsonl", importer.Trajectory},
		{"events.jsonl", importer.Events},
		{"events-cancelled.jsonl", importer.Events},
	} {
		t.Run(tc.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("../testdata/shapes", tc.file))
			require.NoError(t, err)
			lines := strings.SplitAfter(string(data), "\n")
			whole, ok := importer.For(tc.shape)
			require.True(t, ok)
			growing, ok := importer.ForGrowing(tc.shape)
			require.True(t, ok)
			flying := 0
			for n := 1; n <= len(lines); n++ {
				prefix := []byte(strings.Join(lines[:n], ""))
				done := readAll(t, whole, prefix)
				live := readAll(t, growing, prefix)
				require.Len(t, live, len(done), "line %d: the same spans", n)
				for id, d := range done {
					l, ok := live[id]
					require.True(t, ok, "line %d: span %s read growing too", n, d.Span.Name())
					switch {
					case l.InFlight:
						// Open at the end: failed when read whole.
						assert.Equal(t, ptrace.StatusCodeError, d.Span.Status().Code(), "line %d: %s", n, d.Span.Name())
						assert.NotEqual(t, "incomplete", errorType(l.Span), "line %d: %s is open, not failed, while the file grows", n, d.Span.Name())
						assert.False(t, d.Span.ParentSpanID().IsEmpty(), "line %d: a root spans what the log has so far", n)
						assert.Equal(t, d.Span.StartTimestamp(), l.Span.StartTimestamp())
						flying++
					case errorType(d.Span) == "incomplete":
						assert.True(t, d.Span.ParentSpanID().IsEmpty(), "line %d: %s failed as incomplete, not in flight, while growing", n, d.Span.Name())
						assert.NotEqual(t, "incomplete", errorType(l.Span), "line %d: a root without its final record does not fail while the log grows", n)
					default:
						assert.Equal(t, d.Span.EndTimestamp(), l.Span.EndTimestamp(), "line %d: %s", n, d.Span.Name())
						assert.Equal(t, d.Span.Status().Code(), l.Span.Status().Code(), "line %d: %s", n, d.Span.Name())
					}
				}
			}
			assert.Positive(t, flying, "some prefix leaves a span open")
		})
	}
}

// readAll reads data with read, by span id.
func readAll(t *testing.T, read importer.Func, data []byte) map[pcommon.SpanID]artifact.Record {
	t.Helper()
	out := map[pcommon.SpanID]artifact.Record{}
	_, err := read(bytes.NewReader(data), "log", func(rec *artifact.Record) error {
		out[rec.Span.SpanID()] = *rec
		return nil
	})
	require.NoError(t, err)
	return out
}

// errorType is sp's error.type, "" when it has none.
func errorType(sp ptrace.Span) string {
	if v, ok := sp.Attributes().Get(semconv.ErrorType); ok {
		return v.Str()
	}
	return ""
}
