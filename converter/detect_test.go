package converter

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A JSON document that is not OTLP is refused rather than read as no
// spans (pdata ignores members it does not know): an artifact given as
// OTLP/JSON must not convert to an empty file.
func TestReadOTLPRefusesNonOTLP(t *testing.T) {
	artifact, err := os.ReadFile("../testdata/golden/agent-run.jsonl")
	require.NoError(t, err)
	jaeger, err := os.ReadFile("../testdata/shapes/jaeger.json")
	require.NoError(t, err)
	firstLine, _, _ := bytes.Cut(artifact, []byte("\n"))
	for _, tc := range []struct {
		name string
		in   []byte
		f    Format
	}{
		{"artifact as lines", artifact, FormatOTLPJSONLines},
		{"artifact line as a document", firstLine, FormatOTLPJSON},
		{"Jaeger JSON", jaeger, FormatOTLPJSON},
		{"other JSON", []byte(`{"data":[]}`), FormatOTLPJSON},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadOTLP(bytes.NewReader(tc.in), tc.f, "in")
			require.ErrorIs(t, err, ErrNotOTLP)
		})
	}
	for _, ok := range []string{`{}`, " { } ", `{"resourceSpans":[]}`, `{"resource_spans":[]}`} {
		td, err := ReadOTLP(strings.NewReader(ok), FormatOTLPJSON, "in")
		require.NoError(t, err, ok)
		require.Zero(t, td.SpanCount(), ok)
	}
}
