package converter_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/converter"
	"github.com/agenttrace/agenttrace/internal/plogcmp"
	"github.com/agenttrace/agenttrace/semconv"
)

// realLogs is the official @opentelemetry/instrumentation-openai capture:
// message content in log records next to each trace payload.
const realLogs = "../testdata/real/otel-instrumentation-openai"

// logsToJSONL writes the log records of ld as artifact lines after a
// header, as convert does for log records of no span.
func logsToJSONL(t testing.TB, ld plog.Logs, meta *artifact.Meta) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := artifact.NewWriter(&buf, meta)
	for _, l := range artifact.LogRecords(ld) {
		require.NoError(t, w.WriteLog(&l))
	}
	require.NoError(t, w.Close())
	return buf.Bytes()
}

// readLogs reads an artifact's log lines back into OTLP logs.
func readLogs(t testing.TB, data []byte) (plog.Logs, artifact.ReadStats) {
	t.Helper()
	var logs []artifact.LogRecord
	r := artifact.NewReader(bytes.NewReader(data), artifact.WithLogs(func(l *artifact.LogRecord) { logs = append(logs, *l) }))
	for {
		_, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
	}
	require.Empty(t, r.Problems())
	return artifact.ToLogs(logs), r.Stats()
}

func readLogsFile(t *testing.T, path string) plog.Logs {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	f := converter.Detect(b[:min(len(b), converter.DetectSize)])
	require.True(t, f.IsLogs(), "%s detected as %s", path, f)
	ld, err := converter.ReadOTLPLogs(bytes.NewReader(b), f, path)
	require.NoError(t, err)
	return ld
}

func TestLogsRoundTripReal(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(realLogs, "payloads", "*.logs.*"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			ld := readLogsFile(t, path)
			require.Positive(t, ld.LogRecordCount())
			for _, meta := range []*artifact.Meta{nil, artifact.NewMeta(time.Unix(0, 0))} {
				got, st := readLogs(t, logsToJSONL(t, ld, meta))
				assert.EqualValues(t, ld.LogRecordCount(), st.Logs)
				assert.Zero(t, st.Unknown)
				assert.Equal(t, plogcmp.Records(ld), plogcmp.Records(got))
			}
		})
	}
}

func TestLogLine(t *testing.T) {
	res := pcommon.NewResource()
	res.Attributes().PutStr("service.name", "svc")
	other := pcommon.NewResource()
	other.Attributes().PutStr("service.name", "other")
	other.SetDroppedAttributesCount(2)
	scope := pcommon.NewInstrumentationScope()
	scope.SetName("lib")
	scope.SetVersion("1.0")
	tests := []struct {
		name string
		fill func(lr plog.LogRecord)
		res  pcommon.Resource
		want string // a piece of the line
	}{
		{"empty", func(plog.LogRecord) {}, res, `{"kind":"log"}`},
		{"ids and times", func(lr plog.LogRecord) {
			lr.SetTraceID(pcommon.TraceID{1, 2, 3})
			lr.SetSpanID(pcommon.SpanID{4, 5})
			lr.SetTimestamp(1_795_598_341_590_000_001)
			lr.SetObservedTimestamp(1_795_598_341_618_000_000)
		}, res, `"span_id":"0405000000000000","time":"2026-11-25T`},
		{"severity and event", func(lr plog.LogRecord) {
			lr.SetSeverityNumber(plog.SeverityNumberWarn2)
			lr.SetSeverityText("WARN")
			lr.SetEventName(semconv.EventInferenceDetails)
			lr.SetFlags(plog.DefaultLogRecordFlags.WithIsSampled(true))
			lr.SetDroppedAttributesCount(3)
		}, res, `"severity_number":14,"severity_text":"WARN","event_name":"gen_ai.client.inference.operation.details"`},
		{"string body", func(lr plog.LogRecord) { lr.Body().SetStr("hello\n\"x\"") }, res, `"body":"hello\n\"x\""`},
		{"int body", func(lr plog.LogRecord) { lr.Body().SetInt(-7) }, res, `"body":-7`},
		{"double body", func(lr plog.LogRecord) { lr.Body().SetDouble(3) }, res, `"body":3.0`},
		{"NaN body", func(lr plog.LogRecord) { lr.Body().SetDouble(math.NaN()) }, res, `"body":{"@double":"NaN"}`},
		{"bytes body", func(lr plog.LogRecord) { lr.Body().SetEmptyBytes().FromRaw([]byte("hi")) }, res, `"body":{"@bytes":"aGk="}`},
		{"bool body", func(lr plog.LogRecord) { lr.Body().SetBool(false) }, res, `"body":false`},
		{"kvlist body", func(lr plog.LogRecord) {
			m := lr.Body().SetEmptyMap()
			m.PutStr("content", "Paris?")
			m.PutEmptySlice("tool_calls").AppendEmpty().SetEmptyMap().PutInt("index", 0)
			m.PutEmpty("none")
		}, res, `"body":{"content":"Paris?","tool_calls":[{"index":0}],"none":null}`},
		{"tag-like body", func(lr plog.LogRecord) { lr.Body().SetEmptyMap().PutStr("@bytes", "not bytes") }, res, `"body":{"@map":{"@bytes":"not bytes"}}`},
		{"attrs", func(lr plog.LogRecord) {
			lr.Attributes().PutStr(semconv.LogEventName, semconv.EventUserMessage)
			lr.Attributes().PutEmptyMap("@bytes")
		}, res, `"attrs":{"event.name":"gen_ai.user.message","@bytes":{}}`},
		{"own resource", func(lr plog.LogRecord) { lr.Body().SetStr("x") }, other, `"resource":{"service.name":"other"},"resource_dropped":2`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ld := plog.NewLogs()
			rl := ld.ResourceLogs().AppendEmpty()
			tt.res.CopyTo(rl.Resource())
			sl := rl.ScopeLogs().AppendEmpty()
			scope.CopyTo(sl.Scope())
			tt.fill(sl.LogRecords().AppendEmpty())
			meta := artifact.NewMeta(time.Unix(0, 0))
			meta.Resource, meta.Scope = res, scope
			line := logsToJSONL(t, ld, meta)
			assert.Contains(t, string(line), tt.want)
			got, st := readLogs(t, line)
			assert.EqualValues(t, 1, st.Logs)
			assert.Equal(t, plogcmp.Records(ld), plogcmp.Records(got))
		})
	}
}

// A reader that does not ask for log records counts their lines as of an
// unknown kind, as format v1 promises older readers; a bad log line is a
// problem with its line number, never a stop.
func TestLogLinesForOtherReaders(t *testing.T) {
	data := []byte(`{"v":1,"kind":"meta","started_at":"2026-01-01T00:00:00Z"}
{"kind":"log","span_id":"0102030405060708","body":"x"}
{"kind":"log","span_id":"zz"}
{"kind":"log","time":"yesterday"}
`)
	r := artifact.NewReader(bytes.NewReader(data))
	_, err := r.Next()
	require.ErrorIs(t, err, io.EOF)
	assert.EqualValues(t, 3, r.Stats().Unknown)

	var n int
	r = artifact.NewReader(bytes.NewReader(data), artifact.WithSource("a.jsonl"), artifact.WithLogs(func(*artifact.LogRecord) { n++ }))
	_, err = r.Next()
	require.ErrorIs(t, err, io.EOF)
	assert.Equal(t, 1, n)
	assert.EqualValues(t, 1, r.Stats().Logs)
	require.Len(t, r.Problems(), 2)
	assert.Equal(t, 3, r.Problems()[0].Line)
	assert.ErrorIs(t, r.Problems()[0], artifact.ErrBadRecord)
	assert.Contains(t, r.Problems()[1].Error(), "a.jsonl:4:")
}

func TestDetectLogs(t *testing.T) {
	read := func(p string) []byte {
		b, err := os.ReadFile(filepath.Join(realLogs, "payloads", p))
		require.NoError(t, err)
		return b
	}
	logsJSON := read("tool-loop.logs.json")
	var lines bytes.Buffer
	for range 2 {
		var v any
		require.NoError(t, json.Unmarshal(logsJSON, &v))
		b, err := json.Marshal(v)
		require.NoError(t, err)
		lines.Write(append(b, '\n'))
	}
	pb := read("responses-tool-loop.logs.pb")
	tests := []struct {
		name string
		head []byte
		want converter.Format
	}{
		{"logs protobuf", pb, converter.FormatOTLPLogsProto},
		{"logs protobuf, cut short", pb[:len(pb)/2], converter.FormatOTLPLogsProto},
		{"logs JSON", logsJSON, converter.FormatOTLPLogsJSON},
		{"logs JSON lines", lines.Bytes(), converter.FormatOTLPLogsJSONLines},
		{"logs JSON, snake case", []byte(`{"resource_logs":[]}`), converter.FormatOTLPLogsJSON},
		{"traces protobuf", read("tool-loop.traces.pb"), converter.FormatOTLPProto},
		{"traces JSON", read("tool-loop.traces.json"), converter.FormatOTLPJSON},
		{"empty logs protobuf is traces", []byte{0x0A, 0x00}, converter.FormatOTLPProto},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, converter.Detect(tt.head))
		})
	}
	ld, err := converter.ReadOTLPLogs(bytes.NewReader(lines.Bytes()), converter.FormatOTLPLogsJSONLines, "l.jsonl")
	require.NoError(t, err)
	assert.Equal(t, 2*readLogsFile(t, filepath.Join(realLogs, "payloads", "tool-loop.logs.json")).LogRecordCount(), ld.LogRecordCount())
	_, err = converter.ReadOTLPLogs(strings.NewReader(`{"resourceLogs":[]}`+"\n"+`{"resourceSpans":[]}`+"\n"), converter.FormatOTLPLogsJSONLines, "l.jsonl")
	require.ErrorIs(t, err, converter.ErrNotOTLPLogs)
	assert.Contains(t, err.Error(), "l.jsonl:2:")
}

// expectedTexts is the part of expected.json the conversation is held to.
type expectedTexts struct {
	System, Prompt, Answer string
}

func TestModelCallsWithLogsReal(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(realLogs, "expected.json"))
	require.NoError(t, err)
	var exp struct {
		Scenarios map[string]expectedTexts `json:"scenarios"`
	}
	require.NoError(t, json.Unmarshal(b, &exp))
	for _, sc := range []string{"tool-loop", "stream", "responses-tool-loop", "responses-stream", "fail", "responses-fail"} {
		for _, enc := range []string{"pb", "json"} {
			t.Run(sc+"."+enc, func(t *testing.T) {
				want := exp.Scenarios[sc]
				td := readTracesFile(t, filepath.Join(realLogs, "payloads", sc+".traces."+enc))
				recs := artifact.Records(td)
				logs := artifact.LogRecords(readLogsFile(t, filepath.Join(realLogs, "payloads", sc+".logs."+enc)))
				bare := converter.ModelCalls(recs)
				calls := converter.ModelCallsWithLogs(recs, logs)
				require.Len(t, calls, len(bare))
				require.NotEmpty(t, calls)
				var system, input, output []string
				for i, c := range calls {
					assert.Empty(t, bare[i].Conversation.Input, "the spans alone carry no content")
					for _, p := range c.Conversation.System {
						system = append(system, p.Content)
					}
					for _, m := range c.Conversation.Input {
						input = append(input, m.Text())
					}
					for _, m := range c.Conversation.Output {
						output = append(output, m.Text())
					}
				}
				if want.System != "" {
					assert.Contains(t, system, want.System)
				}
				assert.Contains(t, input, want.Prompt)
				if want.Answer != "" {
					assert.Equal(t, want.Answer, output[len(output)-1])
				}
			})
		}
	}
}

func readTracesFile(t *testing.T, path string) ptrace.Traces {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	f := converter.Detect(b[:min(len(b), converter.DetectSize)])
	require.False(t, f.IsLogs())
	td, err := converter.ReadOTLP(bytes.NewReader(b), f, path)
	require.NoError(t, err)
	return td
}

// Every log record lands in exactly one place: with its span, or among
// the records of no span.
func TestLogsBySpan(t *testing.T) {
	td := readTracesFile(t, filepath.Join(realLogs, "payloads", "tool-loop.traces.pb"))
	recs := artifact.Records(td)
	logs := artifact.LogRecords(readLogsFile(t, filepath.Join(realLogs, "payloads", "tool-loop.logs.pb")))
	stray := plog.NewLogRecord()
	stray.Body().SetStr("no span")
	logs = append(logs, artifact.LogRecord{Log: stray, Resource: pcommon.NewResource(), Scope: pcommon.NewInstrumentationScope()})
	unknown := plog.NewLogRecord()
	unknown.SetTraceID(pcommon.TraceID{9})
	unknown.SetSpanID(pcommon.SpanID{9})
	logs = append(logs, artifact.LogRecord{Log: unknown, Resource: pcommon.NewResource(), Scope: pcommon.NewInstrumentationScope()})

	bySpan, orphans := converter.LogsBySpan(recs, logs)
	n := len(orphans)
	for i, ls := range bySpan {
		n += len(ls)
		for j, l := range ls {
			assert.Equal(t, recs[i].Span.SpanID(), l.Log.SpanID())
			if j > 0 {
				assert.LessOrEqual(t, ls[j-1].Log.Timestamp(), l.Log.Timestamp())
			}
		}
	}
	assert.Equal(t, len(logs), n)
	require.Len(t, orphans, 2)
}

// TestGoldenLogs pins the log lines the converter writes, next to their
// spans, for the official instrumentation's chat and Responses payloads
// (docs/format.md §4.4 quotes them). Run with -update to accept.
func TestGoldenLogs(t *testing.T) {
	for _, sc := range []string{"tool-loop", "responses-tool-loop"} {
		t.Run(sc, func(t *testing.T) {
			td := readTracesFile(t, filepath.Join(realLogs, "payloads", sc+".traces.pb"))
			ld := readLogsFile(t, filepath.Join(realLogs, "payloads", sc+".logs.pb"))
			recs := artifact.Records(td)
			artifact.SortRecords(recs)
			bySpan, orphans := converter.LogsBySpan(recs, artifact.LogRecords(ld))
			require.Empty(t, orphans)
			var buf bytes.Buffer
			w := artifact.NewWriter(&buf, nil)
			for i := range recs {
				require.NoError(t, w.Write(&recs[i]))
				for j := range bySpan[i] {
					require.NoError(t, w.WriteLog(&bySpan[i][j]))
				}
			}
			require.NoError(t, w.Close())
			// The trailer's finish time is the writer's clock: pin the rest.
			got := buf.Bytes()[:bytes.LastIndex(bytes.TrimSuffix(buf.Bytes(), []byte("\n")), []byte("\n"))+1]
			golden := filepath.Join("../testdata/golden", "otel-instrumentation-openai-"+sc+".jsonl")
			if *update {
				require.NoError(t, os.WriteFile(golden, got, 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err, "missing golden file; run go test ./converter -run TestGoldenLogs -update")
			require.Equal(t, string(want), string(got))

			back, st := readLogs(t, want)
			assert.EqualValues(t, ld.LogRecordCount(), st.Logs)
			assert.Equal(t, plogcmp.Records(ld), plogcmp.Records(back))
		})
	}
}
