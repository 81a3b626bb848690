package converter_test

import (
	"cmp"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/converter"
)

// ModelCallsBy gives the calls ModelCalls gives, in the order asked
// (stable), for every captured library's traces; stopping early stops.
func TestModelCallsByReal(t *testing.T) {
	paths, err := filepath.Glob("../testdata/real/*/payloads/*.traces.pb")
	require.NoError(t, err)
	require.NotEmpty(t, paths)
	withCalls := 0
	for _, path := range paths {
		t.Run(filepath.Base(filepath.Dir(filepath.Dir(path)))+"/"+filepath.Base(path), func(t *testing.T) {
			recs := artifact.Records(readTracesFile(t, path))
			byStart := func(i, j int) int {
				return cmp.Compare(recs[i].Span.StartTimestamp(), recs[j].Span.StartTimestamp())
			}
			want := converter.ModelCalls(recs)
			slices.SortStableFunc(want, func(a, b converter.ModelCall) int { return byStart(a.Index, b.Index) })
			got := slices.Collect(converter.NewBatch(recs).ModelCallsBy(byStart))
			if len(want) == 0 {
				assert.Empty(t, got)
				return
			}
			require.Equal(t, want, got)
			withCalls++
			var first []converter.ModelCall
			for mc := range converter.NewBatch(recs).ModelCallsBy(byStart) {
				first = append(first, mc)
				break
			}
			assert.Equal(t, want[:1], first)
		})
	}
	assert.Positive(t, withCalls, "some payload has model calls")
}
