package agenttraceexporter

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/config/configoptional"
	"go.opentelemetry.io/collector/exporter/exporterhelper"
	"go.opentelemetry.io/collector/exporter/exportertest"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/bridge"
	"github.com/agenttrace/agenttrace/converter/sdkspan"
	"github.com/agenttrace/agenttrace/internal/clibuild"
	"github.com/agenttrace/agenttrace/semconv"
	"github.com/agenttrace/agenttrace/store"
)

// TestAdaptersAgree pins the behaviours the three writers of artifacts
// once disagreed on, by running the SDK processor (bridge), this exporter
// (through its factory) and convert --split on the same spans, in the
// same batches, and asserting the same files with the same header,
// records and final trailer:
//
//   - a trace whose conversation id appears only in its second batch is
//     one file, the conversation's (its first records are folded in);
//   - a conversation's file is conv-<store.Name(id)>.jsonl;
//   - the header's budget is a local root's agenttrace.budget.tokens, else
//     the resource's, else the configured one;
//   - the header names the trace of a trace's artifact, the conversation
//     of a conversation's, and starts at the earliest start of the records
//     it was made from.
func TestAdaptersAgree(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the CLI")
	}
	cli := clibuild.Path(t)
	const conv = "Conv/1" // not a plain name: hashed
	tests := []struct {
		name  string
		by    store.Route
		group string
		files func(a, b, c trace.TraceID) []string
	}{
		{"by trace", store.ByTrace, GroupByTrace, func(a, b, c trace.TraceID) []string {
			return []string{a.String() + ".jsonl", b.String() + ".jsonl", c.String() + ".jsonl"}
		}},
		{"by conversation", store.ByConversation, GroupByConversation, func(_, _, c trace.TraceID) []string {
			return []string{store.FileName(store.ConversationKey(conv), ""), c.String() + ".jsonl"}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bridgeDir, exporterDir, cliDir := t.TempDir(), t.TempDir(), t.TempDir()
			batches, ids := record(t, bridgeDir, tt.by, conv)

			exportBatches(t, exporterDir, tt.group, batches)

			var all []artifact.Record
			for _, td := range batches {
				all = append(all, artifact.Records(td)...)
			}
			raw, err := (&ptrace.JSONMarshaler{}).MarshalTraces(artifact.ToTraces(all))
			require.NoError(t, err)
			in := filepath.Join(t.TempDir(), "in.json")
			require.NoError(t, os.WriteFile(in, raw, 0o644))
			by := "trace"
			if tt.by == store.ByConversation {
				by = "conversation"
			}
			out, err := exec.Command(cli, "convert", in, "--split", cliDir, "--group-by", by).CombinedOutput()
			require.NoError(t, err, "%s", out)

			want := tt.files(ids[0], ids[1], ids[2])
			slices.Sort(want)
			for name, dir := range map[string]string{"bridge": bridgeDir, "exporter": exporterDir, "convert": cliDir} {
				assert.Equal(t, want, names(t, dir), "%s: files", name)
			}
			for _, f := range want {
				b := readWhole(t, filepath.Join(bridgeDir, f))
				assert.Equal(t, b, readWhole(t, filepath.Join(exporterDir, f)), "%s: exporter and bridge", f)
				assert.Equal(t, b, readWhole(t, filepath.Join(cliDir, f)), "%s: convert and bridge", f)
			}
			c := readWhole(t, filepath.Join(cliDir, ids[2].String()+".jsonl"))
			assert.Equal(t, int64(20), c.meta.Budget.Tokens, "a root span's budget first")
			if tt.by == store.ByConversation {
				conv := readWhole(t, filepath.Join(cliDir, store.FileName(store.ConversationKey(conv), "")))
				assert.Equal(t, int64(500), conv.meta.Budget.Tokens, "the resource's budget over the configured one")
				assert.Len(t, conv.records, 5, "the trace that named its conversation late is in it, whole")
			}
		})
	}
}

// record runs three traces through the real SDK with the bridge writing
// into dir, and returns the spans as the bridge got them, batch by batch,
// and the trace ids. Trace a names its conversation only in its second
// batch; b names it from the start; c names none and its root span sets a
// budget.
func record(t *testing.T, dir string, by store.Route, conv string) ([]ptrace.Traces, [3]trace.TraceID) {
	t.Helper()
	p, err := bridge.New(bridge.WithDirectory(dir, by), bridge.WithBudget(1000))
	require.NoError(t, err)
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec), sdktrace.WithSpanProcessor(p),
		sdktrace.WithResource(resource.NewSchemaless(
			attribute.String("service.name", "agent"), attribute.Int64(semconv.BudgetTokens, 500))))
	tr := tp.Tracer("agenttrace/adapters_test")
	t0 := time.Date(2026, 5, 4, 14, 0, 0, 0, time.UTC)
	at := func(s int) trace.SpanStartEventOption {
		return trace.WithTimestamp(t0.Add(time.Duration(s) * time.Second))
	}
	chat := func(ctx context.Context, start int, extra ...attribute.KeyValue) {
		_, sp := tr.Start(ctx, "chat m", at(start))
		sp.SetAttributes(append([]attribute.KeyValue{
			attribute.String(semconv.OperationName, "chat"), attribute.String(semconv.RequestModel, "m"),
			attribute.Int64(semconv.UsageInputTokens, 10), attribute.Int64(semconv.UsageOutputTokens, 5),
		}, extra...)...)
		sp.End(trace.WithTimestamp(t0.Add(time.Duration(start+1) * time.Second)))
	}
	convAttr := attribute.String(semconv.ConversationID, conv)
	var ids [3]trace.TraceID

	// Batch 1: a starts, names no conversation yet; c runs whole.
	ctxA, rootA := tr.Start(context.Background(), "invoke_agent a", at(0))
	ids[0] = rootA.SpanContext().TraceID()
	chat(ctxA, 0)
	ctxC, rootC := tr.Start(context.Background(), "invoke_agent c", at(1), trace.WithAttributes(attribute.Int64(semconv.BudgetTokens, 20)))
	ids[2] = rootC.SpanContext().TraceID()
	chat(ctxC, 1)
	rootC.End(trace.WithTimestamp(t0.Add(10 * time.Second)))
	require.NoError(t, p.ForceFlush(context.Background()))
	first := len(rec.Ended())

	// Batch 2: a names its conversation; b runs in it.
	chat(ctxA, 2, convAttr)
	rootA.End(trace.WithTimestamp(t0.Add(20 * time.Second)))
	ctxB, rootB := tr.Start(context.Background(), "invoke_agent b", at(3), trace.WithAttributes(convAttr))
	ids[1] = rootB.SpanContext().TraceID()
	chat(ctxB, 3, convAttr)
	rootB.End(trace.WithTimestamp(t0.Add(30 * time.Second)))
	require.NoError(t, tp.Shutdown(context.Background()))

	ended := rec.Ended()
	return []ptrace.Traces{sdkspan.ToTraces(ended[:first]), sdkspan.ToTraces(ended[first:])}, ids
}

// exportBatches sends the batches, in order, through an exporter made by
// the factory (no queue, so the order holds), and shuts it down.
func exportBatches(t *testing.T, dir, groupBy string, batches []ptrace.Traces) {
	t.Helper()
	f := NewFactory()
	cfg := f.CreateDefaultConfig().(*Config)
	cfg.Directory, cfg.GroupBy = dir, groupBy
	cfg.Budget.Tokens = 1000
	cfg.QueueConfig = configoptional.None[exporterhelper.QueueBatchConfig]()
	exp, err := f.CreateTraces(context.Background(), exportertest.NewNopSettings(typ), cfg)
	require.NoError(t, err)
	require.NoError(t, exp.Start(context.Background(), componenttest.NewNopHost()))
	for _, td := range batches {
		cp := ptrace.NewTraces()
		td.CopyTo(cp)
		require.NoError(t, exp.ConsumeTraces(context.Background(), cp))
	}
	require.NoError(t, exp.Shutdown(context.Background()))
}

// whole is what the table compares of an artifact: its header, its
// record lines (as a set: batches may order them differently) and its
// last trailer.
type whole struct {
	meta    *artifact.Meta
	records []string
	summary *artifact.Summary
}

func readWhole(t *testing.T, path string) whole {
	t.Helper()
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	r := artifact.NewReader(bytes.NewReader(raw), artifact.WithSource(path))
	for {
		_, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
	}
	require.Empty(t, r.Problems(), path)
	require.Equal(t, 1, strings.Count(string(raw), `"kind":"meta"`), path)
	var w whole
	w.meta, w.summary = r.Meta(), r.Summary()
	require.NotNil(t, w.summary, "%s has a trailer", path)
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		if !strings.Contains(line, `"kind":"meta"`) && !strings.Contains(line, `"kind":"summary"`) {
			w.records = append(w.records, line)
		}
	}
	slices.Sort(w.records)
	return w
}

func names(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	slices.Sort(out)
	return out
}
