package importer

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/converter"
	"github.com/agenttrace/agenttrace/internal/ptracecmp"
)

// otlpFixtures returns the OTLP fixtures as protobuf TracesData messages.
func otlpFixtures(t testing.TB) [][]byte {
	t.Helper()
	pb, err := os.ReadFile("../testdata/otlp/agent-run.pb")
	require.NoError(t, err)
	js, err := os.ReadFile("../testdata/otlp/conversation.json")
	require.NoError(t, err)
	td, err := (&ptrace.JSONUnmarshaler{}).UnmarshalTraces(js)
	require.NoError(t, err)
	conv, err := (&ptrace.ProtoMarshaler{}).MarshalTraces(td)
	require.NoError(t, err)
	return [][]byte{pb, conv}
}

// frame writes records as the file exporter does: a 4-byte big-endian
// length before each.
func frame(records ...[]byte) []byte {
	var b bytes.Buffer
	for _, r := range records {
		_ = binary.Write(&b, binary.BigEndian, uint32(len(r)))
		b.Write(r)
	}
	return b.Bytes()
}

func protoSpans(t testing.TB, records ...[]byte) []string {
	t.Helper()
	td := ptrace.NewTraces()
	for _, r := range records {
		part, err := (&ptrace.ProtoUnmarshaler{}).UnmarshalTraces(r)
		require.NoError(t, err)
		part.ResourceSpans().MoveAndAppendTo(td.ResourceSpans())
	}
	return ptracecmp.Spans(td)
}

func TestReadOTLPStream(t *testing.T) {
	fx := otlpFixtures(t)
	stream := frame(fx[0], fx[1])
	assert.Equal(t, OTLPStream, Detect(stream))

	recs, st := importBytes(t, ReadOTLPStream, "traces.pb", stream)
	assert.Empty(t, st.Problems)
	assertSane(t, recs)
	assert.Equal(t, protoSpans(t, fx...), spansOf(recs), "spans, resources and scopes kept")
	assert.NotEqual(t, "github.com/agenttrace/agenttrace/importer", recs[0].Scope.Name(), "records keep their own scope")
	assertRoundTrip(t, recs)

	// Record by record: the first record's spans come first, each
	// record's in the order they end.
	first, _ := importBytes(t, ReadOTLPStream, "one.pb", frame(fx[0]))
	for i := range first {
		assert.Equal(t, first[i].Span.SpanID(), recs[i].Span.SpanID())
		if i > 0 {
			assert.LessOrEqual(t, first[i-1].Span.EndTimestamp(), first[i].Span.EndTimestamp())
		}
	}
}

func TestReadOTLPStreamProblems(t *testing.T) {
	fx := otlpFixtures(t)
	good := frame(fx[0])
	n0 := protoSpans(t, fx[0])
	tests := []struct {
		name     string
		in       []byte
		spans    int
		problems []int // record numbers
	}{
		{"empty", nil, 0, nil},
		{"truncated length", append(append([]byte{}, good...), 0, 0), len(n0), []int{2}},
		{"truncated record", append(append([]byte{}, good...), good[:len(good)/2]...), len(n0), []int{2}},
		{"length over the limit", append(append([]byte{}, good...), 0xff, 0xff, 0xff, 0xff, 0x0a), len(n0), []int{2}},
		{"a record that is not OTLP is skipped", append(frame([]byte{0xff, 0xff, 0xff}), good...), len(n0), []int{1}},
		{"an empty record", append(frame(nil), good...), len(n0), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recs, st := importBytes(t, ReadOTLPStream, "s.pb", tt.in)
			assert.Len(t, recs, tt.spans)
			assert.Equal(t, tt.problems, problemLines(t, st, "s.pb"), "%v", st.Problems)
		})
	}
}

func TestReadOTLPStreamFromFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "traces.pb")
	require.NoError(t, os.WriteFile(path, frame(otlpFixtures(t)...), 0o600))
	head, err := os.ReadFile(path)
	require.NoError(t, err)
	fn, ok := For(Detect(head[:min(len(head), converter.DetectSize)]))
	require.True(t, ok)
	recs, st := importFile(t, fn, path)
	assert.Empty(t, st.Problems)
	assert.Len(t, recs, len(protoSpans(t, otlpFixtures(t)...)))
}
