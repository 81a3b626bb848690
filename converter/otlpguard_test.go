package converter_test

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/converter"
	"github.com/agenttrace/agenttrace/internal/otlpdeep"
)

// Deepest passing levels: the guard counts an array level one, a
// key-value list level two, against the reader's 256 less a line's
// overhead (4) and a tagged innermost value (1); see otlpguard.go.
const (
	maxArrays = 251
	maxMaps   = 125
)

// TestGuardDeepProto is issue 22 item 1: a request nested 1.3 million
// levels (the one that overflowed pdata's stack and killed the process)
// is refused, in traces and logs, arrays and key-value lists; the deepest
// passing one decodes with pdata.
func TestGuardDeepProto(t *testing.T) {
	huge := otlpdeep.AnyValueProto(1_300_000, false)
	require.Less(t, len(otlpdeep.TracesProto(huge)), 16<<20, "the request of the issue fits the 16 MiB limit")
	cases := []struct {
		name   string
		b      []byte
		f      converter.Format
		refuse bool
	}{
		{"traces 1.3M arrays", otlpdeep.TracesProto(huge), converter.FormatOTLPProto, true},
		{"logs 1.3M arrays", otlpdeep.LogsProto(huge), converter.FormatOTLPLogsProto, true},
		{"traces 1M kvlists", otlpdeep.TracesProto(otlpdeep.AnyValueProto(1_000_000, true)), converter.FormatOTLPProto, true},
		{"traces arrays at limit", otlpdeep.TracesProto(otlpdeep.AnyValueProto(maxArrays, false)), converter.FormatOTLPProto, false},
		{"traces arrays over limit", otlpdeep.TracesProto(otlpdeep.AnyValueProto(maxArrays+1, false)), converter.FormatOTLPProto, true},
		{"traces kvlists at limit", otlpdeep.TracesProto(otlpdeep.AnyValueProto(maxMaps, true)), converter.FormatOTLPProto, false},
		{"traces kvlists over limit", otlpdeep.TracesProto(otlpdeep.AnyValueProto(maxMaps+1, true)), converter.FormatOTLPProto, true},
		{"logs body at limit", otlpdeep.LogsProto(otlpdeep.AnyValueProto(maxArrays, false)), converter.FormatOTLPLogsProto, false},
		{"logs body over limit", otlpdeep.LogsProto(otlpdeep.AnyValueProto(maxArrays+1, false)), converter.FormatOTLPLogsProto, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := converter.GuardOTLP(c.b, c.f, converter.GuardOptions{})
			if c.refuse {
				require.ErrorIs(t, err, converter.ErrTooDeep)
				assert.Contains(t, err.Error(), "OTLP value nested too deep: more than 251 levels at offset ")
				return
			}
			require.NoError(t, err)
			if c.f == converter.FormatOTLPProto {
				_, err = (&ptrace.ProtoUnmarshaler{}).UnmarshalTraces(c.b)
			} else {
				_, err = (&plog.ProtoUnmarshaler{}).UnmarshalLogs(c.b)
			}
			require.NoError(t, err)
		})
	}
}

// TestGuardDeepJSON: the same limits in OTLP/JSON, with the position.
func TestGuardDeepJSON(t *testing.T) {
	cases := []struct {
		name   string
		b      []byte
		f      converter.Format
		refuse bool
	}{
		{"traces 200k arrays", otlpdeep.TracesJSON(otlpdeep.AnyValueJSON(200_000, false)), converter.FormatOTLPJSON, true},
		{"logs 200k kvlists", otlpdeep.LogsJSON(otlpdeep.AnyValueJSON(200_000, true)), converter.FormatOTLPLogsJSON, true},
		{"arrays at limit", otlpdeep.TracesJSON(otlpdeep.AnyValueJSON(maxArrays, false)), converter.FormatOTLPJSON, false},
		{"arrays over limit", otlpdeep.TracesJSON(otlpdeep.AnyValueJSON(maxArrays+1, false)), converter.FormatOTLPJSON, true},
		{"kvlists at limit", otlpdeep.TracesJSON(otlpdeep.AnyValueJSON(maxMaps, true)), converter.FormatOTLPJSON, false},
		{"kvlists over limit", otlpdeep.TracesJSON(otlpdeep.AnyValueJSON(maxMaps+1, true)), converter.FormatOTLPJSON, true},
		{"log body at limit", otlpdeep.LogsJSON(otlpdeep.AnyValueJSON(maxArrays, false)), converter.FormatOTLPLogsJSON, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, strict := range []bool{false, true} {
				err := converter.GuardOTLP(c.b, c.f, converter.GuardOptions{Strict: strict})
				if !c.refuse {
					require.NoError(t, err)
					continue
				}
				require.ErrorIs(t, err, converter.ErrTooDeep)
				var ie *converter.InputError
				require.ErrorAs(t, err, &ie)
				assert.Equal(t, 1, ie.Line)
				assert.Regexp(t, `^1:\d+: OTLP value nested too deep: more than 251 levels \(the artifact reader's limit\)$`, err.Error())
			}
		})
	}
}

// TestGuardedValuesRead is issue 22 item 6: the deepest value the guard
// passes, in every place a value sits (span, event, link, resource and
// scope attributes, log body and attributes), written into an artifact,
// reads back without a problem.
func TestGuardedValuesRead(t *testing.T) {
	kinds := []struct {
		name  string
		depth int
		nest  func(v pcommon.Value) pcommon.Value
		leaf  func(v pcommon.Value)
	}{
		{"arrays, bytes leaf", maxArrays, func(v pcommon.Value) pcommon.Value { return v.SetEmptySlice().AppendEmpty() },
			func(v pcommon.Value) { v.SetEmptyBytes().FromRaw([]byte{1}) }},
		{"maps of one @ key, NaN leaf", maxMaps, func(v pcommon.Value) pcommon.Value { return v.SetEmptyMap().PutEmpty("@k") },
			func(v pcommon.Value) { v.SetDouble(math.NaN()) }},
		{"maps, int leaf", maxMaps, func(v pcommon.Value) pcommon.Value { return v.SetEmptyMap().PutEmpty("k") },
			func(v pcommon.Value) { v.SetInt(1) }},
	}
	places := []string{"span", "event", "link", "resource", "scope", "log body", "log attrs"}
	for _, k := range kinds {
		for _, place := range places {
			t.Run(k.name+"/"+place, func(t *testing.T) {
				fill := func(v pcommon.Value) {
					for range k.depth {
						v = k.nest(v)
					}
					k.leaf(v)
				}
				var pb []byte
				var f converter.Format
				var err error
				if strings.HasPrefix(place, "log") {
					ld := plog.NewLogs()
					rl := ld.ResourceLogs().AppendEmpty()
					lr := rl.ScopeLogs().AppendEmpty().LogRecords().AppendEmpty()
					lr.SetTraceID([16]byte{1})
					if place == "log body" {
						fill(lr.Body())
					} else {
						fill(lr.Attributes().PutEmpty("a"))
					}
					pb, err = (&plog.ProtoMarshaler{}).MarshalLogs(ld)
					f = converter.FormatOTLPLogsProto
				} else {
					td := ptrace.NewTraces()
					rs := td.ResourceSpans().AppendEmpty()
					ss := rs.ScopeSpans().AppendEmpty()
					sp := ss.Spans().AppendEmpty()
					sp.SetTraceID([16]byte{1})
					sp.SetSpanID([8]byte{1})
					m := map[string]pcommon.Map{"span": sp.Attributes(), "resource": rs.Resource().Attributes(),
						"scope": ss.Scope().Attributes(), "event": sp.Events().AppendEmpty().Attributes()}
					if place == "link" {
						l := sp.Links().AppendEmpty()
						l.SetTraceID([16]byte{2})
						m["link"] = l.Attributes()
					}
					fill(m[place].PutEmpty("a"))
					pb, err = (&ptrace.ProtoMarshaler{}).MarshalTraces(td)
					f = converter.FormatOTLPProto
				}
				require.NoError(t, err)
				require.NoError(t, converter.GuardOTLP(pb, f, converter.GuardOptions{}))
				var buf bytes.Buffer
				if f == converter.FormatOTLPProto {
					td, err := converter.ReadOTLP(bytes.NewReader(pb), f, "x")
					require.NoError(t, err)
					recs := artifact.Records(td)
					w := artifact.NewWriter(&buf, artifact.MetaFor(recs))
					for i := range recs {
						require.NoError(t, w.Write(&recs[i]))
					}
					require.NoError(t, w.Close())
				} else {
					ld, err := converter.ReadOTLPLogs(bytes.NewReader(pb), f, "x")
					require.NoError(t, err)
					w := artifact.NewWriter(&buf, nil)
					for _, r := range artifact.LogRecords(ld) {
						require.NoError(t, w.WriteLog(&r))
					}
					require.NoError(t, w.Close())
				}
				requireReads(t, buf.Bytes())
			})
		}
	}
}

// requireReads reads an artifact to its end, failing on any problem.
func requireReads(t *testing.T, b []byte) {
	t.Helper()
	r := artifact.NewReader(bytes.NewReader(b))
	for {
		_, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
	}
	require.Empty(t, r.Problems())
}

// TestGuardStrictJSON is issue 26's strict OTLP/JSON and issue 22's
// trailing garbage: each error with its exact one-line message.
func TestGuardStrictJSON(t *testing.T) {
	const ids = `"traceId":"0102030405060708090a0b0c0d0e0f10","spanId":"0102030405060708"`
	span := func(members string) string {
		return `{"resourceSpans":[{"scopeSpans":[{"spans":[{` + members + `}]}]}]}`
	}
	cases := []struct {
		name, doc string
		logs      bool
		want      string // "" passes
		sentinel  error
	}{
		{"ok", span(ids + `,"name":"a"`), false, "", nil},
		{"snake case ok", `{"resource_spans":[{"scope_spans":[{"spans":[{"trace_id":"0102030405060708090a0b0c0d0e0f10","span_id":"0102030405060708","start_time_unix_nano":"1"}]}]}]}`, false, "", nil},
		{"spanID typo", span(`"traceId":"0102030405060708090a0b0c0d0e0f10",` + "\n" + `"spanID":"0102030405060708"`), false,
			`2:1: unknown OTLP/JSON field "spanID" in a span (did you mean "spanId"?)`, converter.ErrUnknownField},
		{"zero span id", span(`"traceId":"0102030405060708090a0b0c0d0e0f10","spanId":"0000000000000000"`), false,
			`1:44: absent or all-zero id: a span's spanId`, converter.ErrZeroID},
		{"absent trace id", span(`"spanId":"0102030405060708"`), false,
			`1:44: absent or all-zero id: a span's traceId`, converter.ErrZeroID},
		{"unknown in resource", `{"resourceSpans":[{"resource":{"attrs":[]}}]}`, false,
			`1:32: unknown OTLP/JSON field "attrs" in a resource`, converter.ErrUnknownField},
		{"unknown in scope", `{"resourceSpans":[{"scopeSpans":[{"scope":{"Name":"x"}}]}]}`, false,
			`1:44: unknown OTLP/JSON field "Name" in a scope (did you mean "name"?)`, converter.ErrUnknownField},
		{"unknown in log record", `{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"Body":{}}]}]}]}`, true,
			`1:48: unknown OTLP/JSON field "Body" in a log record (did you mean "body"?)`, converter.ErrUnknownField},
		{"syntax error", "{\"resourceSpans\":[\n  {\"scopeSpans\" []}]}", false,
			`2:17: OTLP/JSON syntax error: unexpected '[', want ':'`, converter.ErrOTLPSyntax},
		{"trailing garbage", span(ids) + "\n}x", false,
			`2:1: OTLP/JSON syntax error: unexpected data after the value`, converter.ErrOTLPSyntax},
		{"not OTLP", `{"kind":"span"}`, false, `no resourceSpans: not OTLP (an agenttrace artifact line)`, converter.ErrNotOTLP},
		{"empty ok", `{}`, false, "", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := converter.FormatOTLPJSON
			if c.logs {
				f = converter.FormatOTLPLogsJSON
			}
			err := converter.GuardOTLP([]byte(c.doc), f, converter.GuardOptions{Strict: true})
			if c.want == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, c.sentinel)
			assert.Equal(t, c.want, err.Error())
			assert.NotContains(t, err.Error(), "\n")
		})
	}
	// Lenient (a network receiver): unknown members and zero ids pass.
	for _, doc := range []string{span(`"spanID":"01"`), span(`"traceId":"00","spanId":"00"`)} {
		require.NoError(t, converter.GuardOTLP([]byte(doc), converter.FormatOTLPJSON, converter.GuardOptions{}))
	}
}

// TestGuardRealPayloads: every captured exporter payload (testdata/real,
// real SDK output) and testdata/otlp passes the strict guard unchanged.
func TestGuardRealPayloads(t *testing.T) {
	files, err := filepath.Glob("../testdata/real/*/payloads/*")
	require.NoError(t, err)
	more, err := filepath.Glob("../testdata/otlp/*")
	require.NoError(t, err)
	files = append(files, more...)
	n := 0
	for _, name := range files {
		if !strings.HasSuffix(name, ".json") && !strings.HasSuffix(name, ".pb") {
			continue
		}
		b, err := os.ReadFile(name)
		require.NoError(t, err)
		f := converter.Detect(b)
		switch f {
		case converter.FormatOTLPJSONLines, converter.FormatOTLPLogsJSONLines:
			sc := bufio.NewScanner(bytes.NewReader(b))
			sc.Buffer(nil, 16<<20)
			for sc.Scan() {
				if len(bytes.TrimSpace(sc.Bytes())) > 0 {
					require.NoError(t, converter.GuardOTLP(sc.Bytes(), f, converter.GuardOptions{Strict: true}), name)
				}
			}
		case converter.FormatOTLPJSON, converter.FormatOTLPLogsJSON, converter.FormatOTLPProto, converter.FormatOTLPLogsProto:
			require.NoError(t, converter.GuardOTLP(b, f, converter.GuardOptions{Strict: true}), name)
		default:
			continue
		}
		n++
	}
	require.Greater(t, n, 100, "the captured payloads were found")
}

// TestGuardMetricsProto: the collector decodes metrics with the same
// recursive value code, so the guard walks every place a metric request
// holds attributes (data points of each kind, exemplars, metadata): the
// deepest passing value passes, one level more is refused.
func TestGuardMetricsProto(t *testing.T) {
	places := []struct {
		name  string
		attrs func(m pmetric.Metric) pcommon.Map
	}{
		{"gauge point", func(m pmetric.Metric) pcommon.Map { return m.SetEmptyGauge().DataPoints().AppendEmpty().Attributes() }},
		{"sum point exemplar", func(m pmetric.Metric) pcommon.Map {
			return m.SetEmptySum().DataPoints().AppendEmpty().Exemplars().AppendEmpty().FilteredAttributes()
		}},
		{"histogram point", func(m pmetric.Metric) pcommon.Map {
			return m.SetEmptyHistogram().DataPoints().AppendEmpty().Attributes()
		}},
		{"histogram exemplar", func(m pmetric.Metric) pcommon.Map {
			return m.SetEmptyHistogram().DataPoints().AppendEmpty().Exemplars().AppendEmpty().FilteredAttributes()
		}},
		{"exponential histogram point", func(m pmetric.Metric) pcommon.Map {
			return m.SetEmptyExponentialHistogram().DataPoints().AppendEmpty().Attributes()
		}},
		{"exponential histogram exemplar", func(m pmetric.Metric) pcommon.Map {
			return m.SetEmptyExponentialHistogram().DataPoints().AppendEmpty().Exemplars().AppendEmpty().FilteredAttributes()
		}},
		{"summary point", func(m pmetric.Metric) pcommon.Map { return m.SetEmptySummary().DataPoints().AppendEmpty().Attributes() }},
		{"metadata", func(m pmetric.Metric) pcommon.Map { m.SetEmptyGauge(); return m.Metadata() }},
	}
	for _, p := range places {
		for _, depth := range []int{maxArrays, maxArrays + 1} {
			t.Run(p.name, func(t *testing.T) {
				md := pmetric.NewMetrics()
				m := md.ResourceMetrics().AppendEmpty().ScopeMetrics().AppendEmpty().Metrics().AppendEmpty()
				m.SetName("m")
				v := p.attrs(m).PutEmpty("deep")
				for range depth {
					v = v.SetEmptySlice().AppendEmpty()
				}
				v.SetInt(1)
				b, err := (&pmetric.ProtoMarshaler{}).MarshalMetrics(md)
				require.NoError(t, err)
				err = converter.GuardOTLPMetricsProto(b)
				if depth > maxArrays {
					require.ErrorIs(t, err, converter.ErrTooDeep)
				} else {
					require.NoError(t, err)
				}
				assert.Equal(t, err == nil, converter.GuardOTLPAny(b, false) == nil, "the signal-free check agrees")
			})
		}
	}
}
