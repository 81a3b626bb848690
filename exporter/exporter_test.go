package agenttraceexporter

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/consumer/consumererror"
	"go.opentelemetry.io/collector/exporter/exportertest"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.uber.org/zap"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/store"
)

// spec is one span of a test batch. tid and sid name the ids; parent 0
// makes a root.
type spec struct {
	tid, sid, parent byte
	conv             string
	res              map[string]any
	attrs            map[string]any
}

func tid(b byte) pcommon.TraceID {
	return pcommon.TraceID{b, 0xa, 0xb, 0xc, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}
}

func sid(b byte) pcommon.SpanID { return pcommon.SpanID{b, 1, 2, 3, 4, 5, 6, 7} }

// batch builds a batch: each span under its own resource (service.name
// "svc" unless res says); a root (parent 0) is an invoke_agent span, any
// other an inference with 10 input and 5 output tokens. (A chat root over
// chats would be a wrapper, whose usage repeats its children's and is
// never counted.)
func batch(specs ...spec) ptrace.Traces {
	td := ptrace.NewTraces()
	for i, s := range specs {
		rs := td.ResourceSpans().AppendEmpty()
		must(rs.Resource().Attributes().FromRaw(merge(map[string]any{"service.name": "svc"}, s.res)))
		ss := rs.ScopeSpans().AppendEmpty()
		ss.Scope().SetName("test")
		sp := ss.Spans().AppendEmpty()
		sp.SetTraceID(tid(s.tid))
		sp.SetSpanID(sid(s.sid))
		if s.parent != 0 {
			sp.SetParentSpanID(sid(s.parent))
		}
		sp.SetName("chat gpt-test")
		op := "chat"
		if s.parent == 0 {
			sp.SetName("invoke_agent planner")
			op = "invoke_agent"
		}
		start := time.Date(2026, 5, 4, 14, 0, 0, 0, time.UTC).Add(time.Duration(int(s.sid)*10+i) * time.Millisecond)
		sp.SetStartTimestamp(pcommon.NewTimestampFromTime(start))
		sp.SetEndTimestamp(pcommon.NewTimestampFromTime(start.Add(5 * time.Millisecond)))
		attrs := map[string]any{
			"gen_ai.operation.name":      op,
			"gen_ai.request.model":       "gpt-test",
			"gen_ai.usage.input_tokens":  int64(10),
			"gen_ai.usage.output_tokens": int64(5),
		}
		if s.conv != "" {
			attrs["gen_ai.conversation.id"] = s.conv
		}
		must(sp.Attributes().FromRaw(merge(attrs, s.attrs)))
	}
	return td
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}

func merge(a, b map[string]any) map[string]any {
	for k, v := range b {
		a[k] = v
	}
	return a
}

func newTestExporter(t *testing.T, dir string, mutate func(*Config)) *agenttraceExporter {
	t.Helper()
	cfg := createDefaultConfig().(*Config)
	cfg.Directory = dir
	if mutate != nil {
		mutate(cfg)
	}
	require.NoError(t, cfg.Validate())
	e := newExporter(cfg, zap.NewNop(), nil)
	require.NoError(t, e.start(context.Background(), componenttest.NewNopHost()))
	t.Cleanup(func() { require.NoError(t, e.shutdown(context.Background())) })
	return e
}

func push(t *testing.T, e *agenttraceExporter, specs ...spec) {
	t.Helper()
	require.NoError(t, e.pushTraces(context.Background(), batch(specs...)))
}

// artifactFile is what a test reads back from an artifact.
type artifactFile struct {
	meta      *artifact.Meta
	recs      []*artifact.Record
	summary   *artifact.Summary
	headers   int
	summaries int64
	problems  []*artifact.LineError
}

// readArtifact reads path with artifact.NewReader and checks that its last
// trailer matches a Tally of its records.
func readArtifact(t *testing.T, path string) artifactFile {
	t.Helper()
	a := scanArtifact(t, path)
	var tally artifact.Tally
	for _, rec := range a.recs {
		tally.Add(rec)
	}
	if a.summary != nil {
		// The trailer judges against the budget the run was finally held
		// to, which a late root span's override may have changed.
		budget := a.meta.Budget
		if b := a.summary.Budget; b != nil {
			budget = &artifact.Budget{Tokens: b.BudgetTokens, WarnThreshold: b.WarnThreshold}
			if b.CostBudget != nil {
				budget.USD = b.BudgetUSD
			}
		}
		want := tally.Summary(budget)
		want.Complete = true
		want.Dropped = a.summary.Dropped
		assert.Equal(t, want, *a.summary, "%s: trailer and tally of its records differ", path)
	}
	return a
}

// scanArtifact reads path with artifact.NewReader, without checking its
// trailer against its records (a record cap counts spans it did not write).
func scanArtifact(t *testing.T, path string) artifactFile {
	t.Helper()
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	r := artifact.NewReader(bytes.NewReader(raw), artifact.WithSource(path))
	var a artifactFile
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		a.recs = append(a.recs, rec)
	}
	a.meta, a.summary, a.problems = r.Meta(), r.Summary(), r.Problems()
	a.summaries = r.Stats().Summaries
	a.headers = strings.Count(string(raw), `"kind":"meta"`)
	return a
}

func spanIDs(recs []*artifact.Record) []string {
	out := make([]string, 0, len(recs))
	for _, r := range recs {
		out = append(out, r.Span.SpanID().String())
	}
	return out
}

func tracePath(dir string, b byte) string { return filepath.Join(dir, tid(b).String()+".jsonl") }

func TestGrouping(t *testing.T) {
	tests := []struct {
		groupBy string
		want    []string
	}{
		{GroupByTrace, []string{tid(1).String() + ".jsonl", tid(2).String() + ".jsonl", tid(3).String() + ".jsonl"}},
		{GroupByConversation, []string{"conv-c1.jsonl", tid(3).String() + ".jsonl"}},
		{"resource:service.name", []string{"service.name-alpha.jsonl", "service.name-beta.jsonl"}},
	}
	for _, tt := range tests {
		t.Run(tt.groupBy, func(t *testing.T) {
			dir := t.TempDir()
			e := newTestExporter(t, dir, func(c *Config) { c.GroupBy = tt.groupBy })
			push(t, e,
				spec{tid: 1, sid: 1, conv: "c1", res: map[string]any{"service.name": "alpha"}},
				spec{tid: 2, sid: 1, conv: "c1", res: map[string]any{"service.name": "beta"}},
				spec{tid: 3, sid: 1, res: map[string]any{"service.name": "beta"}},
			)
			// A later span of trace 1 that names no conversation stays with it.
			push(t, e, spec{tid: 1, sid: 2, parent: 1, res: map[string]any{"service.name": "alpha"}})
			require.NoError(t, e.shutdown(context.Background()))
			entries, err := os.ReadDir(dir)
			require.NoError(t, err)
			var names []string
			total := 0
			for _, en := range entries {
				names = append(names, en.Name())
				a := readArtifact(t, filepath.Join(dir, en.Name()))
				assert.Equal(t, 1, a.headers)
				assert.Empty(t, a.problems)
				total += len(a.recs)
			}
			assert.ElementsMatch(t, tt.want, names)
			assert.Equal(t, 4, total)
		})
	}
}

func TestRedeliveredBatchIsNotDuplicated(t *testing.T) {
	dir := t.TempDir()
	e := newTestExporter(t, dir, nil)
	b := []spec{{tid: 1, sid: 2, parent: 1}, {tid: 1, sid: 3, parent: 1}}
	push(t, e, b...)
	push(t, e, b...)                               // redelivered whole
	push(t, e, append(b, spec{tid: 1, sid: 1})...) // redelivered with the root
	require.NoError(t, e.shutdown(context.Background()))
	a := readArtifact(t, tracePath(dir, 1))
	assert.Equal(t, 1, a.headers)
	assert.Len(t, a.recs, 3)
	assert.Equal(t, int64(3), a.summary.Records)
	assert.Equal(t, int64(30), a.summary.Tokens.Total, "two model calls, each once")
}

func TestConcurrentBatchesOfOneTrace(t *testing.T) {
	dir := t.TempDir()
	e := newTestExporter(t, dir, nil)
	const n = 64
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Each span twice, from different goroutines.
			s := spec{tid: 1, sid: byte(i%32 + 2), parent: 1}
			if i%32 == 0 {
				s = spec{tid: 1, sid: 1}
			}
			assert.NoError(t, e.pushTraces(context.Background(), batch(s, spec{tid: 2, sid: byte(i + 1)})))
		}()
	}
	wg.Wait()
	require.NoError(t, e.shutdown(context.Background()))
	a := readArtifact(t, tracePath(dir, 1))
	assert.Equal(t, 1, a.headers)
	assert.Empty(t, a.problems)
	assert.Len(t, a.recs, 32)
	b := readArtifact(t, tracePath(dir, 2))
	assert.Len(t, b.recs, n)
}

// The same through the factory: exporterhelper's queue with concurrent
// consumers in front of the exporter.
func TestConcurrentThroughQueue(t *testing.T) {
	dir := t.TempDir()
	f := NewFactory()
	cfg := f.CreateDefaultConfig().(*Config)
	cfg.Directory = dir
	exp, err := f.CreateTraces(context.Background(), exportertest.NewNopSettings(typ), cfg)
	require.NoError(t, err)
	require.NoError(t, exp.Start(context.Background(), componenttest.NewNopHost()))
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := spec{tid: 1, sid: byte(i + 2), parent: 1}
			assert.NoError(t, exp.ConsumeTraces(context.Background(), batch(s)))
			assert.NoError(t, exp.ConsumeTraces(context.Background(), batch(s))) // redelivered
		}()
	}
	wg.Wait()
	require.NoError(t, exp.Shutdown(context.Background())) // drains the queue
	a := readArtifact(t, tracePath(dir, 1))
	assert.Equal(t, 1, a.headers)
	assert.Len(t, a.recs, 50)
}

func lastLine(t *testing.T, path string) string {
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimRight(string(raw), "\n"), "\n")
	return lines[len(lines)-1]
}

func (e *agenttraceExporter) active(k store.Key) bool { return e.st.IsActive(k) }

func traceName(t pcommon.TraceID) store.Key { return store.TraceKey(t) }

func TestFinalizeAfterIdleAndLateSpan(t *testing.T) {
	dir := t.TempDir()
	e := newTestExporter(t, dir, func(c *Config) { c.FinalizeAfter = 30 * time.Millisecond })
	path := tracePath(dir, 1)
	push(t, e, spec{tid: 1, sid: 2, parent: 1}, spec{tid: 1, sid: 1})
	require.Eventually(t, func() bool { return !e.active(traceName(tid(1))) }, 5*time.Second, 5*time.Millisecond)
	assert.Contains(t, lastLine(t, path), `"kind":"summary"`)
	a := readArtifact(t, path)
	assert.Equal(t, int64(1), a.summaries)
	assert.Equal(t, int64(2), a.summary.Records)

	// A late span: appended, and a new trailer follows; a redelivered old
	// one is still recognized.
	push(t, e, spec{tid: 1, sid: 3, parent: 1}, spec{tid: 1, sid: 2, parent: 1})
	require.True(t, e.active(traceName(tid(1))))
	require.Eventually(t, func() bool { return !e.active(traceName(tid(1))) }, 5*time.Second, 5*time.Millisecond)
	a = readArtifact(t, path)
	assert.Equal(t, 1, a.headers)
	assert.Empty(t, a.problems)
	assert.Equal(t, int64(2), a.summaries)
	assert.ElementsMatch(t, []string{sid(2).String(), sid(1).String(), sid(3).String()}, spanIDs(a.recs))
	assert.Equal(t, int64(3), a.summary.Records)
	assert.Equal(t, int64(30), a.summary.Tokens.Total, "two model calls")
}

// TestNoRootIsNotFinalizedEarly: a trace whose root has not arrived
// outlives finalize_after (a rooted trace pushed with it is finalized
// first) and is finalized as an orphan, after orphanFactor of them.
func TestNoRootIsNotFinalizedEarly(t *testing.T) {
	dir := t.TempDir()
	const after = 50 * time.Millisecond
	e := newTestExporter(t, dir, func(c *Config) { c.FinalizeAfter = after })
	start := time.Now()
	push(t, e, spec{tid: 1, sid: 2, parent: 1}, spec{tid: 2, sid: 1})
	require.Eventually(t, func() bool { return !e.active(traceName(tid(2))) }, 5*time.Second, 5*time.Millisecond, "the rooted trace")
	if time.Since(start) < orphanFactor*after {
		assert.True(t, e.active(traceName(tid(1))), "finalized with no root after %s", time.Since(start))
	}
	require.Eventually(t, func() bool { return !e.active(traceName(tid(1))) }, 5*time.Second, 5*time.Millisecond)
	assert.GreaterOrEqual(t, time.Since(start), orphanFactor*after, "finalized as an orphan, not before")
	a := readArtifact(t, tracePath(dir, 1))
	assert.Len(t, a.recs, 1)
}

func TestLRUEvictionAndReopen(t *testing.T) {
	dir := t.TempDir()
	e := newTestExporter(t, dir, func(c *Config) { c.MaxOpenFiles = 2 })
	for round := range byte(3) {
		for tr := byte(1); tr <= 5; tr++ {
			push(t, e, spec{tid: tr, sid: round + 2, parent: 1})
			open := e.st.OpenFiles()
			require.LessOrEqual(t, open, 2)
		}
	}
	require.NoError(t, e.shutdown(context.Background()))
	for tr := byte(1); tr <= 5; tr++ {
		a := readArtifact(t, tracePath(dir, tr))
		assert.Equal(t, 1, a.headers)
		assert.Empty(t, a.problems)
		assert.Len(t, a.recs, 3)
	}
}

func TestRestartAdoptsArtifact(t *testing.T) {
	dir := t.TempDir()
	first := newTestExporter(t, dir, func(c *Config) { c.Budget.Tokens = 1000 })
	push(t, first, spec{tid: 1, sid: 2, parent: 1}, spec{tid: 1, sid: 3, parent: 1})
	require.NoError(t, first.shutdown(context.Background()))

	// A crash mid-line in some later life: the torn line, never counted,
	// is cut off when the artifact is adopted.
	path := tracePath(dir, 1)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	require.NoError(t, err)
	_, err = f.WriteString(`{"kind":"inference","name":"torn`)
	require.NoError(t, err)
	require.NoError(t, f.Close())

	second := newTestExporter(t, dir, func(c *Config) { c.Budget.Tokens = 1000 })
	push(t, second, spec{tid: 1, sid: 3, parent: 1}, spec{tid: 1, sid: 4, parent: 1}, spec{tid: 1, sid: 1})
	require.NoError(t, second.shutdown(context.Background()))

	a := readArtifact(t, path)
	assert.Equal(t, 1, a.headers)
	assert.Empty(t, a.problems, "the torn line cut off: valid")
	assert.ElementsMatch(t, []string{sid(2).String(), sid(3).String(), sid(4).String(), sid(1).String()}, spanIDs(a.recs))
	assert.Equal(t, int64(4), a.summary.Records)
	require.NotNil(t, a.summary.Budget)
	assert.Equal(t, int64(1000), a.summary.Budget.BudgetTokens)
	assert.Equal(t, int64(45), a.summary.Budget.Spent, "three model calls")
}

func TestHostileGroupValuesStayInDirectory(t *testing.T) {
	hostile := []string{"../../etc", "/etc/passwd", "a\x00b", "..", ".", "", "../" + strings.Repeat("x", 300), `..\..\windows`}
	for _, groupBy := range []string{GroupByConversation, "resource:tenant", "resource:../../etc"} {
		t.Run(groupBy, func(t *testing.T) {
			parent := t.TempDir()
			dir := filepath.Join(parent, "runs")
			e := newTestExporter(t, dir, func(c *Config) { c.GroupBy = groupBy })
			for i, h := range hostile {
				push(t, e, spec{tid: byte(i + 1), sid: 1, conv: h, res: map[string]any{"tenant": h, "../../etc": h}})
			}
			require.NoError(t, e.shutdown(context.Background()))
			top, err := os.ReadDir(parent)
			require.NoError(t, err)
			require.Len(t, top, 1, "nothing written beside directory")
			entries, err := os.ReadDir(dir)
			require.NoError(t, err)
			total := 0
			for _, en := range entries {
				require.True(t, en.Type().IsRegular(), en.Name())
				assert.False(t, strings.HasPrefix(en.Name(), "."), en.Name())
				assert.NotContains(t, en.Name(), "\x00")
				assert.LessOrEqual(t, len(en.Name()), 200)
				total += len(readArtifact(t, filepath.Join(dir, en.Name())).recs)
			}
			assert.Equal(t, len(hostile), total)
		})
	}
}

func TestBudgetOverrides(t *testing.T) {
	dir := t.TempDir()
	e := newTestExporter(t, dir, func(c *Config) { c.Budget = BudgetConfig{Tokens: 1000, WarnThreshold: 0.5} })
	// Trace 1: the resource overrides. Trace 2: the root span, arriving
	// after the header was written. Trace 3: the configured budget.
	push(t, e,
		spec{tid: 1, sid: 2, parent: 1, res: map[string]any{"agenttrace.budget.tokens": int64(500)}},
		spec{tid: 2, sid: 2, parent: 1},
		spec{tid: 3, sid: 1},
	)
	push(t, e, spec{tid: 2, sid: 1, attrs: map[string]any{"agenttrace.budget.tokens": int64(10)}})
	require.NoError(t, e.shutdown(context.Background()))

	budget := func(b byte) (header, trailer int64) {
		a := readArtifact(t, tracePath(dir, b))
		require.NotNil(t, a.meta.Budget)
		require.NotNil(t, a.summary.Budget)
		return a.meta.Budget.Tokens, a.summary.Budget.BudgetTokens
	}
	h, tr := budget(1)
	assert.Equal(t, []int64{500, 500}, []int64{h, tr})
	h, tr = budget(2)
	assert.Equal(t, []int64{1000, 10}, []int64{h, tr}, "the header was written before the root arrived")
	h, tr = budget(3)
	assert.Equal(t, []int64{1000, 1000}, []int64{h, tr})
	a := readArtifact(t, tracePath(dir, 2))
	assert.True(t, a.summary.Budget.OverBudget)

	// A late span keeps the override the last trailer recorded.
	e2 := newTestExporter(t, dir, func(c *Config) { c.Budget = BudgetConfig{Tokens: 1000, WarnThreshold: 0.5} })
	push(t, e2, spec{tid: 2, sid: 3, parent: 1})
	require.NoError(t, e2.shutdown(context.Background()))
	_, tr = budget(2)
	assert.Equal(t, int64(10), tr)
}

func TestRecordCap(t *testing.T) {
	dir := t.TempDir()
	e := newTestExporter(t, dir, func(c *Config) { c.MaxRecordsPerArtifact = 2 })
	push(t, e, spec{tid: 1, sid: 2, parent: 1}, spec{tid: 1, sid: 3, parent: 1}, spec{tid: 1, sid: 4, parent: 1})
	push(t, e, spec{tid: 1, sid: 4, parent: 1}, spec{tid: 1, sid: 1}) // 4 redelivered
	require.NoError(t, e.shutdown(context.Background()))
	a := scanArtifact(t, tracePath(dir, 1))
	assert.Len(t, a.recs, 2)
	assert.Empty(t, a.problems)
	s := a.summary
	assert.Equal(t, int64(2), s.Dropped)
	assert.Equal(t, int64(45), s.Tokens.Total, "dropped spans' usage still counts")
}

func TestRedaction(t *testing.T) {
	dir := t.TempDir()
	f := NewFactory()
	cfg := f.CreateDefaultConfig().(*Config)
	cfg.Directory = dir
	cfg.Redact.Keys = []string{"customer"}
	exp, err := f.CreateTraces(context.Background(), exportertest.NewNopSettings(typ), cfg)
	require.NoError(t, err)
	assert.True(t, exp.Capabilities().MutatesData)
	require.NoError(t, exp.Start(context.Background(), componenttest.NewNopHost()))
	secret := "sk-ant-api03-" + strings.Repeat("Ab1", 30)
	require.NoError(t, exp.ConsumeTraces(context.Background(), batch(spec{tid: 1, sid: 1, attrs: map[string]any{
		"customer": "Jane Doe", "note": fmt.Sprintf("key is %s ok", secret),
	}})))
	require.NoError(t, exp.Shutdown(context.Background()))
	raw, err := os.ReadFile(tracePath(dir, 1))
	require.NoError(t, err)
	assert.NotContains(t, string(raw), "Jane Doe")
	assert.NotContains(t, string(raw), secret)
	assert.Contains(t, string(raw), "[REDACTED]")
	a := readArtifact(t, tracePath(dir, 1))
	assert.True(t, a.meta.Redacted)
}

// TestOneTraceManyServices: spans of one trace sent by two services, in
// separate batches, land in the trace's one artifact, each record with its
// own service.
func TestOneTraceManyServices(t *testing.T) {
	dir := t.TempDir()
	e := newTestExporter(t, dir, nil)
	push(t, e, spec{tid: 7, sid: 2, parent: 1, res: map[string]any{"service.name": "planner"}})
	push(t, e, spec{tid: 7, sid: 3, parent: 2, res: map[string]any{"service.name": "search-tool"}})
	push(t, e, spec{tid: 7, sid: 1, res: map[string]any{"service.name": "planner"}})
	require.NoError(t, e.shutdown(context.Background()))
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1)
	af := readArtifact(t, tracePath(dir, 7))
	require.Len(t, af.recs, 3)
	services := map[string]bool{}
	for _, r := range af.recs {
		v, _ := r.Resource.Attributes().Get("service.name")
		services[v.Str()] = true
	}
	assert.Equal(t, map[string]bool{"planner": true, "search-tool": true}, services)
}

// TestPartialFailure: an artifact that cannot be written fails only its
// own spans, returned to exporterhelper as a partial failure to retry;
// the other artifacts of the batch are written, and the retry, once the
// artifact can be written, writes the failed spans once.
func TestPartialFailure(t *testing.T) {
	dir := t.TempDir()
	e := newTestExporter(t, dir, nil)
	blocker := tracePath(dir, 1)
	require.NoError(t, os.Mkdir(blocker, 0o755)) // where trace 1's file would go
	err := e.pushTraces(context.Background(), batch(spec{tid: 1, sid: 2, parent: 1}, spec{tid: 2, sid: 1}, spec{tid: 1, sid: 3, parent: 1}))
	require.Error(t, err)
	assert.False(t, consumererror.IsPermanent(err), "retrying may succeed")
	var failed consumererror.Traces
	require.ErrorAs(t, err, &failed)
	retry := failed.Data()
	assert.Equal(t, 2, retry.SpanCount(), "only trace 1's spans")
	assert.Len(t, readArtifact(t, tracePath(dir, 2)).recs, 1, "trace 2 written")

	require.NoError(t, os.Remove(blocker))
	require.NoError(t, e.pushTraces(context.Background(), retry))
	require.NoError(t, e.shutdown(context.Background()))
	a := readArtifact(t, tracePath(dir, 1))
	assert.Len(t, a.recs, 2)
	assert.Empty(t, a.problems)
}
