//go:build linux

package bridge_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/bridge"
	"github.com/agenttrace/agenttrace/internal/tmpfs"
	"github.com/agenttrace/agenttrace/semconv"
	"github.com/agenttrace/agenttrace/store"
)

// endedTrace is what the agent ended of one run: its span ids and the
// model usage of its chat spans.
type endedTrace struct {
	spans         map[string]bool
	input, output int64
	recovered     bool // started after space was freed
}

// fullDiskRun is one agent run: invoke_agent over two chat calls and a
// tool call whose 1 KiB result fills the disk sooner.
func fullDiskRun(tr trace.Tracer, result string) (string, *endedTrace) {
	ended := &endedTrace{spans: map[string]bool{}}
	end := func(sp trace.Span) {
		sp.End()
		ended.spans[sp.SpanContext().SpanID().String()] = true
	}
	ctx, root := tr.Start(context.Background(), "invoke_agent planner", trace.WithAttributes(
		attribute.String(semconv.OperationName, "invoke_agent"), attribute.String(semconv.AgentName, "planner")))
	for i := range 2 {
		_, sp := tr.Start(ctx, "chat gpt-4o", trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(
			attribute.String(semconv.OperationName, "chat"),
			attribute.String(semconv.ProviderName, "openai"),
			attribute.String(semconv.RequestModel, "gpt-4o"),
			attribute.Int64(semconv.UsageInputTokens, int64(100+i)),
			attribute.Int64(semconv.UsageOutputTokens, int64(20+i))))
		end(sp)
		ended.input += int64(100 + i)
		ended.output += int64(20 + i)
	}
	_, sp := tr.Start(ctx, "execute_tool fetch", trace.WithAttributes(
		attribute.String(semconv.OperationName, "execute_tool"),
		attribute.String(semconv.ToolName, "fetch"),
		attribute.String(semconv.ToolCallArguments, `{"url":"https://example.com"}`),
		attribute.String(semconv.ToolCallResult, result)))
	end(sp)
	end(root)
	return root.SpanContext().TraceID().String(), ended
}

// TestFullDiskUnderTheProcessor: the SDK processor writes one artifact
// per trace to a small tmpfs that fills up while the agent keeps running;
// then space is freed and the agent runs on; then it shuts down. The
// processor has no retry, so a span whose write failed is lost, but never
// silently: afterwards every line of every artifact is one JSON value (no
// glued lines) and the file reads without a problem, every trailer counts
// its file's records and, in its tokens, the file's usage plus that of
// the spans it says were dropped, every ended span is either in its
// trace's artifact or counted in that artifact's trailer, and nothing
// ended after space was freed is lost.
func TestFullDiskUnderTheProcessor(t *testing.T) {
	if testing.Short() {
		t.Skip("fills a tmpfs")
	}
	disk := tmpfs.Mount(t, 8<<20)
	dir := filepath.Join(disk, "runs")
	require.NoError(t, os.Mkdir(dir, 0o755))
	ballast := tmpfs.Fill(t, disk, 256<<10)
	errs := recordErrors(t)
	noSpace := func() int { return countNoSpace(errs()) }

	p, err := bridge.New(bridge.WithDirectory(dir, store.ByTrace), bridge.WithBlocking(), bridge.WithBatchTimeout(5*time.Millisecond))
	require.NoError(t, err)
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(p))
	tr := tp.Tracer("agenttrace/fulldisk")
	ctx := context.Background()
	result := strings.Repeat("r", 1<<10)
	ended := map[string]*endedTrace{}
	runs := func(n int, recovered bool) {
		for range n {
			id, e := fullDiskRun(tr, result)
			e.recovered = recovered
			ended[id] = e
		}
		require.NoError(t, p.ForceFlush(ctx))
	}

	// Until writes fail, then as many runs again on the full disk.
	deadline := time.Now().Add(time.Minute)
	for noSpace() == 0 {
		require.True(t, time.Now().Before(deadline), "the disk never filled: %d bytes free", tmpfs.FreeBytes(t, disk))
		runs(10, false)
	}
	beforeFull := len(ended)
	runs(300, false)
	failedWrites := noSpace()
	freeWhileFull := tmpfs.FreeBytes(t, disk)

	require.NoError(t, os.Remove(ballast))
	runs(400, true)
	require.NoError(t, tp.Shutdown(ctx), "with space again every trailer is written")

	// Read every artifact back.
	type artifactRead struct {
		spans   map[string]bool
		summary *artifact.Summary
		file    artifact.Tokens
	}
	arts := map[string]*artifactRead{}
	where := map[string]string{}
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range ents {
		name := e.Name()
		require.True(t, strings.HasSuffix(name, ".jsonl"), "only artifacts in the folder: %s", name)
		raw := readFile(t, filepath.Join(dir, name))
		require.NotEmpty(t, raw, "%s: an empty artifact", name)
		require.True(t, bytes.HasSuffix(raw, []byte("\n")), "%s: ends with a complete line", name)
		for i, line := range bytes.Split(bytes.TrimSuffix(raw, []byte("\n")), []byte("\n")) {
			require.True(t, json.Valid(line), "%s:%d: one JSON value per line (no glued or torn line): %.200s", name, i+1, line)
		}
		r := artifact.NewReader(bytes.NewReader(raw), artifact.WithSource(name))
		a := &artifactRead{spans: map[string]bool{}}
		var tally artifact.Tally
		for {
			rec, err := r.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			require.NoError(t, err)
			id := rec.Span.SpanID().String()
			prev, dup := where[id]
			require.False(t, dup, "span %s in %s and %s", id, prev, name)
			where[id] = name
			a.spans[id] = true
			assert.Equal(t, rec.Span.TraceID().String()+".jsonl", name, "span %s in its trace's artifact", id)
			tally.Add(rec)
		}
		require.Empty(t, r.Problems(), "%s reads as valid", name)
		require.NotNil(t, r.Summary(), "%s: a trailer", name)
		a.summary, a.file = r.Summary(), tally.Summary(nil).Tokens
		assert.Equal(t, int64(len(a.spans)), a.summary.Records, "%s: the trailer counts the file's records", name)
		arts[strings.TrimSuffix(name, ".jsonl")] = a
	}

	var written, dropped, recoveredSpans, partial, withDrops int
	for id, e := range ended {
		a := arts[id]
		if !assert.NotNil(t, a, "trace %s (recovered %v): no artifact, its %d spans lost silently", id, e.recovered, len(e.spans)) {
			continue
		}
		for sid := range a.spans {
			assert.True(t, e.spans[sid], "%s: span %s was never ended", id, sid)
		}
		lost := int64(len(e.spans) - len(a.spans))
		assert.Equal(t, lost, a.summary.Dropped, "%s: every span not in the file is counted as dropped", id)
		// The usage of a dropped chat span is read as it drops: the
		// trailer's tokens are the run's, the file's plus the dropped's.
		assert.Equal(t, e.input, a.summary.Tokens.Input, "%s: input tokens", id)
		assert.Equal(t, e.output, a.summary.Tokens.Output, "%s: output tokens", id)
		assert.LessOrEqual(t, a.file.Input, a.summary.Tokens.Input, "%s", id)
		if e.recovered {
			assert.Zero(t, lost, "%s: ended after space was freed, nothing lost", id)
			recoveredSpans += len(e.spans)
		}
		if lost > 0 {
			withDrops++
			if len(a.spans) > 0 {
				partial++
			}
		}
		written += len(a.spans)
		dropped += int(lost)
	}
	assert.Len(t, arts, len(ended), "one artifact per trace, no other")
	assert.Zero(t, p.Dropped(), "blocking: no queue drops, every loss is a failed write")
	assert.Positive(t, dropped, "the full disk cost spans (else it was not full)")
	t.Logf("full disk under the SDK processor: %d runs (%d before the disk filled, %d ENOSPC errors reported, %d bytes free while full), %d spans ended, %d written, %d dropped and counted in %d trailers' \"dropped\" (%d artifacts partly written), %d spans ended after space was freed all written, %d artifacts",
		len(ended), beforeFull, failedWrites, freeWhileFull, written+dropped, written, dropped, withDrops, partial, recoveredSpans, len(arts))
}

// TestFullDiskSingleArtifact: the same for the one artifact of WithFile,
// the way a tool-dispatch trace records a run: the file fills up, space
// is freed, the run goes on. Every line is one JSON value, the trailer
// counts the file's records, says how many spans were dropped (all the
// others), and its tokens are the run's; nothing ended after space was
// freed is lost.
func TestFullDiskSingleArtifact(t *testing.T) {
	if testing.Short() {
		t.Skip("fills a tmpfs")
	}
	disk := tmpfs.Mount(t, 4<<20)
	path := filepath.Join(disk, "run.jsonl")
	ballast := tmpfs.Fill(t, disk, 64<<10)
	errs := recordErrors(t)

	p, err := bridge.New(bridge.WithFile(path), bridge.WithBlocking(), bridge.WithBatchTimeout(5*time.Millisecond))
	require.NoError(t, err)
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(p))
	tr := tp.Tracer("agenttrace/fulldisk")
	ctx := context.Background()
	result := strings.Repeat("r", 1<<10)
	var ended, input, output int64
	var after map[string]bool
	runs := func(n int) {
		for range n {
			_, e := fullDiskRun(tr, result)
			ended += int64(len(e.spans))
			input, output = input+e.input, output+e.output
			for id := range e.spans {
				if after != nil {
					after[id] = true
				}
			}
		}
		require.NoError(t, p.ForceFlush(ctx))
	}
	deadline := time.Now().Add(time.Minute)
	for countNoSpace(errs()) == 0 {
		require.True(t, time.Now().Before(deadline), "the disk never filled: %d bytes free", tmpfs.FreeBytes(t, disk))
		runs(10)
	}
	runs(100)
	require.NoError(t, os.Remove(ballast))
	after = map[string]bool{}
	runs(100)
	require.NoError(t, tp.Shutdown(ctx), "with space again the trailer is written")

	raw := readFile(t, path)
	for i, line := range bytes.Split(bytes.TrimSuffix(raw, []byte("\n")), []byte("\n")) {
		require.True(t, json.Valid(line), "line %d: one JSON value per line (no glued or torn line): %.200s", i+1, line)
	}
	recs, r := readArtifact(t, raw)
	sum := r.Summary()
	require.NotNil(t, sum)
	written := map[string]bool{}
	for _, rec := range recs {
		written[rec.Span.SpanID().String()] = true
	}
	assert.Equal(t, int64(len(recs)), sum.Records, "the trailer counts the file")
	assert.Equal(t, ended-int64(len(recs)), sum.Dropped, "every span not in the file is counted as dropped")
	assert.Positive(t, sum.Dropped, "the full disk cost spans (else it was not full)")
	assert.Equal(t, input, sum.Tokens.Input, "input tokens: the file's and the dropped spans'")
	assert.Equal(t, output, sum.Tokens.Output, "output tokens")
	for id := range after {
		assert.True(t, written[id], "span %s ended after space was freed is in the file", id)
	}
	t.Logf("full disk, one artifact: %d spans ended, %d written, %d dropped and counted in the trailer; %d ended after space was freed, all written; %d ENOSPC reports",
		ended, len(recs), sum.Dropped, len(after), countNoSpace(errs()))
}

// countNoSpace counts the errors that say the disk was full.
func countNoSpace(errs []error) int {
	n := 0
	for _, err := range errs {
		if errors.Is(err, syscall.ENOSPC) {
			n++
		}
	}
	return n
}
