package twotier

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
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

// sender is the SDK's OTLP/gRPC exporter, remembering the spans of every
// batch the gateway acknowledged, and of every batch the exporter gave up
// on (its 10 s timeout passed; the batch span processor then drops it).
type sender struct {
	sdktrace.SpanExporter
	mu      sync.Mutex
	acked   map[string]string // span id -> trace id
	refused map[string]string // span id -> trace id
	n       atomic.Int64
}

func (s *sender) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	err := s.SpanExporter.ExportSpans(ctx, spans)
	into := s.acked
	if err != nil {
		into = s.refused
	}
	s.mu.Lock()
	for _, sp := range spans {
		into[sp.SpanContext().SpanID().String()] = sp.SpanContext().TraceID().String()
	}
	s.mu.Unlock()
	if err == nil {
		s.n.Add(int64(len(spans)))
	}
	return err
}

// sent is what the SDK made of a run.
type sent struct {
	acked, refused map[string]string // span id -> trace id
	generated      int
}

// load sends agent runs from four goroutines through the Go SDK (batch
// span processor, blocking; OTLP/gRPC with quick retries for two minutes)
// to addr until stop, which flushes and shuts the provider down.
func load(t *testing.T, addr string) (s *sender, stop func() sent) {
	t.Helper()
	ctx := context.Background()
	exp, err := otlptracegrpc.New(ctx, otlptracegrpc.WithEndpoint(addr), otlptracegrpc.WithInsecure(),
		otlptracegrpc.WithRetry(otlptracegrpc.RetryConfig{
			Enabled: true, InitialInterval: 20 * time.Millisecond, MaxInterval: 200 * time.Millisecond, MaxElapsedTime: 2 * time.Minute,
		}))
	require.NoError(t, err)
	s = &sender{SpanExporter: exp, acked: map[string]string{}, refused: map[string]string{}}
	tp := sdktrace.NewTracerProvider(sdktrace.WithResource(resource.NewSchemaless(attribute.String("service.name", "twotier"))),
		sdktrace.WithBatcher(s, sdktrace.WithBlocking(), sdktrace.WithMaxExportBatchSize(256), sdktrace.WithBatchTimeout(10*time.Millisecond)))
	tr := tp.Tracer("agenttrace/twotier")
	done := make(chan struct{})
	var wg sync.WaitGroup
	var generated atomic.Int64
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-done:
					return
				default:
				}
				rctx, root := tr.Start(ctx, "invoke_agent twotier", trace.WithAttributes(
					attribute.String("gen_ai.operation.name", "invoke_agent"), attribute.String("gen_ai.agent.name", "twotier")))
				for range spansPerTrace - 1 {
					_, chat := tr.Start(rctx, "chat gpt-4o", trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(
						attribute.String("gen_ai.operation.name", "chat"), attribute.String("gen_ai.request.model", "gpt-4o"),
						attribute.Int64("gen_ai.usage.input_tokens", inputPerTrace/(spansPerTrace-1)),
						attribute.Int64("gen_ai.usage.output_tokens", outPerTrace/(spansPerTrace-1))))
					chat.End()
				}
				root.End()
				generated.Add(spansPerTrace)
			}
		})
	}
	return s, func() sent {
		close(done)
		wg.Wait()
		require.NoError(t, tp.Shutdown(ctx), "the SDK flushed")
		s.mu.Lock()
		defer s.mu.Unlock()
		return sent{acked: s.acked, refused: s.refused, generated: int(generated.Load())}
	}
}

// outcome is what the artifacts of both collectors hold after a run.
type outcome struct {
	generated, acked, refused int
	written, lost, dup        int
	refusedWritten            int    // of the refused spans, in artifacts all the same
	traces                    int    // trace ids with an artifact
	perCollector              [2]int // artifacts in each folder
	split                     int    // traces with an artifact in both folders
	partial                   int    // artifacts missing spans (given up by the SDK, or lost)
}

func (o outcome) String() string {
	return fmt.Sprintf("%d spans generated, %d acknowledged, %d given up by the SDK (%d of them written all the same), %d in artifacts, %d acknowledged lost, %d duplicated; %d traces: %d + %d artifacts in the two folders, %d traces split, %d partial artifacts",
		o.generated, o.acked, o.refused, o.refusedWritten, o.written, o.lost, o.dup, o.traces, o.perCollector[0], o.perCollector[1], o.split, o.partial)
}

// check reads every artifact of both folders after a clean stop: each is
// valid (every line JSON, a header first, a trailer last counting the
// file, tokens and all; a whole trace has its three calls' tokens), a
// trace has an artifact in one folder only, no span is written twice,
// and every acknowledged span is in its trace's artifact. A trace the SDK
// gave up some spans of may be partial; every other trace is whole.
func check(t *testing.T, dirs []string, s sent) outcome {
	t.Helper()
	o := outcome{generated: s.generated, acked: len(s.acked), refused: len(s.refused)}
	partial := map[string]bool{} // trace ids with spans given up
	for _, traceID := range s.refused {
		partial[traceID] = true
	}
	where := map[string]string{} // span id -> folder/file
	folders := map[string]int{}  // trace id -> folders holding it
	for i, dir := range dirs {
		ents, err := os.ReadDir(dir)
		require.NoError(t, err)
		for _, e := range ents {
			name := filepath.Join(dir, e.Name())
			if !strings.HasSuffix(e.Name(), ".jsonl") {
				t.Errorf("not an artifact: %s", name)
				continue
			}
			o.perCollector[i]++
			traceID := strings.TrimSuffix(e.Name(), ".jsonl")
			folders[traceID]++
			ids := checkArtifact(t, name, !partial[traceID])
			if len(ids) < spansPerTrace {
				o.partial++
			}
			for _, id := range ids {
				if prev, dup := where[id]; dup {
					o.dup++
					t.Errorf("span %s in %s and %s", id, prev, name)
				}
				where[id] = name
			}
		}
	}
	o.traces = len(folders)
	for id, n := range folders {
		if n > 1 {
			o.split++
			t.Errorf("trace %s has an artifact in both folders", id)
		}
	}
	o.written = len(where)
	for id := range s.refused {
		if where[id] != "" {
			o.refusedWritten++
		}
	}
	for id, traceID := range s.acked {
		f, ok := where[id]
		if !ok {
			o.lost++
			continue
		}
		assert.Equal(t, traceID+".jsonl", filepath.Base(f), "span %s in its trace's artifact", id)
	}
	return o
}

// checkArtifact checks one artifact, whole or not, and returns its span
// ids.
func checkArtifact(t *testing.T, path string, whole bool) []string {
	t.Helper()
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	lines := bytes.Split(bytes.TrimSuffix(raw, []byte("\n")), []byte("\n"))
	var kinds []string
	for _, line := range lines {
		var l struct {
			Kind string `json:"kind"`
		}
		if !assert.NoError(t, json.Unmarshal(line, &l), "%s: %s", path, line) {
			return nil
		}
		kinds = append(kinds, l.Kind)
	}
	assert.Equal(t, "meta", kinds[0], "%s: a header first", path)
	assert.Equal(t, "summary", kinds[len(kinds)-1], "%s: a trailer last", path)
	r := converter.NewReader(bytes.NewReader(raw), converter.WithSource(path))
	var ids []string
	var tally converter.Tally
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err, path)
		tally.Add(rec)
		ids = append(ids, rec.Span.SpanID().String())
	}
	for _, p := range r.Problems() {
		t.Errorf("%s: %v", path, p)
	}
	sum := r.Summary()
	if assert.NotNil(t, sum, "%s: trailer", path) {
		assert.Equal(t, int64(len(ids)), sum.Records, "%s: the trailer counts the file", path)
		assert.Equal(t, tally.Summary(nil).Tokens, sum.Tokens, "%s: the trailer's tokens are the file's", path)
		// A whole trace is in its one artifact: four spans and the
		// tokens of its three calls.
		if whole {
			assert.Len(t, ids, spansPerTrace, "%s: a whole trace", path)
			assert.Equal(t, [2]int64{inputPerTrace, outPerTrace}, [2]int64{sum.Tokens.Input, sum.Tokens.Output}, "%s: a whole trace's tokens", path)
		}
	}
	return ids
}

// spanIDs counts the span ids of the complete record lines in dirs
// (artifacts may be mid-write).
func spanIDs(dirs []string) map[string]int {
	ids := map[string]int{}
	for _, dir := range dirs {
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			b, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				continue
			}
			b = b[:bytes.LastIndexByte(b, '\n')+1]
			sc := bufio.NewScanner(bytes.NewReader(b))
			sc.Buffer(nil, 16<<20)
			for sc.Scan() {
				var l struct {
					Kind   string `json:"kind"`
					SpanID string `json:"span_id"`
				}
				if json.Unmarshal(sc.Bytes(), &l) == nil && l.SpanID != "" && l.Kind != "meta" && l.Kind != "summary" {
					ids[l.SpanID]++
				}
			}
		}
	}
	return ids
}

// freePort returns a loopback address nothing listens on now.
func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return l.Addr().String()
}

// await polls cond until it holds, failing the test after timeout.
func await(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	if !poll(timeout, cond) {
		t.Fatalf("timed out after %v waiting for %s", timeout, what)
	}
}

// poll polls cond until it holds (true) or timeout passes (false).
func poll(timeout time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		<-tick.C
	}
	return true
}
