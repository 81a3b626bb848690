package bridge_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/agenttrace/agenttrace/bridge"
	"github.com/agenttrace/agenttrace/semconv"
)

// TestBudgetToolOnlyRun: a run of tool calls only, with a token budget.
// The live guard counts what the artifact's trailer counts
// (artifact.Tally.Spent: model usage once any span reports some, else
// the tool calls' estimated tokens), so it refuses the first call after
// the budget is used up, and the trailer says the same spent and over.
// Before, the guard counted model calls only and never refused, while
// the trailer of the same run said OVER BUDGET (issue 26).
//
// The tool spans carry what the seed systems' tool-dispatch traces record
// on a tool call (../shared/seeds/000_*: one record per dispatch with its
// _meta.estimated_tokens, which agenttrace keeps as
// agenttrace.estimated_tokens), or token usage on the tool span, or only
// a result (estimated as its size / 4).
func TestBudgetToolOnlyRun(t *testing.T) {
	const budget = 1000
	cases := []struct {
		name  string
		attrs func(i int) []attribute.KeyValue
		cost  func(i int) int64 // what call i adds, by the rule stated above
	}{{
		name: "estimated_tokens",
		attrs: func(i int) []attribute.KeyValue {
			return []attribute.KeyValue{attribute.Int64(semconv.EstimatedTokens, int64(300+i))}
		},
		cost: func(i int) int64 { return int64(300 + i) },
	}, {
		name: "usage on the tool span",
		attrs: func(int) []attribute.KeyValue {
			return []attribute.KeyValue{attribute.Int64(semconv.UsageInputTokens, 200), attribute.Int64(semconv.UsageOutputTokens, 50)}
		},
		cost: func(int) int64 { return 250 },
	}, {
		name: "result only",
		attrs: func(int) []attribute.KeyValue {
			return []attribute.KeyValue{attribute.String(semconv.ToolCallResult, strings.Repeat("x", 1598))}
		},
		cost: func(int) int64 { return (1598 + 3) / 4 },
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// The call the guard must refuse: the first after the sum of
			// the calls before it reaches the budget.
			var sum int64
			refuse := 0
			for sum < budget {
				sum += tc.cost(refuse)
				refuse++
			}

			path := filepath.Join(t.TempDir(), "run.jsonl")
			p := newProcessor(t, bridge.WithFile(path), bridge.WithBudget(budget))
			tr := provider(t, p)
			ctx, root := tr.Start(context.Background(), "invoke_agent dispatcher")
			refused := -1
			for i := 0; i < refuse+3; i++ {
				if err := p.Guard(ctx); err != nil {
					require.ErrorIs(t, err, bridge.ErrBudgetExceeded)
					refused = i
					break
				}
				_, sp := tr.Start(ctx, "execute_tool search", trace.WithAttributes(
					attribute.String(semconv.OperationName, "execute_tool"),
					attribute.String(semconv.ToolName, "search"),
				))
				sp.SetAttributes(tc.attrs(i)...)
				sp.End()
			}
			assert.Equal(t, refuse, refused, "the guard refuses the first call after the budget is used up")
			live, ok := p.Status(ctx)
			require.True(t, ok)
			assert.Equal(t, sum, live.Spent)
			assert.True(t, live.OverBudget)
			root.End()
			require.NoError(t, p.Shutdown(context.Background()))

			_, r := readArtifact(t, readFile(t, path))
			b := r.Summary().Budget
			require.NotNil(t, b)
			assert.Equal(t, live.Spent, b.Spent, "the trailer counts what the guard counted")
			assert.True(t, b.OverBudget)
		})
	}
}
