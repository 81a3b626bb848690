// Package agentsim runs a scripted agent through the real OpenTelemetry Go
// SDK: a trip planner (invoke_agent planner) that chats with a model, calls
// tools, has one tool fail and delegates to a nested hotel-scout agent, with
// the spans, attributes and message JSON an instrumented agent framework
// emits under the GenAI semantic conventions v1.41.
//
// A run is deterministic: with [TracerProviderOptions] ids come from a
// seeded generator, every timestamp is explicit (a virtual clock starting
// at [Epoch]) and the model's replies, token usage and tool results are
// scripted, so the same seed gives the same spans.
//
// Before every model call and every tool call the agent asks its guard
// (Config.Guard) whether it may go on, the way an agent holds itself to a
// token budget with bridge.Processor.Guard. A refusal stops the run: every
// open span ends with the error, and Run reports it in Result.Stopped.
package agentsim

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/agenttrace/agenttrace/bridge"
)

// Epoch is when every simulated run starts.
var Epoch = time.Date(2026, 5, 11, 9, 30, 0, 0, time.UTC)

// ServiceName is the service.name of the simulated agent's resource.
const ServiceName = "agenttrace-demo"

// ScopeName names the instrumentation scope of every span of a run.
const ScopeName = "github.com/agenttrace/agenttrace/internal/agentsim"

const schemaURL = "https://opentelemetry.io/schemas/1.41.0"

// TracerProviderOptions returns the options that make a TracerProvider's
// spans reproducible: trace and span ids drawn from seed, every span
// sampled, the resource service.name=agenttrace-demo, and span limits that
// ignore OTEL_* variables (which could truncate message content). Add the
// span processors to them.
//
// OTEL_RESOURCE_ATTRIBUTES still adds to the resource, as it does for any
// application that sets one: the SDK merges it in.
func TracerProviderOptions(seed uint64) []sdktrace.TracerProviderOption {
	return []sdktrace.TracerProviderOption{
		sdktrace.WithIDGenerator(newSeededIDs(seed)),
		sdktrace.WithSampler(sdktrace.AlwaysSample()),
		sdktrace.WithRawSpanLimits(spanLimits),
		sdktrace.WithResource(resource.NewWithAttributes(schemaURL,
			attribute.String("service.name", ServiceName),
			attribute.String("service.version", "0.1.0"),
			attribute.String("telemetry.sdk.name", "opentelemetry"),
			attribute.String("telemetry.sdk.language", "go"),
		)),
	}
}

// TraceID returns the trace id of a run whose provider has
// TracerProviderOptions(seed): the seeded generator's first draw, which is
// the planner's root span.
func TraceID(seed uint64) trace.TraceID {
	tid, _ := newSeededIDs(seed).NewIDs(context.Background())
	return tid
}

// spanLimits are the SDK's defaults without a limit on attribute length.
var spanLimits = sdktrace.SpanLimits{
	AttributeValueLengthLimit:   -1,
	AttributeValueDepthLimit:    sdktrace.DefaultAttributeValueDepthLimit,
	AttributeCountLimit:         sdktrace.DefaultAttributeCountLimit,
	EventCountLimit:             sdktrace.DefaultEventCountLimit,
	LinkCountLimit:              sdktrace.DefaultLinkCountLimit,
	AttributePerEventCountLimit: sdktrace.DefaultAttributePerEventCountLimit,
	AttributePerLinkCountLimit:  sdktrace.DefaultAttributePerLinkCountLimit,
}

// SeededIDs is an sdktrace.IDGenerator drawing from a seeded PCG, where the
// SDK's default draws from crypto-seeded randomness: simulated runs and
// test fixtures get the same ids every time.
type SeededIDs struct {
	mu  sync.Mutex
	rng *rand.Rand
}

// NewSeededIDs returns a generator seeded with the PCG's two seeds.
func NewSeededIDs(seed1, seed2 uint64) *SeededIDs {
	return &SeededIDs{rng: rand.New(rand.NewPCG(seed1, seed2))}
}

func newSeededIDs(seed uint64) *SeededIDs { return NewSeededIDs(seed, ^seed) }

// NewIDs implements sdktrace.IDGenerator.
func (g *SeededIDs) NewIDs(context.Context) (trace.TraceID, trace.SpanID) {
	g.mu.Lock()
	defer g.mu.Unlock()
	var tid trace.TraceID
	for !tid.IsValid() {
		binary.BigEndian.PutUint64(tid[:8], g.rng.Uint64())
		binary.BigEndian.PutUint64(tid[8:], g.rng.Uint64())
	}
	return tid, g.spanID()
}

// NewSpanID implements sdktrace.IDGenerator.
func (g *SeededIDs) NewSpanID(context.Context, trace.TraceID) trace.SpanID {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.spanID()
}

func (g *SeededIDs) spanID() trace.SpanID {
	var sid trace.SpanID
	for !sid.IsValid() {
		binary.BigEndian.PutUint64(sid[:], g.rng.Uint64())
	}
	return sid
}

// Config configures a run.
type Config struct {
	// Guard is asked before every model call and every tool call, with a
	// context carrying the span the call is made under; an error stops the
	// run. Nil never refuses.
	Guard func(context.Context) error
}

// Result is what a run did.
type Result struct {
	// ModelCalls counts the chat calls made, of every agent.
	ModelCalls int
	// ToolCalls counts the tool calls made; ToolErrors those that failed.
	ToolCalls, ToolErrors int
	// Answer is the planner's final answer; empty when the run stopped.
	Answer string
	// Stopped is the guard's error that stopped the run; nil when the run
	// completed.
	Stopped error
}

// Run runs the planner once with tracers from tp and returns what it did.
// It ends every span it starts, also when the guard stops it; flushing and
// shutting tp down is the caller's. Run is safe to call concurrently with
// distinct providers.
func Run(ctx context.Context, tp trace.TracerProvider, cfg Config) Result {
	r := &runner{
		tracer: tp.Tracer(ScopeName, trace.WithInstrumentationVersion("0.1.0"), trace.WithSchemaURL(schemaURL)),
		guard:  cfg.Guard,
	}
	if r.guard == nil {
		r.guard = func(context.Context) error { return nil }
	}
	r.tools = map[string]func(context.Context, toolCall) (any, error){
		"search_trains":  fixed(trainOffers, nil),
		"search_flights": fixed(nil, flightsDown),
		"search_hotels":  fixed(hotelResults, nil),
		"find_hotels":    r.delegate(&hotelScout),
	}
	answer, err := r.invoke(ctx, &planner, tripRequest)
	r.res.Answer, r.res.Stopped = answer, err
	return r.res
}

// runner is one run: its tracer, guard, virtual clock and counts. A run is
// sequential: the agent waits for each call before making the next.
type runner struct {
	tracer trace.Tracer
	guard  func(context.Context) error
	tools  map[string]func(context.Context, toolCall) (any, error)
	now    time.Duration // since Epoch
	open   []*usage      // usage of the agents running, outermost first
	res    Result
}

// at is the current virtual time as a span or event option.
func (r *runner) at() trace.SpanEventOption { return trace.WithTimestamp(Epoch.Add(r.now)) }

// wait advances the virtual clock.
func (r *runner) wait(d time.Duration) { r.now += d }

// agent is a scripted agent: its definition and the model's replies, in
// order. The last reply asks for no tools: it is the answer.
type agent struct {
	name, id, description string
	model, responseModel  string
	conversationID        string
	temperature           float64 // 0: not sent (reasoning models)
	maxTokens             int
	system                string
	tools                 []toolDef
	replies               []reply
}

// reply is one scripted model response.
type reply struct {
	responseID string
	text       string
	calls      []toolCall
	reasoning  int           // reasoning tokens, counted in the output
	latency    time.Duration // of the model call
}

// toolCall is a call the model asks for.
type toolCall struct {
	id, name string
	args     map[string]any
	latency  time.Duration // of the tool, not counting nested agents
	task     string        // what a delegating tool asks its sub-agent
}

// usage is token usage as the gen_ai.usage.* attributes carry it.
type usage struct{ input, output, cacheRead, reasoning int }

func (u *usage) add(o usage) {
	u.input += o.input
	u.output += o.output
	u.cacheRead += o.cacheRead
	u.reasoning += o.reasoning
}

func (u usage) attributes() []attribute.KeyValue {
	kvs := []attribute.KeyValue{
		attribute.Int("gen_ai.usage.input_tokens", u.input),
		attribute.Int("gen_ai.usage.output_tokens", u.output),
	}
	if u.cacheRead > 0 {
		kvs = append(kvs, attribute.Int("gen_ai.usage.cache_read.input_tokens", u.cacheRead))
	}
	if u.reasoning > 0 {
		kvs = append(kvs, attribute.Int("gen_ai.usage.reasoning.output_tokens", u.reasoning))
	}
	return kvs
}

// invoke runs agent a on task under an invoke_agent span: ask the model,
// run the tools it asks for, feed their results back, until it answers.
// Like agent frameworks, the span repeats the usage of every model call
// made under it, nested agents' included.
func (r *runner) invoke(ctx context.Context, a *agent, task string) (answer string, err error) {
	r.wait(2 * time.Millisecond)
	history := []message{{Role: "user", Parts: []part{text(task)}}}
	attrs := []attribute.KeyValue{
		attribute.String("gen_ai.operation.name", "invoke_agent"),
		attribute.String("gen_ai.provider.name", "openai"),
		attribute.String("gen_ai.agent.name", a.name),
		attribute.String("gen_ai.agent.id", a.id),
		attribute.String("gen_ai.agent.description", a.description),
		attribute.String("gen_ai.request.model", a.model),
	}
	if a.conversationID != "" {
		attrs = append(attrs, attribute.String("gen_ai.conversation.id", a.conversationID))
	}
	attrs = append(attrs, attribute.String("gen_ai.input.messages", mustJSON(history)))
	ctx, span := r.tracer.Start(ctx, "invoke_agent "+a.name,
		trace.WithSpanKind(trace.SpanKindInternal), r.at(), trace.WithAttributes(attrs...))

	var total usage
	r.open = append(r.open, &total)
	defer func() {
		r.open = r.open[:len(r.open)-1]
		if err == nil {
			out := message{Role: "assistant", Parts: []part{text(answer)}, FinishReason: "stop"}
			span.SetAttributes(attribute.String("gen_ai.output.messages", mustJSON([]message{out})))
		}
		span.SetAttributes(total.attributes()...)
		r.wait(3 * time.Millisecond)
		end(span, err, r.at())
	}()

	cached := 0 // the prompt prefix the provider has cached, in tokens
	for _, rep := range a.replies {
		if err := r.guard(ctx); err != nil {
			return "", err
		}
		out, u := r.chat(ctx, a, history, rep, cached)
		cached = u.input / 128 * 128
		history = append(history, out)
		if len(rep.calls) == 0 {
			return rep.text, nil
		}
		for _, c := range rep.calls {
			if err := r.guard(ctx); err != nil {
				return "", err
			}
			resp, err := r.tool(ctx, a, c)
			if err != nil && !errors.Is(err, errToolFailed) {
				return "", err
			}
			history = append(history, message{Role: "tool", Parts: []part{resp}})
		}
	}
	return "", fmt.Errorf("agentsim: %s: the script ends without an answer", a.name)
}

// chat records one model call: a CLIENT span "chat {model}" with the
// request, the scripted response and its usage. Usage is estimated from
// the request's and response's sizes (about four bytes a token, the usual
// rule of thumb); cached is the prefix a provider's prompt cache (in
// 128-token blocks) holds from the agent's previous call.
func (r *runner) chat(ctx context.Context, a *agent, history []message, rep reply, cached int) (message, usage) {
	r.wait(4 * time.Millisecond)
	_, span := r.tracer.Start(ctx, "chat "+a.model,
		trace.WithSpanKind(trace.SpanKindClient), r.at(),
		trace.WithAttributes(
			attribute.String("gen_ai.operation.name", "chat"),
			attribute.String("gen_ai.provider.name", "openai"),
			attribute.String("gen_ai.request.model", a.model),
			attribute.String("server.address", "api.openai.com"),
			attribute.Int("server.port", 443),
		))
	system := mustJSON([]part{text(a.system)})
	tools := mustJSON(a.tools)
	input := mustJSON(history)
	var req []attribute.KeyValue
	if a.temperature != 0 {
		req = append(req, attribute.Float64("gen_ai.request.temperature", a.temperature))
	}
	req = append(req,
		attribute.Int("gen_ai.request.max_tokens", a.maxTokens),
		attribute.String("gen_ai.system_instructions", system),
		attribute.String("gen_ai.tool.definitions", tools),
		attribute.String("gen_ai.input.messages", input),
	)
	span.SetAttributes(req...)

	out := message{Role: "assistant", FinishReason: "stop"}
	finish := "stop"
	if rep.text != "" {
		out.Parts = append(out.Parts, text(rep.text))
	}
	for _, c := range rep.calls {
		out.Parts = append(out.Parts, part{Type: "tool_call", ID: c.id, Name: c.name, Arguments: c.args})
		out.FinishReason, finish = "tool_call", "tool_calls"
	}
	output := mustJSON([]message{out})
	u := usage{
		input:     tokens(system) + tokens(tools) + tokens(input),
		output:    tokens(output) + rep.reasoning,
		cacheRead: cached,
		reasoning: rep.reasoning,
	}
	r.wait(rep.latency)
	span.SetAttributes(
		attribute.String("gen_ai.response.id", rep.responseID),
		attribute.String("gen_ai.response.model", a.responseModel),
		attribute.StringSlice("gen_ai.response.finish_reasons", []string{finish}),
		attribute.String("gen_ai.output.messages", output),
	)
	span.SetAttributes(u.attributes()...)
	span.End(r.at())

	r.res.ModelCalls++
	for _, t := range r.open {
		t.add(u)
	}
	return out, u
}

// errToolFailed marks a tool's own failure, which the agent reports to
// the model and goes on from, from an error that stops the agent.
var errToolFailed = errors.New("tool failed")

// tool records an execute_tool span around the tool's implementation and
// returns the tool_call_response part for the model. A tool's failure
// comes back wrapped in errToolFailed; any other error (a nested agent
// stopped by its guard) stops the caller too.
func (r *runner) tool(ctx context.Context, a *agent, c toolCall) (part, error) {
	r.wait(5 * time.Millisecond)
	desc := ""
	for _, d := range a.tools {
		if d.Name == c.name {
			desc = d.Description
		}
	}
	ctx, span := r.tracer.Start(ctx, "execute_tool "+c.name,
		trace.WithSpanKind(trace.SpanKindInternal), r.at(),
		trace.WithAttributes(
			attribute.String("gen_ai.operation.name", "execute_tool"),
			attribute.String("gen_ai.tool.name", c.name),
			attribute.String("gen_ai.tool.call.id", c.id),
			attribute.String("gen_ai.tool.type", "function"),
			attribute.String("gen_ai.tool.description", desc),
			attribute.String("gen_ai.tool.call.arguments", mustJSON(c.args)),
		))
	r.res.ToolCalls++
	r.wait(c.latency)
	result, err := r.tools[c.name](ctx, c)
	resp := part{Type: "tool_call_response", ID: c.id, Response: result}
	var ue *upstreamError
	switch {
	case errors.As(err, &ue):
		r.res.ToolErrors++
		resp.Response = map[string]any{"error": err.Error()}
		end(span, err, r.at())
		return resp, fmt.Errorf("%w: %w", errToolFailed, err)
	case err != nil:
		end(span, err, r.at())
		return resp, err
	}
	span.SetAttributes(attribute.String("gen_ai.tool.call.result", mustJSON(result)))
	span.End(r.at())
	return resp, nil
}

// fixed is a tool that returns result, or fails with err.
func fixed(result any, err error) func(context.Context, toolCall) (any, error) {
	return func(context.Context, toolCall) (any, error) { return result, err }
}

// delegate is a tool that hands the task to a sub-agent and returns its
// answer.
func (r *runner) delegate(sub *agent) func(context.Context, toolCall) (any, error) {
	return func(ctx context.Context, c toolCall) (any, error) {
		answer, err := r.invoke(ctx, sub, c.task)
		if err != nil {
			return nil, err
		}
		r.wait(4 * time.Millisecond)
		return answer, nil
	}
}

// upstreamError is an HTTP service behind a tool failing.
type upstreamError struct {
	service string
	code    int
	status  string
}

func (e *upstreamError) Error() string {
	return fmt.Sprintf("%s: %d %s", e.service, e.code, e.status)
}

// end ends span with err's status, exception event and error.type, or
// plainly when err is nil.
func end(span trace.Span, err error, at trace.SpanEventOption) {
	if err != nil {
		span.RecordError(err, at)
		span.SetStatus(codes.Error, err.Error())
		span.SetAttributes(attribute.String("error.type", errorType(err)))
	}
	span.End(at)
}

// errorType is the error.type of err: the status code of a failed HTTP
// call, budget_exceeded for a run stopped by its token budget, else the
// semantic conventions' catch-all.
func errorType(err error) string {
	var ue *upstreamError
	switch {
	case errors.As(err, &ue):
		return fmt.Sprint(ue.code)
	case errors.Is(err, bridge.ErrBudgetExceeded):
		return "budget_exceeded"
	}
	return "_OTHER"
}

// Message shapes of the GenAI semantic conventions v1.41
// (gen-ai-input-messages.json, gen-ai-output-messages.json,
// gen-ai-system-instructions.json).
type part struct {
	Type      string `json:"type"`
	ID        string `json:"id,omitempty"`
	Name      string `json:"name,omitempty"`
	Content   string `json:"content,omitempty"`
	Arguments any    `json:"arguments,omitempty"`
	Response  any    `json:"response,omitempty"`
}

type message struct {
	Role         string `json:"role"`
	Parts        []part `json:"parts"`
	FinishReason string `json:"finish_reason,omitempty"`
}

// toolDef is one entry of gen_ai.tool.definitions.
type toolDef struct {
	Type        string         `json:"type"`
	Name        string         `json:"name"`
	Description string         `json:"description"`
	Parameters  map[string]any `json:"parameters"`
}

func text(s string) part { return part{Type: "text", Content: s} }

// tokens estimates the tokens of s: four bytes a token, rounded up.
func tokens(s string) int { return (len(s) + 3) / 4 }

// mustJSON encodes v as compact JSON without HTML escaping, as most
// instrumentations write it (map keys sorted, so the bytes are stable). It
// panics only on values this package builds.
func mustJSON(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(fmt.Sprintf("agentsim: encode %T: %v", v, err))
	}
	return strings.TrimSuffix(buf.String(), "\n")
}
