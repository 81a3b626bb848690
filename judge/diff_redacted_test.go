package judge_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/converter"
	"github.com/agenttrace/agenttrace/judge"
)

// TestDiffSeesRedactionPlaceholders: a tool-dispatch trace whose arguments
// hold "[redacted]" is reported as redacted even though its header has no
// redacted flag (the older shape has none).
func TestDiffSeesRedactionPlaceholders(t *testing.T) {
	raw, err := os.ReadFile("../testdata/legacy/tool-dispatch-plugin.jsonl")
	require.NoError(t, err)
	read := func() []converter.Record {
		r := converter.NewReader(bytes.NewReader(raw))
		var recs []converter.Record
		for {
			rec, err := r.Next()
			if errors.Is(err, io.EOF) {
				return recs
			}
			require.NoError(t, err)
			recs = append(recs, *rec)
		}
	}
	rep := judge.Diff(read(), read())
	require.False(t, rep.Diverged)
	require.True(t, rep.Redacted.A)
	require.True(t, rep.Redacted.B)
	require.False(t, rep.PayloadsCompared)
}
