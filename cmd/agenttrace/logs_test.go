package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/plog"

	"github.com/agenttrace/agenttrace/internal/plogcmp"
)

// otelOpenAI is the official @opentelemetry/instrumentation-openai
// capture: content only in log records, next to each trace payload.
const otelOpenAI = "../../testdata/real/otel-instrumentation-openai"

func readOTLPLogs(t *testing.T, path string) plog.Logs {
	t.Helper()
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	var ld plog.Logs
	if strings.HasSuffix(path, ".pb") {
		ld, err = (&plog.ProtoUnmarshaler{}).UnmarshalLogs(raw)
	} else {
		ld, err = (&plog.JSONUnmarshaler{}).UnmarshalLogs(raw)
	}
	require.NoError(t, err, path)
	return ld
}

// artifactLine is what the test reads of an artifact line.
type artifactLine struct {
	Kind   string `json:"kind"`
	SpanID string `json:"span_id"`
}

func TestConvertLogsReal(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(otelOpenAI, "expected.json"))
	require.NoError(t, err)
	var exp struct {
		Scenarios map[string]struct {
			Prompt, Answer string
		} `json:"scenarios"`
	}
	require.NoError(t, json.Unmarshal(raw, &exp))
	for _, sc := range []string{"tool-loop", "stream", "fail", "responses-tool-loop", "responses-stream", "responses-fail"} {
		for _, enc := range []string{"pb", "json"} {
			t.Run(sc+"."+enc, func(t *testing.T) {
				traces := filepath.Join(otelOpenAI, "payloads", sc+".traces."+enc)
				logs := filepath.Join(otelOpenAI, "payloads", sc+".logs."+enc)
				wantLogs := readOTLPLogs(t, logs)
				dir := t.TempDir()

				// Either order of the inputs gives the same artifact.
				x := filepath.Join(dir, "x.jsonl")
				res := agenttrace(t, "", "convert", traces, logs, "-o", x)
				require.Zero(t, res.code, res.stderr)
				assert.Empty(t, res.stderr)
				x2 := filepath.Join(dir, "x2.jsonl")
				res = agenttrace(t, "", "convert", logs, traces, "-o", x2)
				require.Zero(t, res.code, res.stderr)
				a, err := os.ReadFile(x)
				require.NoError(t, err)
				b, err := os.ReadFile(x2)
				require.NoError(t, err)
				assert.Equal(t, string(a), string(b))
				// An artifact with log lines converts to itself.
				x3 := filepath.Join(dir, "x3.jsonl")
				res = agenttrace(t, "", "convert", x, "-o", x3)
				require.Zero(t, res.code, res.stderr)
				c, err := os.ReadFile(x3)
				require.NoError(t, err)
				assert.Equal(t, string(a), string(c))

				// Every log record is in the artifact, right after its span's
				// record (or another log record of that span).
				var n int
				var last artifactLine
				for _, line := range lines(string(a)) {
					var l artifactLine
					require.NoError(t, json.Unmarshal([]byte(line), &l))
					if l.Kind == "log" {
						n++
						assert.Equal(t, last.SpanID, l.SpanID, "log record away from its span")
						continue
					}
					last = l
				}
				assert.Equal(t, wantLogs.LogRecordCount(), n)

				res = agenttrace(t, "", "validate", x)
				require.Zero(t, res.code, res.stdout+res.stderr)
				assert.Contains(t, res.stdout, "log records)")
				assert.Empty(t, res.stderr)

				// The conversation shows the prompt and the answer.
				res = agenttrace(t, "", "messages", "--json", x)
				require.Zero(t, res.code, res.stderr)
				assert.Contains(t, res.stdout, jsonQuoted(t, exp.Scenarios[sc].Prompt))
				if ans := exp.Scenarios[sc].Answer; ans != "" {
					assert.Contains(t, res.stdout, jsonQuoted(t, ans))
				}

				// And back: the spans and the log records exactly as received.
				for _, logsOut := range []string{"z.json", "z.pb"} {
					y, z := filepath.Join(dir, "y.pb"), filepath.Join(dir, logsOut)
					res = agenttrace(t, "", "convert", x, "-o", y, "--logs-out", z)
					require.Zero(t, res.code, res.stderr)
					assert.Equal(t, spansOf(t, traces), spansOf(t, y))
					assert.Equal(t, plogcmp.Records(wantLogs), plogcmp.Records(readOTLPLogs(t, z)))
				}
			})
		}
	}
}

func jsonQuoted(t *testing.T, s string) string {
	t.Helper()
	b, err := json.Marshal(s)
	require.NoError(t, err)
	return string(b)
}

// Log records of no span in the input are kept, counted and said.
func TestConvertLogsWithoutSpans(t *testing.T) {
	logs := filepath.Join(otelOpenAI, "payloads", "tool-loop.logs.pb")
	want := readOTLPLogs(t, logs)
	dir := t.TempDir()
	x := filepath.Join(dir, "x.jsonl")
	res := agenttrace(t, "", "convert", logs, "-o", x)
	require.Zero(t, res.code, res.stderr)
	assert.Contains(t, res.stderr, fmt.Sprintf("%d log record(s) of no span in the input", want.LogRecordCount()))
	a, err := os.ReadFile(x)
	require.NoError(t, err)
	assert.Equal(t, want.LogRecordCount(), strings.Count(string(a), `{"kind":"log"`))

	// An OTLP output without --logs-out says what it did not write.
	res = agenttrace(t, "", "convert", x, "-o", filepath.Join(dir, "y.json"))
	require.Zero(t, res.code, res.stderr)
	assert.Contains(t, res.stderr, fmt.Sprintf("%d log record(s) not written: name a file for them with --logs-out", want.LogRecordCount()))

	z := filepath.Join(dir, "z.json")
	res = agenttrace(t, "", "convert", x, "-o", filepath.Join(dir, "y.json"), "--logs-out", z)
	require.Zero(t, res.code, res.stderr)
	assert.Equal(t, plogcmp.Records(want), plogcmp.Records(readOTLPLogs(t, z)))
}

func TestConvertLogsOutUsage(t *testing.T) {
	logs := filepath.Join(otelOpenAI, "payloads", "tool-loop.logs.json")
	dir := t.TempDir()
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"artifact output", []string{"-o", filepath.Join(dir, "x.jsonl"), "--logs-out", filepath.Join(dir, "z.json")}, "--logs-out needs an OTLP output"},
		{"artifact logs", []string{"-o", filepath.Join(dir, "x.pb"), "--logs-out", filepath.Join(dir, "z.jsonl")}, "want a .json or .pb file"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := agenttrace(t, "", append([]string{"convert", logs}, tt.args...)...)
			assert.NotZero(t, res.code)
			assert.Contains(t, res.stderr, tt.want)
		})
	}
}

// A secret in a log record's body is scanned out like one on a span: the
// GenAI instrumentations put the whole prompt there.
func TestConvertLogsRedacted(t *testing.T) {
	secret := "gh" + "p_" + strings.Repeat("a1B2c3", 6)
	ld := readOTLPLogs(t, filepath.Join(otelOpenAI, "payloads", "tool-loop.logs.json"))
	body := ld.ResourceLogs().At(0).ScopeLogs().At(0).LogRecords().At(1).Body().Map()
	body.PutStr("content", "push with "+secret)
	raw, err := (&plog.JSONMarshaler{}).MarshalLogs(ld)
	require.NoError(t, err)
	in := writeTemp(t, "logs.json", string(raw))
	x := filepath.Join(t.TempDir(), "x.jsonl")
	res := agenttrace(t, "", "convert", in, "-o", x)
	require.Zero(t, res.code, res.stderr)
	out, err := os.ReadFile(x)
	require.NoError(t, err)
	assert.NotContains(t, string(out), secret)
	assert.Contains(t, string(out), "push with [REDACTED]")
}

// The viewer and audit read the conversation from log records as they do
// from span attributes: the page shows the prompt and the answer, and
// audit sees the tool call the model asked for (this application never
// ran it under a span).
func TestLogsContentInViews(t *testing.T) {
	payloads := filepath.Join(otelOpenAI, "payloads")
	dir := t.TempDir()
	for _, tt := range []struct {
		name   string
		inputs []string
		shown  bool
	}{
		{"spans alone", []string{filepath.Join(payloads, "tool-loop.traces.json")}, false},
		{"spans and logs", []string{filepath.Join(payloads, "tool-loop.traces.json"), filepath.Join(payloads, "tool-loop.logs.json")}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			x := filepath.Join(dir, tt.name+".jsonl")
			res := agenttrace(t, "", append(append([]string{"convert"}, tt.inputs...), "-o", x)...)
			require.Zero(t, res.code, res.stderr)

			page := filepath.Join(dir, tt.name+".html")
			res = agenttrace(t, "", "html", x, "-o", page)
			require.Zero(t, res.code, res.stderr)
			html, err := os.ReadFile(page)
			require.NoError(t, err)
			for _, text := range []string{"What is the weather in Paris today?", "It is 18 degrees Celsius and sunny in Paris today."} {
				assert.Equal(t, tt.shown, strings.Contains(string(html), text), text)
			}

			res = agenttrace(t, "", "audit", x)
			assert.Equal(t, tt.shown, strings.Contains(res.stdout, "missing_call"), res.stdout)
		})
	}
}

// agenttrace html takes a logs payload beside its traces as convert does:
// not as a run of its own, but as the log records of the spans they name.
// The official openai instrumentation's content records become the model
// calls' conversation (the prompt and answer expected.json says the
// server saw), and an application's pino lines (testdata/real/pino-app-logs)
// the logs of the spans they were written in.
func TestHTMLTakesLogsBesideTraces(t *testing.T) {
	for _, lib := range []string{otelOpenAI, "../../testdata/real/pino-app-logs"} {
		t.Run(filepath.Base(lib), func(t *testing.T) {
			traces := filepath.Join(lib, "payloads", "tool-loop.traces.pb")
			logs := filepath.Join(lib, "payloads", "tool-loop.logs.pb")
			page := filepath.Join(t.TempDir(), "p.html")
			res := agenttrace(t, "", "html", traces, logs, "-o", page)
			require.Zero(t, res.code, res.stderr)
			assert.Contains(t, res.stderr, "in 1 run", "the logs payload is no run of its own")
			html, err := os.ReadFile(page)
			require.NoError(t, err)
			var exp struct {
				Scenarios map[string]struct {
					Prompt string `json:"prompt"`
					Answer string `json:"answer"`
				} `json:"scenarios"`
			}
			raw, err := os.ReadFile(filepath.Join(lib, "expected.json"))
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(raw, &exp))
			sc := exp.Scenarios["tool-loop"]
			require.NotEmpty(t, sc.Answer)
			assert.True(t, strings.Contains(string(html), `"conversation":`), "the content in log records is the calls' conversation")
			assert.True(t, strings.Contains(string(html), sc.Answer), "the answer %q is shown", sc.Answer)
			apps := 0
			for _, rl := range readOTLPLogs(t, logs).ResourceLogs().All() {
				for _, sl := range rl.ScopeLogs().All() {
					for _, lr := range sl.LogRecords().All() {
						if _, ok := lr.Attributes().Get("event.name"); !ok && lr.EventName() == "" {
							apps++
						}
					}
				}
			}
			assert.Equal(t, apps, strings.Count(string(html), `"severity":`), "each application log line on its span")
		})
	}
}
