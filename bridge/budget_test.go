package bridge

import (
	"context"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/agenttrace/agenttrace/semconv"
)

// TestBudgetsForgetEndedTraces: once a trace's root has ended, the
// budgets keep nothing for it, per trace or per conversation (where the
// conversation's own budget stays).
func TestBudgetsForgetEndedTraces(t *testing.T) {
	for _, scope := range []Scope{PerTrace, PerConversation} {
		rec := tracetest.NewSpanRecorder()
		tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
		tr := tp.Tracer("test")
		conv := attribute.String(semconv.ConversationID, "c1")
		for range 3 {
			ctx, root := tr.Start(context.Background(), "invoke_agent a")
			root.SetAttributes(attribute.String(semconv.OperationName, "invoke_agent"), conv)
			_, chat := tr.Start(ctx, "chat m")
			chat.SetAttributes(attribute.String(semconv.OperationName, "chat"), conv,
				attribute.Int64(semconv.UsageInputTokens, 10), attribute.Int64(semconv.UsageOutputTokens, 5))
			chat.End()
			root.End()
		}
		cfg, err := newConfig([]Option{WithWriter(nil), WithBudget(1000), WithBudgetScope(scope)})
		if err != nil {
			t.Fatal(err)
		}
		b := newBudgets(&cfg)
		for _, s := range rec.Ended() {
			b.spend(s)
		}
		if n := len(b.byTrace); n != 0 {
			t.Errorf("scope %d: %d traces remembered after their roots ended", scope, n)
		}
		if scope == PerConversation && b.byConv["c1"].spent.Load() != 45 {
			t.Errorf("the conversation spent %d, want 45", b.byConv["c1"].spent.Load())
		}
	}
}
