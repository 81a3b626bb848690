//go:build linux

package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/agenttrace/agenttrace/converter"
)

// steadyRate is the load of TestGroupByResourceRSS, in spans a second:
// the rate at which issue 13 measured the growth.
const steadyRate = 10_000

// startSteadyLoad is startLoad at a steady rate: four goroutines each
// send an agent run (invoke_agent over three chat calls, service
// "kill-nine") every 4×4/rate seconds, on a schedule, so the rate holds
// whatever the collector's speed (a late run is sent at once, not
// skipped).
func startSteadyLoad(t *testing.T, grpcAddr string, rate int) (exp *ackExporter, started func() int64, stop func()) {
	t.Helper()
	ctx := context.Background()
	inner, err := otlptracegrpc.New(ctx, otlptracegrpc.WithEndpoint(grpcAddr), otlptracegrpc.WithInsecure(),
		otlptracegrpc.WithRetry(otlptracegrpc.RetryConfig{
			Enabled: true, InitialInterval: 20 * time.Millisecond, MaxInterval: 200 * time.Millisecond, MaxElapsedTime: 2 * time.Minute,
		}))
	require.NoError(t, err)
	exp = &ackExporter{SpanExporter: inner, acked: map[string]string{}}
	res := resource.NewSchemaless(attribute.String("service.name", "kill-nine"))
	tp := sdktrace.NewTracerProvider(sdktrace.WithResource(res),
		sdktrace.WithBatcher(exp, sdktrace.WithBlocking(), sdktrace.WithMaxExportBatchSize(256), sdktrace.WithBatchTimeout(10*time.Millisecond)))
	tr := tp.Tracer("agenttrace/steady")
	const workers, spansPerRun = 4, 4
	every := time.Duration(workers * spansPerRun * int(time.Second) / rate)
	done := make(chan struct{})
	var wg sync.WaitGroup
	var n atomic.Int64
	for range workers {
		wg.Go(func() {
			next := time.Now()
			for {
				select {
				case <-done:
					return
				case <-time.After(time.Until(next)):
				}
				next = next.Add(every)
				rctx, root := tr.Start(ctx, "invoke_agent steady", trace.WithAttributes(
					attribute.String("gen_ai.operation.name", "invoke_agent"), attribute.String("gen_ai.agent.name", "steady")))
				for range spansPerRun - 1 {
					_, chat := tr.Start(rctx, "chat gpt-4o", trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(
						attribute.String("gen_ai.operation.name", "chat"), attribute.String("gen_ai.request.model", "gpt-4o"),
						attribute.Int64("gen_ai.usage.input_tokens", 100), attribute.Int64("gen_ai.usage.output_tokens", 20)))
					chat.End()
				}
				root.End()
				n.Add(spansPerRun)
			}
		})
	}
	return exp, n.Load, func() {
		close(done)
		wg.Wait()
		require.NoError(t, tp.Shutdown(ctx), "every span exported")
	}
}

// rssBytes reads the resident set size of process pid from /proc.
func rssBytes(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10, err
		}
	}
	return 0, fmt.Errorf("/proc/%d/status: no VmRSS", pid)
}

// TestGroupByResourceRSS: the distribution with the shipped config and
// group_by: resource:service.name (rotate_bytes 8 MiB, rotate_after 5s)
// under steady load from the Go SDK (10,000 spans a second, every span of
// one service, so one artifact lives as long as the traffic) for ~8 s
// (AGENTTRACE_LONG=1: 30 s), its RSS read from /proc every second. Before rotation this grew
// ~70 MB a minute at 10k spans/s and the file got no trailer until the
// collector stopped. Now the RSS of the second half does not keep growing
// (the last sample at most 1.2 × the half-way one + 16 MiB), the artifact
// was rotated while traffic went on, and after a clean stop every file
// has a header, a trailer counting its records and tokens, no span is in
// two files, and every acknowledged span is in one.
func TestGroupByResourceRSS(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end: builds and runs the collector")
	}
	duration := 8 * time.Second
	if os.Getenv("AGENTTRACE_LONG") == "1" {
		duration = 30 * time.Second
	}
	bin := buildDistribution(t)
	root := t.TempDir()
	dir := filepath.Join(root, "runs")
	grpcAddr, httpAddr := freePort(t), freePort(t)
	col := startShippedLog(t, bin, dir, dir+".queue", grpcAddr, httpAddr, filepath.Join(root, "collector.log"),
		"--config", "yaml:exporters::agenttrace::group_by: resource:service.name",
		"--config", "yaml:exporters::agenttrace::rotate_bytes: 8388608",
		"--config", "yaml:exporters::agenttrace::rotate_after: 5s")
	pid := col.cmd.Process.Pid

	exp, started, stopLoad := startSteadyLoad(t, grpcAddr, steadyRate)
	await(t, time.Minute, "the first acknowledgements", func() bool { return exp.n.Load() > 0 })
	begin, ackedAtBegin := time.Now(), exp.n.Load()
	var rss []int64
	tick := time.NewTicker(time.Second)
	for range int(duration / time.Second) {
		<-tick.C
		v, err := rssBytes(pid)
		require.NoError(t, err, "the collector is running")
		rss = append(rss, v)
	}
	tick.Stop()
	elapsed, ackedInWindow := time.Since(begin), exp.n.Load()-ackedAtBegin
	stopLoad()
	acked := exp.snapshot()

	drained := poll(time.Minute, func() bool {
		got := scanSpanIDs(dir)
		for id := range acked {
			if got[id] == 0 {
				return false
			}
		}
		return true
	})
	assert.True(t, drained, "every acknowledged span in an artifact within a minute of the last")
	col.stop(t)

	// Every file: a header, a trailer that counts it, spans once.
	seen := map[string]string{}
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	rotated := 0
	for _, e := range ents {
		name := e.Name()
		if !assert.True(t, name == "service.name-kill-nine.jsonl" || strings.HasPrefix(name, "service.name-kill-nine.R") && strings.HasSuffix(name, ".jsonl"), "unexpected file %s", name) {
			continue
		}
		if strings.Contains(name, ".R") {
			rotated++
		}
		art := readArtifact(t, filepath.Join(dir, name))
		if assert.NotEmpty(t, art.kinds, name) {
			assert.Equal(t, "meta", art.kinds[0], "%s: header first", name)
			assert.Equal(t, "summary", art.kinds[len(art.kinds)-1], "%s: a trailer last", name)
			assert.Equal(t, 1, count(art.kinds, "meta"), "%s: one header", name)
		}
		if assert.NotNil(t, art.summary, name) {
			assert.Equal(t, int64(len(art.records)), art.summary.Records, "%s: the trailer counts the file", name)
			var tally converter.Tally
			for i := range art.records {
				tally.Add(&art.records[i])
			}
			assert.Equal(t, tally.Summary(nil).Tokens, art.summary.Tokens, "%s: the trailer's tokens are the file's", name)
		}
		for _, r := range art.records {
			id := r.Span.SpanID().String()
			if prev, dup := seen[id]; dup {
				t.Errorf("span %s in %s and %s", id, prev, name)
			}
			seen[id] = name
		}
	}
	lost := 0
	for id := range acked {
		if _, ok := seen[id]; !ok {
			lost++
		}
	}
	assert.Zero(t, lost, "acknowledged spans lost")
	assert.Positive(t, rotated, "the artifact was rotated while traffic went on")

	half, last := rss[len(rss)/2], rss[len(rss)-1]
	sorted := slices.Clone(rss)
	slices.Sort(sorted)
	t.Logf("group_by resource:service.name for %v: %d spans acknowledged in the window (%.0f spans/s; %d in all, %d generated), %d files (%d rotated), %d lost; RSS min %.0f / median %.0f / max %.0f MiB, half-way %.0f, last %.0f; samples (MiB) %s",
		elapsed.Round(time.Millisecond), ackedInWindow, float64(ackedInWindow)/elapsed.Seconds(), len(acked), started(),
		len(ents), rotated, lost, mib(sorted[0]), mib(sorted[len(sorted)/2]), mib(sorted[len(sorted)-1]), mib(half), mib(last), mibList(rss))
	assert.LessOrEqual(t, last, half*12/10+16<<20, "RSS does not keep growing under steady traffic")
}

func mib(b int64) float64 { return float64(b) / (1 << 20) }

func mibList(v []int64) string {
	var b bytes.Buffer
	for i, x := range v {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%.0f", mib(x))
	}
	return b.String()
}
