package bridge_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/bridge"
	"github.com/agenttrace/agenttrace/semconv"
	"github.com/agenttrace/agenttrace/store"
)

func TestNewValidates(t *testing.T) {
	for name, opts := range map[string][]bridge.Option{
		"no sink":         nil,
		"bad threshold":   {bridge.WithWriter(&syncBuffer{}), bridge.WithWarnThreshold(1.5)},
		"negative cap":    {bridge.WithWriter(&syncBuffer{}), bridge.WithRecordCap(-1)},
		"empty queue":     {bridge.WithWriter(&syncBuffer{}), bridge.WithQueueSize(0)},
		"negative budget": {bridge.WithWriter(&syncBuffer{}), bridge.WithBudget(-5)},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := bridge.New(opts...)
			require.Error(t, err)
		})
	}
}

// TestManyGoroutinesManyTraces: spans of 40 traces ended from 40
// goroutines at once all land, once each, in their trace's artifact.
func TestManyGoroutinesManyTraces(t *testing.T) {
	dir := t.TempDir()
	p := newProcessor(t, bridge.WithDirectory(dir, store.ByTrace), bridge.WithBlocking(), bridge.WithQueueSize(16), bridge.WithBatchSize(8))
	tr := provider(t, p)
	const traces, spansPer = 40, 25
	var wg sync.WaitGroup
	ids := make([]trace.TraceID, traces)
	for i := range traces {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, root := tr.Start(context.Background(), "invoke_agent worker")
			root.SetAttributes(attribute.String(semconv.OperationName, "invoke_agent"))
			ids[i] = root.SpanContext().TraceID()
			for j := range spansPer - 1 {
				if j%2 == 0 {
					chat(ctx, tr, 10, 1)
				} else {
					tool(ctx, tr, "grep", `{"q":"x"}`, `{"hits":1}`, "")
				}
			}
			root.End()
		}()
	}
	wg.Wait()
	require.NoError(t, p.Shutdown(context.Background()))
	require.Len(t, p.Artifacts(), traces)
	for _, id := range ids {
		recs, r := readArtifact(t, readFile(t, filepath.Join(dir, id.String()+".jsonl")))
		require.Len(t, recs, spansPer)
		seen := map[string]bool{}
		for _, rec := range recs {
			require.Equal(t, id.String(), rec.Span.TraceID().String())
			require.False(t, seen[rec.Span.SpanID().String()], "duplicate span")
			seen[rec.Span.SpanID().String()] = true
		}
		s := r.Summary()
		require.NotNil(t, s)
		assert.True(t, s.Complete)
		assert.Equal(t, int64(12*10+12), s.Tokens.Total)
		assert.Equal(t, int64(0), s.Dropped)
	}
}

// TestForceFlushWritesEverythingEndedBefore: after ForceFlush returns, the
// artifact holds every span ended before the call.
func TestForceFlushWritesEverythingEndedBefore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.jsonl")
	p := newProcessor(t, bridge.WithFile(path), bridge.WithBatchTimeout(time.Hour))
	tr := provider(t, p)
	ctx, root := tr.Start(context.Background(), "invoke_agent a")
	for range 5 {
		chat(ctx, tr, 3, 4)
	}
	require.NoError(t, p.ForceFlush(context.Background()))
	recs, _ := readArtifact(t, readFile(t, path))
	assert.Len(t, recs, 5, "the batch timeout is an hour: only the flush can have written them")
	root.End()
	require.NoError(t, p.Shutdown(context.Background()))
	recs, r := readArtifact(t, readFile(t, path))
	assert.Len(t, recs, 6)
	assert.Equal(t, int64(35), r.Summary().Tokens.Total)
}

// TestFlushAndShutdownHonourContext: with the writer held still, ForceFlush
// and Shutdown return their context's error when it ends; Shutdown is
// idempotent and finishes once the writer can.
func TestFlushAndShutdownHonourContext(t *testing.T) {
	g := newGate()
	p, err := bridge.New(bridge.WithWriter(g), bridge.WithBatchSize(1))
	require.NoError(t, err)
	tr := provider(t, p)
	chat(context.Background(), tr, 1, 1)
	<-g.entered // the writer goroutine is stuck in Write

	require.ErrorIs(t, p.ForceFlush(ctxTimeout(t, 20*time.Millisecond)), context.DeadlineExceeded)
	require.ErrorIs(t, p.Shutdown(ctxTimeout(t, 20*time.Millisecond)), context.DeadlineExceeded)
	g.release()
	require.NoError(t, p.Shutdown(context.Background()))
	require.NoError(t, p.Shutdown(context.Background()), "idempotent")
	require.NoError(t, p.ForceFlush(context.Background()), "after shutdown: nothing to do")
	recs, r := readArtifact(t, g.Bytes())
	assert.Len(t, recs, 1)
	assert.True(t, r.Summary().Complete)
}

// TestFullQueueDropsAndCounts: with a tiny queue and the writer held still,
// OnEnd does not block: spans are dropped, counted, and the trailer says
// how many. With a budget (which reads every span's usage anyway) their
// tokens are still in its totals: the run spent them, written or not.
func TestFullQueueDropsAndCounts(t *testing.T) {
	for _, tc := range []struct {
		name      string
		extra     []bridge.Option
		withDrops bool // the dropped spans' tokens are in the totals
	}{
		{"no budget", nil, false},
		{"with a budget", []bridge.Option{bridge.WithBudget(1 << 40)}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := newGate()
			p, err := bridge.New(append(tc.extra, bridge.WithWriter(g), bridge.WithQueueSize(2), bridge.WithBatchSize(1))...)
			require.NoError(t, err)
			tr := provider(t, p)
			ctx, root := tr.Start(context.Background(), "invoke_agent a")
			chat(ctx, tr, 1, 1)
			<-g.entered
			const n = 50
			for range n {
				chat(ctx, tr, 100, 10) // must not block
			}
			root.End()
			dropped := p.Dropped()
			assert.Greater(t, dropped, int64(n-5))
			g.release()
			require.NoError(t, p.Shutdown(context.Background()))
			recs, r := readArtifact(t, g.Bytes())
			assert.Equal(t, int64(n+2), int64(len(recs))+dropped, "every span is written or counted")
			assert.Equal(t, dropped, r.Summary().Dropped)
			chats := int64(0)
			for _, rec := range recs {
				if rec.Span.Name() == "chat gpt-4o" {
					chats++
				}
			}
			written := 2 + (chats-1)*110 // the first chat is 1+1 tokens
			if tc.withDrops {
				assert.Equal(t, int64(2+n*110), r.Summary().Tokens.Total, "dropped spans' tokens are in the totals")
			} else {
				assert.Equal(t, written, r.Summary().Tokens.Total, "only what was written")
			}
		})
	}
}

// TestBudget walks a budget of 1000 tokens through its crossings: near at
// 800, over at 1200; Guard refuses after the call that tipped it; spans
// started after are marked; header and trailer tell the budget.
func TestBudget(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.jsonl")
	var mu sync.Mutex
	var events []string
	note := func(kind string) func(bridge.BudgetEvent) {
		return func(e bridge.BudgetEvent) {
			mu.Lock()
			defer mu.Unlock()
			events = append(events, fmt.Sprintf("%s %d", kind, e.Status.Spent))
		}
	}
	p := newProcessor(t, bridge.WithFile(path), bridge.WithBudget(1000), bridge.WithBudgetCallbacks(note("near"), note("over")))
	tr := provider(t, p)
	ctx, root := tr.Start(context.Background(), "invoke_agent a")

	st, ok := p.Status(ctx)
	require.True(t, ok)
	assert.Equal(t, artifact.BudgetStatus{BudgetTokens: 1000, Remaining: 1000, WarnThreshold: 0.8}, st)
	for i, want := range []struct {
		spent      int64
		near, over bool
	}{{400, false, false}, {800, true, false}, {1200, false, true}} {
		require.NoError(t, p.Guard(ctx), "call %d may run", i)
		chat(ctx, tr, 300, 100)
		st, _ := p.Status(ctx)
		assert.Equal(t, want.spent, st.Spent)
		assert.Equal(t, want.near, st.NearBudget)
		assert.Equal(t, want.over, st.OverBudget)
	}
	require.ErrorIs(t, p.Guard(ctx), bridge.ErrBudgetExceeded)
	assert.Equal(t, []string{"near 800", "over 1200"}, events)

	_, late := tr.Start(ctx, "execute_tool after")
	late.End()
	root.End()
	require.NoError(t, p.Shutdown(context.Background()))

	recs, r := readArtifact(t, readFile(t, path))
	require.NotNil(t, r.Meta().Budget)
	assert.Equal(t, int64(1000), r.Meta().Budget.Tokens)
	marked := 0
	for _, rec := range recs {
		if v, ok := rec.Span.Attributes().Get(semconv.BudgetExceeded); ok && v.Bool() {
			marked++
			assert.Equal(t, "execute_tool after", rec.Span.Name())
		}
	}
	assert.Equal(t, 1, marked)
	b := r.Summary().Budget
	require.NotNil(t, b)
	assert.True(t, b.OverBudget)
	assert.Equal(t, int64(1200), b.Spent)
}

// TestBudgetPerConversation: two traces of one conversation share a budget.
func TestBudgetPerConversation(t *testing.T) {
	dir := t.TempDir()
	p := newProcessor(t, bridge.WithDirectory(dir, store.ByConversation), bridge.WithBudget(100), bridge.WithBudgetScope(bridge.PerConversation))
	tr := provider(t, p)
	conv := attribute.String(semconv.ConversationID, "conv-7")
	for turn := range 2 {
		ctx, root := tr.Start(context.Background(), "invoke_agent a", trace.WithAttributes(conv))
		chat(ctx, tr, 30, 10, conv)
		st, _ := p.Status(ctx)
		assert.Equal(t, int64(40*(turn+1)), st.Spent, "turn %d", turn)
		root.End()
	}
	require.NoError(t, p.Shutdown(context.Background()))
	require.Equal(t, []string{filepath.Join(dir, "conv-conv-7.jsonl")}, p.Artifacts())
	recs, r := readArtifact(t, readFile(t, p.Artifacts()[0]))
	assert.Len(t, recs, 4)
	assert.Equal(t, "conv-7", r.Meta().ConversationID)
	assert.Equal(t, int64(80), r.Summary().Budget.Spent)
}

// TestRecordCap: past the cap records are counted, not written, and the
// totals still include them.
func TestRecordCap(t *testing.T) {
	var buf syncBuffer
	p := newProcessor(t, bridge.WithWriter(&buf), bridge.WithRecordCap(3), bridge.WithBudget(10_000))
	tr := provider(t, p)
	for range 5 {
		chat(context.Background(), tr, 10, 5)
	}
	require.NoError(t, p.Shutdown(context.Background()))
	recs, r := readArtifact(t, buf.Bytes())
	assert.Len(t, recs, 3)
	s := r.Summary()
	assert.Equal(t, int64(2), s.Dropped)
	assert.Equal(t, int64(75), s.Tokens.Total)
	assert.Equal(t, int64(75), s.Budget.Spent)
}

// TestRedaction: named keys and secrets never reach the artifact, from
// span, resource or scope attributes.
func TestRedaction(t *testing.T) {
	var buf syncBuffer
	p := newProcessor(t, bridge.WithWriter(&buf), bridge.WithRedactKeys("password"))
	secret := "sk-" + strings.Repeat("Ab3d", 8)
	inResource, inScope := "sk-"+strings.Repeat("Rs7q", 8), "sk-"+strings.Repeat("Sc9w", 8)
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(p),
		sdktrace.WithResource(resource.NewSchemaless(attribute.String("process.command_line", "agent --key "+inResource))))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	tr := tp.Tracer("agenttrace/bridge_test", trace.WithInstrumentationAttributes(attribute.String("note", "built with "+inScope)))
	tool(context.Background(), tr, "login", `{"user":"ada","password":"hunter2","nested":{"password":"x"}}`, `{"token":"`+secret+`"}`, "")
	require.NoError(t, p.Shutdown(context.Background()))
	out := string(buf.Bytes())
	for _, s := range []string{"hunter2", secret, inResource, inScope} {
		assert.NotContains(t, out, s)
	}
	assert.Contains(t, out, "[REDACTED]")
	_, r := readArtifact(t, buf.Bytes())
	assert.True(t, r.Meta().Redacted)
}

// TestFilter keeps only GenAI spans when asked.
func TestFilter(t *testing.T) {
	var buf syncBuffer
	p := newProcessor(t, bridge.WithWriter(&buf), bridge.WithFilter(bridge.GenAIOnly))
	tr := provider(t, p)
	ctx, root := tr.Start(context.Background(), "invoke_agent a", trace.WithAttributes(attribute.String(semconv.OperationName, "invoke_agent")))
	_, http := tr.Start(ctx, "GET")
	http.End()
	chat(ctx, tr, 1, 1)
	root.End()
	require.NoError(t, p.Shutdown(context.Background()))
	recs, _ := readArtifact(t, buf.Bytes())
	require.Len(t, recs, 2)
}

// TestFileStartsAfresh: a recording to a path that holds something other
// than an artifact sets it aside (path.corrupt-<ns>) and starts afresh.
func TestFileStartsAfresh(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.jsonl")
	require.NoError(t, os.WriteFile(path, []byte("old run\n"), 0o644))
	p := newProcessor(t, bridge.WithFile(path))
	chat(context.Background(), provider(t, p), 1, 1)
	require.NoError(t, p.Shutdown(context.Background()))
	recs, _ := readArtifact(t, readFile(t, path))
	assert.Len(t, recs, 1)
}

// TestAppendAcrossProcesses: a second process recording more of the same
// trace into the same folder continues its artifact — one header, a torn
// last line cut off, a trailer counting everything.
func TestAppendAcrossProcesses(t *testing.T) {
	dir := t.TempDir()
	tid := trace.TraceID{0xab, 1, 2, 3}
	parent := trace.ContextWithRemoteSpanContext(context.Background(), trace.NewSpanContext(trace.SpanContextConfig{
		TraceID: tid, SpanID: trace.SpanID{9}, TraceFlags: trace.FlagsSampled, Remote: true,
	}))
	run := func() {
		p, err := bridge.New(bridge.WithDirectory(dir, store.ByTrace))
		require.NoError(t, err)
		tr := provider(t, p)
		ctx, root := tr.Start(parent, "invoke_agent a")
		chat(ctx, tr, 10, 5)
		root.End()
		require.NoError(t, p.Shutdown(context.Background()))
	}
	run()
	path := filepath.Join(dir, tid.String()+".jsonl")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	require.NoError(t, err)
	_, err = f.WriteString(`{"kind":"call","name":"cut sh`) // a crash mid-line
	require.NoError(t, err)
	require.NoError(t, f.Close())
	run()

	data := readFile(t, path)
	assert.Equal(t, 1, strings.Count(string(data), `"kind":"meta"`))
	recs, r := readRecords(t, data)
	assert.Len(t, recs, 4)
	assert.Empty(t, r.Problems(), "the torn line cut off: valid")
	s := r.Summary()
	assert.Equal(t, int64(4), s.Records)
	assert.Equal(t, int64(30), s.Tokens.Total)
}

// TestDropOnlyTraces: in a folder, a trace whose every span was dropped
// from a full queue still gets an artifact at shutdown, with the header
// any artifact of the run has (the budget) and a trailer that counts the
// drop and, with a budget, its tokens and, with a cost budget, its dollars
// (gpt-4o, 2.5 in / 10 out $/MTok: 10 in and 5 out is 75 µ$).
func TestDropOnlyTraces(t *testing.T) {
	const perCall = (10*2.5 + 5*10) / 1e6
	dir := t.TempDir()
	p := newProcessor(t, bridge.WithDirectory(dir, store.ByTrace), bridge.WithQueueSize(1), bridge.WithBatchSize(1), bridge.WithBudget(1000), bridge.WithBudgetUSD(1))
	tr := provider(t, p)
	const n = 200
	for range n {
		chat(context.Background(), tr, 10, 5) // a trace of one span
	}
	require.NoError(t, p.Shutdown(context.Background()))
	if p.Dropped() == 0 {
		t.Skip("the writer kept up with a queue of one: nothing dropped")
	}
	require.Len(t, p.Artifacts(), n, "one artifact per trace, written or dropped")
	var dropped int64
	for _, path := range p.Artifacts() {
		recs, r := readArtifact(t, readFile(t, path))
		require.NotNil(t, r.Meta().Budget, path)
		assert.Equal(t, int64(1000), r.Meta().Budget.Tokens, path)
		s := r.Summary()
		require.NotNil(t, s, path)
		assert.Equal(t, int64(1), int64(len(recs))+s.Dropped, path)
		assert.Equal(t, int64(15), s.Tokens.Total, "%s: written or dropped, its tokens count", path)
		if assert.NotNil(t, s.Budget, path) && assert.NotNil(t, s.Budget.CostBudget, path) {
			assert.InDelta(t, perCall, s.Budget.CostBudget.SpentUSD, 1e-12, "%s: written or dropped, its dollars count", path)
			assert.Zero(t, s.Budget.CostBudget.UnpricedCalls, path)
		}
		dropped += s.Dropped
	}
	assert.Equal(t, p.Dropped(), dropped)
}

// failingWriter fails every write.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

// TestShutdownReportsWriteErrors: a trailer that cannot be written is
// Shutdown's error, not only otel.Handle's.
func TestShutdownReportsWriteErrors(t *testing.T) {
	p, err := bridge.New(bridge.WithWriter(failingWriter{}))
	require.NoError(t, err)
	chat(context.Background(), provider(t, p), 1, 1)
	require.ErrorContains(t, p.Shutdown(context.Background()), "disk full")
}

// TestFileResumes: WithFile continues an artifact already at its path: one
// header, both runs' records, a trailer counting them all.
func TestFileResumes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.jsonl")
	for range 2 {
		p, err := bridge.New(bridge.WithFile(path))
		require.NoError(t, err)
		chat(context.Background(), provider(t, p), 10, 5)
		require.NoError(t, p.Shutdown(context.Background()))
	}
	data := readFile(t, path)
	assert.Equal(t, 1, strings.Count(string(data), `"kind":"meta"`))
	recs, r := readArtifact(t, data)
	assert.Len(t, recs, 2)
	assert.Equal(t, int64(2), r.Summary().Records)
	assert.Equal(t, int64(30), r.Summary().Tokens.Total)
}

// recordErrors makes otel.Handle record errors for the test.
func recordErrors(t *testing.T) func() []error {
	t.Helper()
	var mu sync.Mutex
	var errs []error
	prev := otel.GetErrorHandler()
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
		mu.Lock()
		defer mu.Unlock()
		errs = append(errs, err)
	}))
	t.Cleanup(func() { otel.SetErrorHandler(prev) })
	return func() []error {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(errs)
	}
}

// TestBudgetCallbackPanic: a panicking budget callback is recovered and
// reported through otel.Handle; the agent's span.End() returns and the
// span is still written.
func TestBudgetCallbackPanic(t *testing.T) {
	errs := recordErrors(t)
	var buf syncBuffer
	boom := func(bridge.BudgetEvent) { panic("boom") }
	p := newProcessor(t, bridge.WithWriter(&buf), bridge.WithBudget(10), bridge.WithBudgetCallbacks(boom, boom))
	tr := provider(t, p)
	require.NotPanics(t, func() { chat(context.Background(), tr, 10, 5) })
	require.NoError(t, p.Shutdown(context.Background()))
	recs, _ := readArtifact(t, buf.Bytes())
	assert.Len(t, recs, 1)
	got := errs()
	require.Len(t, got, 2, "near and over")
	for _, err := range got {
		assert.ErrorIs(t, err, bridge.ErrCallbackPanicked)
		assert.ErrorContains(t, err, "boom")
	}
}

// TestFinishedTracesAreFreed: the SDK processor writing one artifact per
// trace forgets a trace once its root span ends (its artifact finalized):
// heap stays flat however many traces went by, large attributes included.
func TestFinishedTracesAreFreed(t *testing.T) {
	if testing.Short() {
		t.Skip("writes thousands of artifacts")
	}
	dir := t.TempDir()
	p := newProcessor(t, bridge.WithDirectory(dir, store.ByTrace), bridge.WithBlocking())
	tr := provider(t, p)
	big := strings.Repeat("x", 8<<10)
	run := func(n int) {
		for range n {
			ctx, root := tr.Start(context.Background(), "invoke_agent a")
			tool(ctx, tr, "fetch", `{"q":1}`, big, "")
			root.End()
		}
		require.NoError(t, p.ForceFlush(context.Background()))
	}
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapInuse
	}
	run(200) // warm up: pools, buffers
	before := heap()
	const traces = 2000
	run(traces)
	after := heap()
	perTrace := (int64(after) - int64(before)) / traces
	t.Logf("%d traces: %d B of heap per finished trace", traces, perTrace)
	assert.Less(t, perTrace, int64(512), "a finished trace leaves (almost) nothing behind")
}

// TestBudgetCountsLeavesNotWrappers: the live budget follows the leaf rule
// of the artifact's tally (docs/format.md §7.1): a model call with a model
// call below it (a framework's chat span around the provider SDK's, an
// embeddings batch around its chunks) spends nothing, whichever ends
// first, and the budget agrees with the trailer.
func TestBudgetCountsLeavesNotWrappers(t *testing.T) {
	usage := func(s trace.Span, op string, in, out int64) {
		s.SetAttributes(attribute.String(semconv.OperationName, op),
			attribute.Int64(semconv.UsageInputTokens, in), attribute.Int64(semconv.UsageOutputTokens, out))
	}
	for _, tt := range []struct {
		name string
		run  func(ctx context.Context, tr trace.Tracer)
		want int64
	}{{
		name: "chat around chat, child ends first",
		run: func(ctx context.Context, tr trace.Tracer) {
			ctx, outer := tr.Start(ctx, "chat framework")
			usage(outer, "chat", 300, 100)
			_, inner := tr.Start(ctx, "chat sdk")
			usage(inner, "chat", 300, 100)
			inner.End()
			outer.End()
		},
		want: 400,
	}, {
		name: "chat around chat, child ends last",
		run: func(ctx context.Context, tr trace.Tracer) {
			ctx, outer := tr.Start(ctx, "chat framework")
			usage(outer, "chat", 300, 100)
			_, inner := tr.Start(ctx, "chat sdk")
			usage(inner, "chat", 300, 100)
			outer.End()
			inner.End()
		},
		want: 400,
	}, {
		name: "embeddings batch around its chunks",
		run: func(ctx context.Context, tr trace.Tracer) {
			ctx, batch := tr.Start(ctx, "embeddings batch")
			usage(batch, "embeddings", 70, 0)
			for range 2 {
				_, chunk := tr.Start(ctx, "embeddings chunk")
				usage(chunk, "embeddings", 35, 0)
				chunk.End()
			}
			batch.End()
		},
		want: 70,
	}, {
		name: "two calls side by side both count",
		run: func(ctx context.Context, tr trace.Tracer) {
			chat(ctx, tr, 300, 100)
			chat(ctx, tr, 30, 10)
		},
		want: 440,
	}} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "run.jsonl")
			p := newProcessor(t, bridge.WithFile(path), bridge.WithBudget(10_000))
			tr := provider(t, p)
			ctx, root := tr.Start(context.Background(), "invoke_agent a")
			root.SetAttributes(attribute.String(semconv.OperationName, "invoke_agent"))
			tt.run(ctx, tr)
			st, ok := p.Status(ctx)
			require.True(t, ok)
			assert.Equal(t, tt.want, st.Spent, "live budget")
			root.End()
			require.NoError(t, p.Shutdown(context.Background()))
			_, r := readArtifact(t, readFile(t, path))
			assert.Equal(t, tt.want, r.Summary().Tokens.Total, "trailer")
		})
	}
}
