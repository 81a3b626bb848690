package converter_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/converter"
	"github.com/agenttrace/agenttrace/internal/artifacttest"
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

// TestHeaderOwnedKeyRepeated: an OTLP resource may repeat a key the header
// says (pdata keeps duplicates as they come); writing it must not fail, and
// the header still says it.
func TestHeaderOwnedKeyRepeated(t *testing.T) {
	attr := `{"key":"agenttrace.redacted","value":{"boolValue":true}}`
	payload := `{"resourceSpans":[{"resource":{"attributes":[` + attr + `,` + attr + `,` + attr + `,` + attr + `]},` +
		`"scopeSpans":[{"spans":[{"traceId":"0102030405060708090a0b0c0d0e0f10","spanId":"0102030405060708","name":"x"}]}]}]}`
	td, err := (&ptrace.JSONUnmarshaler{}).UnmarshalTraces([]byte(payload))
	require.NoError(t, err)
	require.Equal(t, 4, td.ResourceSpans().At(0).Resource().Attributes().Len())
	recs, r := artifacttest.ReadBytes(t, artifacttest.Encode(t, td))
	require.Len(t, recs, 1)
	require.True(t, r.Meta().Redacted)
	v, ok := recs[0].Resource.Attributes().Get("agenttrace.redacted")
	require.True(t, ok)
	require.True(t, v.Bool())
}
