package importer

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/converter"
)

// wantShape is the shape of a fixture file, told by its directory and name.
func wantShape(path string) Shape {
	dir, base := filepath.Base(filepath.Dir(path)), filepath.Base(path)
	switch dir {
	case "golden", "legacy":
		return Artifact
	case "dialects":
		return OTLPJSON
	case "atif":
		return ATIF
	case "otlp":
		switch {
		case strings.HasSuffix(base, ".pb"):
			return OTLPProto
		case strings.HasSuffix(base, ".lines.json"):
			return OTLPJSONLine
		}
		return OTLPJSON
	}
	for _, s := range []Shape{Events, Jaeger, Transcript, Trajectory, AgentEval} {
		if strings.HasPrefix(base, string(s)) {
			return s
		}
	}
	return Unknown
}

func fixtures(t testing.TB) []string {
	t.Helper()
	var files []string
	for _, pat := range []string{"shapes/*", "otlp/*", "golden/*.jsonl", "legacy/*.jsonl", "dialects/*.json", "atif/atif-v1.?-*.json"} {
		m, err := filepath.Glob(filepath.Join("../testdata", pat))
		require.NoError(t, err)
		for _, f := range m {
			if !strings.HasSuffix(f, ".expect.json") {
				files = append(files, f)
			}
		}
	}
	require.NotEmpty(t, files)
	return files
}

func head(t testing.TB, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return data[:min(len(data), converter.DetectSize)]
}

// Every fixture is detected as its shape, and its reader reads it whole.
func TestDetectFixtures(t *testing.T) {
	for _, path := range fixtures(t) {
		t.Run(strings.TrimPrefix(path, "../testdata/"), func(t *testing.T) {
			want := wantShape(path)
			if want == Unknown {
				t.Skipf("no expected shape for %s", path)
			}
			got := Detect(head(t, path))
			if want == OTLPJSON && got == OTLPJSONLine {
				want = got // a one-line document reads either way
			}
			require.Equal(t, want, got)
			fn, ok := For(got)
			require.True(t, ok)
			recs, st := importFile(t, fn, path)
			assert.NotEmpty(t, recs)
			if got != Transcript && got != Trajectory { // those fixtures test problems on purpose
				assert.Empty(t, st.Problems)
			}
			assertSane(t, recs)
		})
	}
}

// Detection does not depend on having the whole input: a head cut
// anywhere after the first few hundred bytes still tells the shape.
func TestDetectTruncatedHeads(t *testing.T) {
	for _, path := range fixtures(t) {
		want := wantShape(path)
		if want == Unknown || want == OTLPProto {
			continue
		}
		h := head(t, path)
		for _, n := range []int{400, 1000, 4096} {
			if n >= len(h) {
				continue
			}
			got := Detect(h[:n])
			if (want == OTLPJSONLine || want == OTLPJSON) && (got == OTLPJSON || got == OTLPJSONLine) {
				continue // a first line cut short reads as one document, and a one-line document as lines
			}
			assert.Equal(t, want, got, "%s cut at %d", path, n)
		}
	}
}

func TestDetect(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want Shape
	}{
		{"transcript", `{"type":"session.started","sessionId":"s1","id":"r1","time":"2026-05-04T10:00:00Z","session":{"cwd":"/w"}}` + "\n", Transcript},
		{"transcript before the rename", `{"type":"transcript.started","transcriptId":"t1","id":"r1","time":"2026-03-01T09:00:00Z","system":{"cwd":"/w"}}`, Transcript},
		{"transcript sub-entity", `{"sessionId":"s1","type":"system.section.added","system":{"name":"x"}}`, Transcript},
		{"transcript cut short", `{"type":"message.appended","message":{"role":"user","content":[{"type":"text","text":"aaaa`, Transcript},
		{"trajectory metadata", `{"type":"metadata","session_id":"s","started_at":"2026-05-04T10:00:00","model":"m","coditect_version":"1.2"}` + "\n", Trajectory},
		{"trajectory event", `{"type":"tool_call","timestamp":"2026-05-04T10:00:00Z","task_id":"A.1","tool_name":"grep"}`, Trajectory},
		{"trajectory error", `{"type":"error","task_id":"A","error_type":"x"}`, Trajectory},
		{"events line", `{"type":"tool_start","conversation_id":"c","tool_call_id":"x"}` + "\n", Events},
		{"events error line", `{"type":"error","conversation_id":"c","error_code":"x"}`, Events},
		{"events array", "[\n  {\"type\": \"text\", \"conversation_id\": \"c\", \"content\": \"hi\"}\n]", Events},
		{"events array after a blank line", "\n[{\"type\":\"final\",\"conversation_id\":\"c\"}]", Events},
		{"events array cut short", `[{"type":"thinking","conversation_id":"c","content":"long`, Events},
		{"agenteval trace", "{\n  \"version\": \"1.1\",\n  \"traceName\": \"t\",\n  \"entries\": [\n    {\"type\": \"Request\", \"index\": 0,", AgentEval},
		{"agenteval trace, entries later", `{"version":"1.0","traceName":"t","capturedAt":"2026-05-31T09:00:00Z","agentName":"a","entries":`, AgentEval},
		{"agenteval entry list", `[{"type":"Response","index":3,"timestamp":"2026-05-31T09:00:00Z","text":"hi"}]`, AgentEval},
		{"agenteval PascalCase", `{"Version":"1.1","TraceName":"t","Entries":[{"Type":"Request","Index":0}]}`, AgentEval},
		{"events tool_start with name only", `{"type":"tool_start","tool_name":"grep","tool_args":{}}`, Events},
		{"agenteval entry without index", `[{"type":"Response","text":"hi"}]`, Unknown},
		{"jaeger answer", `{"data":[{"traceID":"abc","spans":[`, Jaeger},
		{"jaeger answer, data first key later", `{"total":0,"data":[{"spans":[],"traceID":"1"}]}`, Jaeger},
		{"jaeger data object", `{"data":{"traceID":"abc","spans":[]}}`, Jaeger},
		{"jaeger bare trace", `{"traceID":"abc","spans":[{"spanID":"1"}],"processes":{}}`, Jaeger},
		{"jaeger array", `[{"traceID":"abc","spans":[]}]`, Jaeger},
		{"jaeger lines", `{"traceID":"abc","spans":[]}` + "\n" + `{"traceID":"def","spans":[]}`, Jaeger},
		{"artifact", `{"v":1,"kind":"meta","started_at":"2026-05-04T10:00:00Z"}`, Artifact},
		{"otlp json", `{"resourceSpans":[]}`, OTLPJSON},
		{"otlp json lines", `{"resourceSpans":[]}` + "\n", OTLPJSONLine},
		{"otlp json cut", `{"resourceSpans":[{"resource":{`, OTLPJSON},
		{"otlp proto", "\x0a\x05\x0a\x03\x12\x01\x00", OTLPProto},
		{"empty", "", Unknown},
		{"blank", " \n\t", Unknown},
		{"not JSON", "hello", Unknown},
		{"other JSON", `{"type":"x","id":1}`, Unknown},
		{"event type without any event member", `{"type":"text","id":1}`, Unknown},
		// Seed 003: conversation_id is a number (its TypeScript types) or
		// absent (its stored events, its cancelled event).
		{"events numeric conversation", `{"type":"tool_start","conversation_id":7,"tool_call_id":"x"}` + "\n", Events},
		{"events without conversation", `{"type":"text","content":"x"}`, Events},
		{"events cancelled as the app yields it", `{"type": "cancelled", "reason": "user"}`, Events},
		{"events stored object", "{\n  \"events\": [\n    {\"type\": \"tool_start\", \"tool_call_id\": \"tc_001\",", Events},
		{"events stored row", `{"trace_id":"u","conversation_id":7,"events":[{"type":"text","content":"x","delta":false}],"status":"completed"}`, Events},
		{"events stored object, empty", `{"events":[]}`, Unknown},
		{"events stored object of other things", `{"events":[{"name":"x"}]}`, Unknown},
		{"events server-sent", "data: {\"type\": \"tool_start\", \"conversation_id\": 7}\n\n", Events},
		{"server-sent other JSON", "data: {\"x\": 1}\n\n", Unknown},
		{"dotted type not past tense", `{"type":"session.start","sessionId":"s"}`, Unknown},
		{"array of numbers", `[1,2,3]`, Unknown},
		{"empty data", `{"data":[]}`, Unknown},
		{"bare zero length prefix", "\x00\x00\x00\x00\x0a", Unknown},
		{"length prefix over the input", "\x00\x00\x10\x00\x0a\x00", Unknown},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, Detect([]byte(tt.in)))
		})
	}
}

func TestDetectBOM(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(shapesDir, "events.jsonl"))
	require.NoError(t, err)
	assert.Equal(t, Events, Detect(append([]byte{0xEF, 0xBB, 0xBF}, data...)))
	recs, st := importBytes(t, ReadEvents, "bom", append([]byte{0xEF, 0xBB, 0xBF}, data...))
	assert.Empty(t, st.Problems)
	assert.Len(t, recs, 6)
}

func TestIsOTLPStream(t *testing.T) {
	fx := otlpFixtures(t)
	stream := frame(fx...)
	assert.True(t, isOTLPStream(stream))
	assert.True(t, isOTLPStream(frame(fx[0])))
	assert.False(t, isOTLPStream(fx[0]), "a single TracesData is not a stream")
	assert.Equal(t, OTLPProto, Detect(fx[0]))

	// A head that holds only part of the first record: plausible when the
	// head is as long as Detect asks for, not when it is the whole input.
	big := frame(bytes.Repeat(fx[0], 3)) // not a valid single message, but framed
	assert.True(t, isOTLPStream(big[:converter.DetectSize]))
	assert.False(t, isOTLPStream(big[:1000]))

	// A record wholly in the head must decode.
	bad := frame(append([]byte{0x0a}, bytes.Repeat([]byte{0xff}, 20)...))
	assert.False(t, isOTLPStream(bad))
}

func TestFor(t *testing.T) {
	for _, s := range []Shape{Artifact, OTLPJSON, OTLPJSONLine, OTLPProto, OTLPStream, Transcript, Trajectory, Events, Jaeger} {
		fn, ok := For(s)
		assert.True(t, ok, s)
		assert.NotNil(t, fn, s)
	}
	fn, ok := For(Unknown)
	assert.False(t, ok)
	assert.Nil(t, fn)
	_, ok = For("yaml")
	assert.False(t, ok)
}

func TestForArtifactProblems(t *testing.T) {
	in := `{"v":1,"kind":"meta","started_at":"2026-05-04T10:00:00Z"}
{"kind":"call","name":"x","trace_id":"0af7651916cd43dd8448eb211c80319c","span_id":"b7ad6b7169203331","started_at":"2026-05-04T10:00:00Z","finished_at":"2026-05-04T10:00:01Z","ok":true}
not json
{"kind":"hologram"}
`
	fn, _ := For(Artifact)
	recs, st := importBytes(t, fn, "a.jsonl", []byte(in))
	assert.Len(t, recs, 1)
	require.Len(t, st.Problems, 1)
	assert.Equal(t, int64(1), st.Skipped)
	var le *artifact.LineError
	require.ErrorAs(t, st.Problems[0], &le)
	assert.Equal(t, 3, le.Line)
	assert.Equal(t, map[string]int64{"unknown kind": 1}, st.Unknown)
}

func TestForOTLPLinesProblems(t *testing.T) {
	data, err := os.ReadFile("../testdata/otlp/conversation.lines.json")
	require.NoError(t, err)
	lines := bytes.SplitAfter(data, []byte("\n"))
	in := slices.Concat(lines[0], []byte("{broken\n"), lines[1])
	fn, _ := For(OTLPJSONLine)
	recs, st := importBytes(t, fn, "c.json", in)
	whole, _ := importBytes(t, fn, "c.json", data)
	assert.Len(t, recs, len(whole))
	require.Len(t, st.Problems, 1)
	var le *artifact.LineError
	require.ErrorAs(t, st.Problems[0], &le)
	assert.Equal(t, 2, le.Line)
}

func TestForOTLPWholeError(t *testing.T) {
	fn, _ := For(OTLPJSON)
	_, err := fn(strings.NewReader(`{"resourceSpans":[{"resource":`), "bad.json", func(*artifact.Record) error { return nil })
	assert.ErrorContains(t, err, "bad.json")
}

func FuzzDetect(f *testing.F) {
	for _, path := range fixtures(f) {
		h := head(f, path)
		f.Add(h[:min(len(h), 2048)])
	}
	f.Add(frame(otlpFixtures(f)...)[:100])
	f.Add([]byte(`{"data":[[[{"traceID"`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s := Detect(data)
		if s == Unknown {
			return
		}
		if _, ok := For(s); !ok {
			t.Fatalf("Detect said %q, which For does not know", s)
		}
	})
}
