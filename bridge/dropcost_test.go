package bridge_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/agenttrace/agenttrace/bridge"
	"github.com/agenttrace/agenttrace/internal/failwriter"
	"github.com/agenttrace/agenttrace/semconv"
)

// TestDroppedCallsCost: a model call dropped before the store wrote it (a
// full queue, with the SDK's own processor calling OnEnd; or a write that
// failed) is in the trailer's spent_usd exactly as if it had been
// written, so the cost budget flips over on it alone; an unpriced one is
// counted in unpriced_calls, never as $0. gpt-4o is 2.5 in / 10 out
// $/MTok: the written call (1 in, 1 out) is 12.5 µ$, the dropped one
// (300 in, 100 out) 750 + 1,000 = 1,750 µ$, over the $0.001 budget.
func TestDroppedCallsCost(t *testing.T) {
	const (
		written = (1*2.5 + 1*10) / 1e6
		dropped = (300*2.5 + 100*10) / 1e6
		budget  = 0.001
	)
	require.Less(t, written, budget)
	for _, tc := range []struct {
		name     string
		fail     bool   // drop by a failed write rather than a full queue
		model    string // of the dropped call
		spent    float64
		over     bool
		unpriced int64
	}{
		{"full queue", false, "gpt-4o", written + dropped, true, 0},
		{"full queue, unpriced model", false, "no-such-model-xyz", written, false, 1},
		{"failed write", true, "gpt-4o", written + dropped, true, 0},
		{"failed write, unpriced model", true, "no-such-model-xyz", written, false, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := []bridge.Option{bridge.WithBudgetUSD(budget), bridge.WithBatchSize(1)}
			var (
				g  *gate
				fw *failwriter.Writer
			)
			if tc.fail {
				fw = failwriter.New(1<<20, nil)
				opts = append(opts, bridge.WithWriter(fw))
			} else {
				g = newGate()
				opts = append(opts, bridge.WithWriter(g), bridge.WithQueueSize(1))
			}
			p := newProcessor(t, opts...)
			tr := provider(t, p)
			ctx, root := tr.Start(context.Background(), "invoke_agent a")
			chat(ctx, tr, 1, 1)
			if tc.fail {
				require.NoError(t, p.ForceFlush(context.Background()))
				fw.SetRoom(0)
			} else {
				<-g.entered                        // the writer holds the first chat
				tool(ctx, tr, "t", "{}", "ok", "") // fills the queue
			}
			_, sp := tr.Start(ctx, "chat dropped", trace.WithSpanKind(trace.SpanKindClient))
			sp.SetAttributes(
				attribute.String(semconv.OperationName, "chat"),
				attribute.String(semconv.ProviderName, "openai"),
				attribute.String(semconv.RequestModel, tc.model),
				attribute.Int64(semconv.UsageInputTokens, 300),
				attribute.Int64(semconv.UsageOutputTokens, 100),
			)
			sp.End()
			var data func() []byte
			if tc.fail {
				require.NoError(t, p.ForceFlush(context.Background()))
				fw.Free(1 << 20)
				data = fw.Bytes
			} else {
				require.Positive(t, p.Dropped(), "the queue was full")
				g.release()
				data = g.Bytes
			}
			root.End()
			require.NoError(t, p.Shutdown(context.Background()))

			recs, r := readArtifact(t, data())
			for _, rec := range recs {
				require.NotEqual(t, "chat dropped", rec.Span.Name(), "the expensive call was dropped")
			}
			sum := r.Summary()
			require.NotNil(t, sum)
			assert.Positive(t, sum.Dropped)
			require.NotNil(t, sum.Budget)
			c := sum.Budget.CostBudget
			require.NotNil(t, c)
			assert.InDelta(t, tc.spent, c.SpentUSD, 1e-12, "spent_usd")
			assert.Equal(t, tc.over, c.OverBudgetUSD, "over_budget_usd")
			assert.Equal(t, tc.unpriced, c.UnpricedCalls, "unpriced_calls")
		})
	}
}
