package bridge_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/bridge"
	"github.com/agenttrace/agenttrace/store"
)

// One line in the tracer provider records every run; the agent asks the
// budget before each model call and stops when it is used up.
func Example() {
	dir, _ := os.MkdirTemp("", "agenttrace-example")
	defer os.RemoveAll(dir)

	p, err := bridge.New(bridge.WithDirectory(dir, store.ByTrace), bridge.WithBudget(1000))
	if err != nil {
		panic(err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(p)) // the one line
	tracer := tp.Tracer("example.com/agent")

	ctx, agent := tracer.Start(context.Background(), "invoke_agent planner")
	agent.SetAttributes(attribute.String("gen_ai.operation.name", "invoke_agent"))
	for turn := 0; ; turn++ {
		if err := p.Guard(ctx); errors.Is(err, bridge.ErrBudgetExceeded) {
			fmt.Println("stopping after", turn, "model calls")
			break
		}
		_, chat := tracer.Start(ctx, "chat gpt-4o")
		chat.SetAttributes(
			attribute.String("gen_ai.operation.name", "chat"),
			attribute.Int("gen_ai.usage.input_tokens", 300),
			attribute.Int("gen_ai.usage.output_tokens", 100),
		)
		chat.End()
	}
	agent.End()
	_ = tp.Shutdown(context.Background()) // writes the trailer

	f, _ := os.Open(p.Artifacts()[0])
	defer f.Close()
	r := artifact.NewReader(f)
	for {
		if _, err := r.Next(); errors.Is(err, io.EOF) {
			break
		}
	}
	b := r.Summary().Budget
	fmt.Printf("%d records; spent %d of %d tokens; over budget: %v\n", r.Summary().Records, b.Spent, b.BudgetTokens, b.OverBudget)
	// Output:
	// stopping after 3 model calls
	// 4 records; spent 1200 of 1000 tokens; over budget: true
}
