// Package evalrun writes, for tests, a run whose model calls were judged
// by evaluators: an agent with two chat calls, each followed by
// gen_ai.evaluation.result verdicts (semantic conventions v1.38.0 and
// later), written with the real OpenTelemetry Go SDK (trace and log SDKs)
// through the bridge processor, as an instrumented Go agent writes its
// artifact. The first call's verdicts are span events on the call's span;
// the second's are log records, emitted in the call's context (so linked
// to its span) or outside it (naming the call by its response id only).
// Verdicts lists what was written: the ground truth tests
// compare with.
package evalrun

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/log"
	sdklog "go.opentelemetry.io/otel/sdk/log"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/agenttrace/agenttrace/bridge"
)

// Verdict is one gen_ai.evaluation.result the run carries. Call is the
// index of the chat call it judges (0 or 1); Score is nil for a verdict
// without gen_ai.evaluation.score.value. AsLog tells it was emitted as a
// log record rather than as a span event; ByResponse that the record was
// emitted outside the call's context, so it names the judged call by its
// gen_ai.response.id only (the conventions' fallback).
type Verdict struct {
	Call        int
	Name        string
	Score       *float64
	Label       string
	Explanation string
	AsLog       bool
	ByResponse  bool
}

func score(v float64) *float64 { return &v }

// Verdicts are the run's evaluation results, in emission order.
var Verdicts = []Verdict{
	{Call: 0, Name: "relevance", Score: score(0.9), Label: "relevant", Explanation: "The answer asks for the city the weather is wanted for."},
	{Call: 0, Name: "toxicity", Label: "pass"},
	{Call: 1, Name: "relevance", Score: score(0.4), Label: "partially relevant", Explanation: "Answers the weather but not the umbrella question.", AsLog: true},
	{Call: 1, Name: "faithfulness", Score: score(1), Label: "faithful", AsLog: true},
	{Call: 1, Name: "helpfulness", Score: score(0.75), AsLog: true, ByResponse: true},
}

// Answers are the chat calls' answers (gen_ai.output.messages text).
var Answers = []string{"Which city?", "It is 18 degrees Celsius and sunny in Paris today."}

// Service is the run's service name.
const Service = "eval-demo"

// Write writes the run as one artifact, dir/run.jsonl, and returns its
// path.
func Write(dir string) (string, error) {
	path := filepath.Join(dir, "run.jsonl")
	p, err := bridge.New(bridge.WithFile(path))
	if err != nil {
		return "", fmt.Errorf("evalrun: %w", err)
	}
	res := resource.NewSchemaless(attribute.String("service.name", Service))
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(p), sdktrace.WithResource(res))
	lp := sdklog.NewLoggerProvider(sdklog.WithProcessor(p.LogProcessor()), sdklog.WithResource(res))
	tracer := tp.Tracer("github.com/agenttrace/agenttrace/internal/evalrun")
	logger := lp.Logger("github.com/agenttrace/agenttrace/internal/evalrun/judge")

	start := time.Date(2026, 6, 1, 10, 0, 0, 0, time.UTC)
	ctx, agent := tracer.Start(context.Background(), "invoke_agent weather", trace.WithTimestamp(start))
	agent.SetAttributes(attribute.String("gen_ai.operation.name", "invoke_agent"), attribute.String("gen_ai.agent.name", "weather"))
	prompts := []string{"What is the weather?", "Paris. Do I need an umbrella?"}
	var history []string
	for i, answer := range Answers {
		t0 := start.Add(time.Duration(i+1) * time.Second)
		cctx, chat := tracer.Start(ctx, "chat gpt-4o-mini", trace.WithTimestamp(t0))
		history = append(history, fmt.Sprintf(`{"role":"user","parts":[{"type":"text","content":%q}]}`, prompts[i]))
		chat.SetAttributes(
			attribute.String("gen_ai.operation.name", "chat"), attribute.String("gen_ai.provider.name", "openai"),
			attribute.String("gen_ai.request.model", "gpt-4o-mini"), attribute.String("gen_ai.response.id", fmt.Sprintf("chatcmpl-%d", i)),
			attribute.Int("gen_ai.usage.input_tokens", 40+20*i), attribute.Int("gen_ai.usage.output_tokens", 8+4*i),
			attribute.String("gen_ai.input.messages", "["+strings.Join(history, ",")+"]"),
			attribute.String("gen_ai.output.messages", fmt.Sprintf(`[{"role":"assistant","parts":[{"type":"text","content":%q}],"finish_reason":"stop"}]`, answer)),
		)
		history = append(history, fmt.Sprintf(`{"role":"assistant","parts":[{"type":"text","content":%q}]}`, answer))
		for _, v := range Verdicts {
			if v.Call != i {
				continue
			}
			attrs := verdictAttrs(v, fmt.Sprintf("chatcmpl-%d", i))
			switch {
			case v.ByResponse:
				emit(context.Background(), logger, t0.Add(650*time.Millisecond), attrs)
			case v.AsLog:
				emit(cctx, logger, t0.Add(600*time.Millisecond), attrs)
			default:
				chat.AddEvent("gen_ai.evaluation.result", trace.WithTimestamp(t0.Add(600*time.Millisecond)), trace.WithAttributes(attrs...))
			}
		}
		chat.End(trace.WithTimestamp(t0.Add(700 * time.Millisecond)))
	}
	agent.End(trace.WithTimestamp(start.Add(3 * time.Second)))
	err = errors.Join(lp.Shutdown(context.Background()), tp.Shutdown(context.Background()))
	if err != nil {
		return "", fmt.Errorf("evalrun: %w", err)
	}
	return path, nil
}

// verdictAttrs are v's attributes as the conventions name them.
func verdictAttrs(v Verdict, responseID string) []attribute.KeyValue {
	attrs := []attribute.KeyValue{attribute.String("gen_ai.evaluation.name", v.Name), attribute.String("gen_ai.response.id", responseID)}
	if v.Score != nil {
		attrs = append(attrs, attribute.Float64("gen_ai.evaluation.score.value", *v.Score))
	}
	if v.Label != "" {
		attrs = append(attrs, attribute.String("gen_ai.evaluation.score.label", v.Label))
	}
	if v.Explanation != "" {
		attrs = append(attrs, attribute.String("gen_ai.evaluation.explanation", v.Explanation))
	}
	return attrs
}

// emit logs one gen_ai.evaluation.result in ctx, the judged call's
// context, so the record carries its trace and span ids.
func emit(ctx context.Context, l log.Logger, at time.Time, attrs []attribute.KeyValue) {
	var r log.Record
	r.SetEventName("gen_ai.evaluation.result")
	r.SetTimestamp(at)
	r.SetSeverity(log.SeverityInfo)
	r.AddAttributes(attrs...)
	l.Emit(ctx, r)
}
