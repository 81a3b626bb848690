package store

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/internal/plogcmp"
)

const realDir = "../testdata/real/otel-instrumentation-openai/payloads/"

// realRun reads the official openai instrumentation's captured tool-loop
// run: its spans and the log records that carry its prompts and answers.
func realRun(t *testing.T) ([]artifact.Record, plog.Logs) {
	t.Helper()
	raw, err := os.ReadFile(realDir + "tool-loop.traces.pb")
	require.NoError(t, err)
	td, err := (&ptrace.ProtoUnmarshaler{}).UnmarshalTraces(raw)
	require.NoError(t, err)
	raw, err = os.ReadFile(realDir + "tool-loop.logs.pb")
	require.NoError(t, err)
	ld, err := (&plog.ProtoUnmarshaler{}).UnmarshalLogs(raw)
	require.NoError(t, err)
	require.Positive(t, ld.LogRecordCount())
	return artifact.Records(td), ld
}

// readWithLogs reads an artifact's spans and log lines, in file order
// ("s" for a span line, "l" for a log line).
func readWithLogs(t *testing.T, path string) (spans []*artifact.Record, logs []artifact.LogRecord, order string) {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	r := artifact.NewReader(f, artifact.WithLogs(func(l *artifact.LogRecord) {
		logs = append(logs, *l)
		order += "l"
	}))
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		spans = append(spans, rec)
		order += "s"
	}
	assert.Empty(t, r.Problems())
	return spans, logs, order
}

type logCounts struct{ written, dups, held, untraced, failed atomic.Int64 }

func (c *logCounts) hooks() LogHooks {
	return LogHooks{
		Written: func(n int64) { c.written.Add(n) }, Duplicates: func(n int64) { c.dups.Add(n) },
		Held: func(n int64) { c.held.Add(n) }, Untraced: func(n int64) { c.untraced.Add(n) },
		Failed: func(n int64) { c.failed.Add(n) },
	}
}

// TestLogsLandInTheirTrace sends the real run's spans and log records in
// both orders, each twice, and across a restart: the trace's artifact
// holds every span and every log record once, exactly as received, each
// log line after the spans of the Write that made the artifact.
func TestLogsLandInTheirTrace(t *testing.T) {
	for _, tc := range []struct {
		name      string
		logsFirst bool
		held      int64
	}{
		{name: "spans first"},
		{name: "logs first", logsFirst: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			recs, ld := realRun(t)
			logs := artifact.LogRecords(ld)
			dir := t.TempDir()
			var c logCounts
			opts := Options{Dir: dir, FinalizeAfter: 0, LogHooks: c.hooks()}
			s := newStore(t, opts)
			send := func(s *Store) {
				if tc.logsFirst {
					require.NoError(t, s.WriteLogs(logs))
					require.NoError(t, s.Write(recs))
				} else {
					require.NoError(t, s.Write(recs))
					require.NoError(t, s.WriteLogs(logs))
				}
			}
			send(s)
			send(s) // redelivered
			require.NoError(t, s.Close())
			s2 := newStore(t, opts) // a restart: the artifact is adopted
			send(s2)
			require.NoError(t, s2.Close())

			// The run is two traces, one per model call.
			var spans []*artifact.Record
			var got []artifact.LogRecord
			for _, g := range Split(recs, ByTrace, "") {
				sp, lg, order := readWithLogs(t, filepath.Join(dir, FileName(g.Key, "")))
				spans, got = append(spans, sp...), append(got, lg...)
				if tc.logsFirst {
					assert.Regexp(t, `^s+l+$`, order, "the log lines follow the spans")
				}
			}
			assert.Len(t, spans, len(recs))
			assert.Equal(t, int64(len(logs)), c.written.Load(), "each log record written once")
			assert.Equal(t, int64(2*len(logs)), c.dups.Load(), "the redeliveries skipped")
			assert.Equal(t, plogcmp.Records(ld), plogcmp.Records(artifact.ToLogs(got)), "log records as received")
			if tc.logsFirst {
				assert.Equal(t, int64(len(logs)), c.held.Load(), "held until their trace's artifact existed")
			}
			assert.Zero(t, s.HeldLogs())
		})
	}
}

// TestLogsWithoutTraceAreKept: a log record of no trace goes to the
// untraced artifact, counted.
func TestLogsWithoutTraceAreKept(t *testing.T) {
	dir := t.TempDir()
	var c logCounts
	s := newStore(t, Options{Dir: dir, LogHooks: c.hooks()})
	ld := plog.NewLogs()
	rl := ld.ResourceLogs().AppendEmpty()
	rl.Resource().Attributes().PutStr("service.name", "svc")
	lr := rl.ScopeLogs().AppendEmpty().LogRecords().AppendEmpty()
	lr.SetEventName("gen_ai.user.message")
	lr.Body().SetEmptyMap().PutStr("content", "hi")
	lr.SetTimestamp(pcommon.Timestamp(1_700_000_000_000_000_000))
	require.NoError(t, s.WriteLogs(artifact.LogRecords(ld)))
	require.NoError(t, s.WriteLogs(artifact.LogRecords(ld)))
	require.NoError(t, s.Close())
	_, got, _ := readWithLogs(t, filepath.Join(dir, UntracedFileName))
	require.Len(t, got, 1)
	assert.Equal(t, "gen_ai.user.message", got[0].Log.EventName())
	assert.Equal(t, int64(2), c.untraced.Load())
	assert.Equal(t, int64(1), c.dups.Load())
}

// TestHeldLogsAreBounded: past MaxHeldLogs the trace held longest is
// written to an artifact of its own, which its spans continue; Close
// writes what is still held.
func TestHeldLogsAreBounded(t *testing.T) {
	dir := t.TempDir()
	var c logCounts
	s := newStore(t, Options{Dir: dir, MaxHeldLogs: 1, LogHooks: c.hooks()})
	mk := func(trace byte) []artifact.LogRecord {
		ld := plog.NewLogs()
		lr := ld.ResourceLogs().AppendEmpty().ScopeLogs().AppendEmpty().LogRecords().AppendEmpty()
		lr.SetTraceID(tid(trace))
		lr.SetSpanID(sid(2))
		lr.Body().SetStr("answer")
		return artifact.LogRecords(ld)
	}
	require.NoError(t, s.WriteLogs(mk(1)))
	assert.Equal(t, 1, s.HeldLogs())
	require.NoError(t, s.WriteLogs(mk(2)))
	assert.Equal(t, 1, s.HeldLogs(), "trace 1's record written to make room")
	_, l1, _ := readWithLogs(t, filepath.Join(dir, tid(1).String()+Ext))
	assert.Len(t, l1, 1)
	require.NoError(t, s.Write(records(span{trace: 1, id: 2, parent: 1}, span{trace: 1, id: 1})))
	require.NoError(t, s.Close())
	sp1, l1, order := readWithLogs(t, filepath.Join(dir, tid(1).String()+Ext))
	assert.Len(t, sp1, 2)
	assert.Len(t, l1, 1)
	assert.Equal(t, "lss", order)
	_, l2, _ := readWithLogs(t, filepath.Join(dir, tid(2).String()+Ext))
	assert.Len(t, l2, 1, "Close writes what is held")
	assert.Equal(t, int64(2), c.written.Load())
}

// TestFoldedTraceKeepsItsLogs: a trace that names its conversation late
// brings its log lines into the conversation's artifact.
func TestFoldedTraceKeepsItsLogs(t *testing.T) {
	dir := t.TempDir()
	s := newStore(t, Options{Dir: dir, Route: ByConversation, FinalizeAfter: 0})
	require.NoError(t, s.Write(records(span{trace: 1, id: 2, parent: 1})))
	ld := plog.NewLogs()
	lr := ld.ResourceLogs().AppendEmpty().ScopeLogs().AppendEmpty().LogRecords().AppendEmpty()
	lr.SetTraceID(tid(1))
	lr.SetSpanID(sid(2))
	lr.Body().SetStr("answer")
	require.NoError(t, s.WriteLogs(artifact.LogRecords(ld)))
	require.NoError(t, s.Write(records(span{trace: 1, id: 1, conv: "c1"})))
	require.NoError(t, s.Close())
	_, err := os.Stat(filepath.Join(dir, tid(1).String()+Ext))
	assert.ErrorIs(t, err, os.ErrNotExist)
	spans, logs, _ := readWithLogs(t, filepath.Join(dir, "conv-c1"+Ext))
	assert.Len(t, spans, 2)
	require.Len(t, logs, 1)
	assert.Equal(t, "answer", logs[0].Log.Body().Str())
}

// TestLogsToOneWriter: a store of one artifact takes log records at once.
func TestLogsToOneWriter(t *testing.T) {
	var buf bytes.Buffer
	s := newStore(t, Options{Writer: &buf})
	recs, ld := realRun(t)
	require.NoError(t, s.WriteLogs(artifact.LogRecords(ld)))
	require.NoError(t, s.Write(recs))
	require.NoError(t, s.Close())
	var n int
	r := artifact.NewReader(&buf, artifact.WithLogs(func(*artifact.LogRecord) { n++ }))
	for {
		if _, err := r.Next(); err != nil {
			require.ErrorIs(t, err, io.EOF)
			break
		}
	}
	assert.Equal(t, ld.LogRecordCount(), n)
	assert.Equal(t, int64(len(recs)), r.Summary().Records)
}

// TestLogsAndSpansConcurrently: spans and log records of many traces
// written from many goroutines at once, each twice, in no set order: every
// trace's artifact holds its spans, and its log records once each.
func TestLogsAndSpansConcurrently(t *testing.T) {
	dir := t.TempDir()
	var c logCounts
	s := newStore(t, Options{Dir: dir, FinalizeAfter: time.Hour, LogHooks: c.hooks()})
	const traces = 24
	logsOf := func(tr byte) []artifact.LogRecord {
		ld := plog.NewLogs()
		lrs := ld.ResourceLogs().AppendEmpty().ScopeLogs().AppendEmpty().LogRecords()
		for i := range 3 {
			lr := lrs.AppendEmpty()
			lr.SetTraceID(tid(tr))
			lr.SetSpanID(sid(2))
			lr.SetEventName("gen_ai.choice")
			lr.Body().SetEmptyMap().PutInt("index", int64(i))
		}
		return artifact.LogRecords(ld)
	}
	var wg sync.WaitGroup
	for tr := byte(1); tr <= traces; tr++ {
		for round := range 2 {
			wg.Go(func() {
				if (int(tr)+round)%2 == 0 {
					assert.NoError(t, s.WriteLogs(logsOf(tr)))
				} else {
					assert.NoError(t, s.Write(records(span{trace: tr, id: 2, parent: 1}, span{trace: tr, id: 1})))
				}
			})
			wg.Go(func() {
				if (int(tr)+round)%2 == 0 {
					assert.NoError(t, s.Write(records(span{trace: tr, id: 2, parent: 1}, span{trace: tr, id: 1})))
				} else {
					assert.NoError(t, s.WriteLogs(logsOf(tr)))
				}
			})
		}
	}
	wg.Wait()
	require.NoError(t, s.Close())
	for tr := byte(1); tr <= traces; tr++ {
		spans, logs, _ := readWithLogs(t, filepath.Join(dir, tid(tr).String()+Ext))
		assert.Len(t, spans, 2, "trace %d", tr)
		assert.Len(t, logs, 3, "trace %d", tr)
	}
	assert.Equal(t, int64(3*traces), c.written.Load())
	assert.Equal(t, int64(3*traces), c.dups.Load())
}

// TestHeldLogsAgeOut: a record held longer than HoldLogs is written at the
// next write of either kind, to an artifact its spans then continue.
func TestHeldLogsAgeOut(t *testing.T) {
	dir := t.TempDir()
	s := newStore(t, Options{Dir: dir, FinalizeAfter: time.Hour, HoldLogs: time.Nanosecond})
	ld := plog.NewLogs()
	lr := ld.ResourceLogs().AppendEmpty().ScopeLogs().AppendEmpty().LogRecords().AppendEmpty()
	lr.SetTraceID(tid(1))
	lr.SetSpanID(sid(2))
	lr.Body().SetStr("answer")
	require.NoError(t, s.WriteLogs(artifact.LogRecords(ld)))
	require.Eventually(t, func() bool {
		require.NoError(t, s.Write(records(span{trace: 9, id: 1})))
		return s.HeldLogs() == 0
	}, 10*time.Second, time.Millisecond)
	_, logs, _ := readWithLogs(t, filepath.Join(dir, tid(1).String()+Ext))
	assert.Len(t, logs, 1)
	require.NoError(t, s.Write(records(span{trace: 1, id: 2, parent: 1})))
	require.NoError(t, s.Close())
	spans, logs, order := readWithLogs(t, filepath.Join(dir, tid(1).String()+Ext))
	assert.Len(t, spans, 1)
	assert.Len(t, logs, 1)
	assert.Equal(t, "ls", order)
}

// TestHeldLogsJoinTheirConversation: grouping by conversation, a log
// record emitted before its span ended (held: no artifact yet) goes into
// the conversation's artifact, even when the Write that brings the
// spans finalizes it at once (its root ended), and no file of the trace's
// own appears.
func TestHeldLogsJoinTheirConversation(t *testing.T) {
	dir := t.TempDir()
	s := newStore(t, Options{Dir: dir, Route: ByConversation})
	ld := plog.NewLogs()
	lr := ld.ResourceLogs().AppendEmpty().ScopeLogs().AppendEmpty().LogRecords().AppendEmpty()
	lr.SetTraceID(tid(1))
	lr.SetSpanID(sid(2))
	lr.Body().SetStr("the question")
	require.NoError(t, s.WriteLogs(artifact.LogRecords(ld)))
	assert.Equal(t, 1, s.HeldLogs())
	require.NoError(t, s.Write(records(span{trace: 1, id: 2, parent: 1, conv: "c1"}, span{trace: 1, id: 1})))
	require.NoError(t, s.Close())
	files, err := filepath.Glob(filepath.Join(dir, "*"+Ext))
	require.NoError(t, err)
	assert.Equal(t, []string{filepath.Join(dir, "conv-c1"+Ext)}, files)
	spans, logs, _ := readWithLogs(t, files[0])
	assert.Len(t, spans, 2)
	require.Len(t, logs, 1)
	assert.Equal(t, "the question", logs[0].Log.Body().Str())
}
