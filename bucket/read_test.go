package bucket

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/artifact"
)

// TestOpenRunLateGenerationReadsAsWhole (issue 23): a run whose late
// records came as a second generation reads, merged, as one artifact of
// all its records does (the ground truth: the store writing them all at
// once), kinds and tokens included:
//   - a late record that takes its scope from its own generation's
//     header, which differs from the first's (OpenLLMetry's chat span
//     under @traceloop/instrumentation-openai, the first generation
//     starting with a @traceloop/node-server-sdk span): it keeps its
//     scope once merged;
//   - a late chat span that is the child of a chat span of the first
//     generation (TestBucketEndToEnd's late span: a copy of the
//     Anthropic SDK's span under it): the two are one call reported
//     twice, so the merged run, like the whole one, counts the parent as
//     a wrapper span (semconv.Nesting), where the generations read apart
//     count two inferences.
func TestOpenRunLateGenerationReadsAsWhole(t *testing.T) {
	traceloop, _ := realRun(t, "openllmetry-traceloop-sdk", "tool-loop")
	require.Len(t, traceloop, 5)
	require.NotEqual(t, traceloop[0].Scope.Name(), traceloop[1].Scope.Name(), "the generations' headers differ in scope")
	anthropic, _ := realRun(t, "anthropic-sdk", "content-fail")
	require.Len(t, anthropic, 1)
	for _, tt := range []struct {
		name        string
		first, late []artifact.Record
	}{
		{"late record of another scope", traceloop[1:], traceloop[:1]},
		{"late chat under a chat", anthropic, []artifact.Record{childCopy(anthropic[0])}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			whole := writeArtifact(t, append(append([]artifact.Record{}, tt.first...), tt.late...), plog.NewLogs())
			wholeRaw, err := os.ReadFile(whole)
			require.NoError(t, err)
			first := writeArtifact(t, tt.first, plog.NewLogs())
			late := writeArtifact(t, tt.late, plog.NewLogs())
			name := filepath.Base(whole)
			for bname, b := range backends(t) {
				ctx := context.Background()
				_, _, err := b.Put(ctx, first, name, false)
				require.NoError(t, err, bname)
				k2, _, err := b.Put(ctx, late, name, false)
				require.NoError(t, err, bname)
				k, err := ParseKey(k2)
				require.NoError(t, err, bname)
				require.Equal(t, 2, k.Gen, bname)
				rc, err := b.OpenRun(ctx, k2)
				require.NoError(t, err, bname)
				merged := readAll(t, rc)
				assert.Equal(t, rowOf(t, wholeRaw), rowOf(t, merged), "%s: tokens of the merged run are the whole run's", bname)
			}
		})
	}
}

// childCopy is rec's span under a new id, a child of rec's span, in the
// same resource and scope: a span a collector got after the run was
// uploaded.
func childCopy(rec artifact.Record) artifact.Record {
	sp := ptrace.NewSpan()
	rec.Span.CopyTo(sp)
	sp.SetSpanID(pcommon.SpanID{0x1a, 0x7e, 0x5a, 0, 0, 0, 0, 1})
	sp.SetParentSpanID(rec.Span.SpanID())
	sp.SetName(rec.Span.Name() + " (late)")
	return artifact.Record{Span: sp, Resource: rec.Resource, ResourceSchemaURL: rec.ResourceSchemaURL, Scope: rec.Scope, ScopeSchemaURL: rec.ScopeSchemaURL}
}
