package converter_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/converter"
	"github.com/agenttrace/agenttrace/internal/ptracecmp"
)

// TestOTLPLinesWithLongFirstLine: a file exporter file whose first line is
// longer than Detect's window is still read as one TracesData per line.
func TestOTLPLinesWithLongFirstLine(t *testing.T) {
	td := benchBatch()
	line, err := (&ptrace.JSONMarshaler{}).MarshalTraces(td)
	require.NoError(t, err)
	require.Greater(t, len(line), converter.DetectSize)
	data := append(append(append([]byte{}, line...), '\n'), line...)
	format := converter.Detect(data[:converter.DetectSize])
	got, err := converter.ReadOTLP(bytes.NewReader(data), format, "big.json")
	require.NoError(t, err)
	require.Equal(t, 2*td.SpanCount(), got.SpanCount())
	var want []string
	for _, sp := range ptracecmp.Spans(td) {
		want = append(want, sp, sp) // each line holds the whole batch
	}
	require.Equal(t, want, ptracecmp.Spans(got))
}
