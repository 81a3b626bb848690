package viewer_test

import (
	"bytes"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/plog"

	"github.com/agenttrace/agenttrace/converter"
	"github.com/agenttrace/agenttrace/internal/browsertest"
	"github.com/agenttrace/agenttrace/viewer"
)

// appLogLine is one application log line as the page shows it.
type appLogLine struct {
	Severity string `json:"severity"`
	Body     string `json:"body"`
}

// TestBrowserAppLogsOnTheirSpan: an application that logs with pino
// through @opentelemetry/instrumentation-pino inside its own invoke_agent
// and execute_tool spans (testdata/real/pino-app-logs) gets each line on
// the span it was written in, with its severity, and the row says how
// many; the GenAI content records of the same payload stay the model
// calls' messages and are not listed as logs.
func TestBrowserAppLogsOnTheirSpan(t *testing.T) {
	const lib = "pino-app-logs"
	run := realRun(t, lib, "tool-loop", true)
	want := pinoLines(t, filepath.Join(realDir, lib, "payloads", "tool-loop.logs.pb"))
	require.Len(t, want, 2, "the capture logs in two spans")

	ctx := browsertest.New(t, browsertest.WithWindow(1280, 900), browsertest.WithTimeout(2*time.Minute))
	open(t, ctx, writePage(t, []viewer.Run{run}))
	for i := range run.Records {
		sid := run.Records[i].Span.SpanID().String()
		showSpan(t, ctx, sid, `!!document.querySelector('#rows .row.sel[data-span-id="`+sid+`"]') && !!document.querySelector('#detail .dhead')`)
		got := eval[[]appLogLine](t, ctx, `Array.from(document.querySelectorAll('#detail ul.logs > li')).map((li) => ({
		  severity: (li.querySelector('.sev') || {}).textContent || '',
		  body: (li.querySelector('.logbody') || {}).textContent || '' }))`)
		mark := eval[string](t, ctx, `(document.querySelector('#rows .row[data-span-id="`+sid+`"] .logmark') || {}).textContent || ''`)
		name := run.Records[i].Span.Name()
		if len(want[sid]) == 0 {
			assert.Empty(t, got, "%s: GenAI content is not listed as logs", name)
			assert.Empty(t, mark, "%s: no logs, no mark", name)
			continue
		}
		assert.Equal(t, want[sid], got, "%s: its log lines", name)
		assert.Equal(t, "≡"+strconv.Itoa(len(want[sid])), mark, "%s: the row counts its logs", name)
	}
}

// pinoLines reads the capture's log payload as pdata and keeps, per span
// id, the records that carry no GenAI event name (pino's lines), with the
// severity the OTel log data model names their number by.
func pinoLines(t *testing.T, path string) map[string][]appLogLine {
	t.Helper()
	b, f := readPayload(t, path)
	ld, err := converter.ReadOTLPLogs(bytes.NewReader(b), f, path)
	require.NoError(t, err)
	names := map[plog.SeverityNumber]string{plog.SeverityNumberInfo: "INFO", plog.SeverityNumberWarn: "WARN", plog.SeverityNumberError: "ERROR"}
	out := map[string][]appLogLine{}
	for _, rl := range ld.ResourceLogs().All() {
		for _, sl := range rl.ScopeLogs().All() {
			for _, lr := range sl.LogRecords().All() {
				if _, ok := lr.Attributes().Get("event.name"); ok || lr.EventName() != "" {
					continue
				}
				sid := lr.SpanID().String()
				out[sid] = append(out[sid], appLogLine{Severity: names[lr.SeverityNumber()], Body: lr.Body().Str()})
			}
		}
	}
	return out
}
