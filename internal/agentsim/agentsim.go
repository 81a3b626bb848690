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
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/agenttrace/agenttrace/bridge"
	"github.com/agenttrace/agenttrace/internal/agentsim/genai"
	"github.com/agenttrace/agenttrace/semconv"
)

// Epoch is when every simulated run starts.
var Epoch = time.Date(2026, 5, 11, 9, 30, 0, 0, time.UTC)

// ServiceName is the service.name of the simulated agent's resource.
const ServiceName = "agenttrace-demo"

// ScopeName names the instrumentation scope of every span of a run.
const ScopeName = "github.com/agenttrace/agenttrace/internal/agentsim"

// TracerProviderOptions returns the options that make a TracerProvider's
// spans reproducible: [ReproducibleOptions] with trace and span ids drawn
// from seed, and the resource service.name=agenttrace-demo. Add the span
// processors to them.
//
// OTEL_RESOURCE_ATTRIBUTES still adds to the resource, as it does for any
// application that sets one: the SDK merges it in.
func TracerProviderOptions(seed uint64) []sdktrace.TracerProviderOption {
	return append(ReproducibleOptions(newSeededIDs(seed)),
		sdktrace.WithResource(resource.NewWithAttributes(genai.SchemaURL,
			attribute.String("service.name", ServiceName),
			attribute.String("service.version", "0.1.0"),
			attribute.String("telemetry.sdk.name", "opentelemetry"),
			attribute.String("telemetry.sdk.language", "go"),
		)))
}

// ReproducibleOptions returns the options that make a TracerProvider record
// the same spans every time, whatever the environment: ids from ids, every
// span sampled, and span limits that ignore OTEL_* variables (which could
// truncate message content).
func ReproducibleOptions(ids sdktrace.IDGenerator) []sdktrace.TracerProviderOption {
	return []sdktrace.TracerProviderOption{
		sdktrace.WithIDGenerator(ids),
		sdktrace.WithSampler(sdktrace.AlwaysSample()),
		sdktrace.WithRawSpanLimits(spanLimits),
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
	// SlowTool, when more than 0, is how long the first tool call takes
	// in place of its scripted latency: a call that lasts, to watch it
	// in flight.
	SlowTool time.Duration
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
		tracer: tp.Tracer(ScopeName, trace.WithInstrumentationVersion("0.1.0"), trace.WithSchemaURL(genai.SchemaURL)),
		guard:  cfg.Guard,
		slow:   cfg.SlowTool,
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
	now    time.Duration    // since Epoch
	open   []*semconv.Usage // usage of the agents running, outermost first
	slow   time.Duration    // the first tool call's latency, when > 0 (Config.SlowTool)
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
	tools                 []genai.ToolDef
	replies               []reply
}

// reply is one scripted model response.
type reply struct {
	responseID string
	text       string
	calls      []toolCall
	reasoning  int64         // reasoning tokens, counted in the output
	latency    time.Duration // of the model call
}

// toolCall is a call the model asks for.
type toolCall struct {
	id, name string
	args     map[string]any
	latency  time.Duration // of the tool, not counting nested agents
	task     string        // what a delegating tool asks its sub-agent
}

// invoke runs agent a on task under an invoke_agent span: ask the model,
// run the tools it asks for, feed their results back, until it answers.
// Like agent frameworks, the span repeats the usage of every model call
// made under it, nested agents' included.
func (r *runner) invoke(ctx context.Context, a *agent, task string) (answer string, err error) {
	r.wait(2 * time.Millisecond)
	history := []genai.Message{genai.User(genai.Text(task))}
	ctx, span := genai.StartAgent(ctx, r.tracer, genai.Agent{
		Name: a.name, ID: a.id, Description: a.description, Model: a.model, ConversationID: a.conversationID,
	}, history, r.at())

	var total semconv.Usage
	r.open = append(r.open, &total)
	defer func() {
		r.open = r.open[:len(r.open)-1]
		r.wait(3 * time.Millisecond)
		genai.EndAgent(span, answer, total, err, errorType(err), r.at())
	}()

	var cached int64 // the prompt prefix the provider has cached, in tokens
	for _, rep := range a.replies {
		if err := r.guard(ctx); err != nil {
			return "", err
		}
		out, u := r.chat(ctx, a, history, rep, cached)
		cached = u.Input / 128 * 128
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
			history = append(history, genai.Tool(resp))
		}
	}
	return "", fmt.Errorf("agentsim: %s: the script ends without an answer", a.name)
}

// chat records one model call: a CLIENT span "chat {model}" with the
// request, the scripted response and its usage. Usage is estimated from
// the request's and response's sizes (about four bytes a token, the usual
// rule of thumb); cached is the prefix a provider's prompt cache (in
// 128-token blocks) holds from the agent's previous call.
func (r *runner) chat(ctx context.Context, a *agent, history []genai.Message, rep reply, cached int64) (genai.Message, semconv.Usage) {
	r.wait(4 * time.Millisecond)
	start := r.at()
	out := genai.Assistant("stop")
	finish := "stop"
	if rep.text != "" {
		out.Parts = append(out.Parts, genai.Text(rep.text))
	}
	for _, c := range rep.calls {
		out.Parts = append(out.Parts, genai.ToolCall(c.id, c.name, c.args))
		out.FinishReason, finish = "tool_call", "tool_calls"
	}
	c := genai.Chat{
		Model: a.model, ResponseModel: a.responseModel, ResponseID: rep.responseID,
		Temperature: a.temperature, MaxTokens: a.maxTokens,
		System: genai.MustJSON([]genai.Part{genai.Text(a.system)}), Tools: genai.MustJSON(a.tools),
		Input: genai.MustJSON(history), Output: genai.MustJSON([]genai.Message{out}),
		FinishReasons: []string{finish},
	}
	c.Usage = semconv.Usage{
		Input:     tokens(c.System) + tokens(c.Tools) + tokens(c.Input),
		Output:    tokens(c.Output) + rep.reasoning,
		CacheRead: cached,
		Reasoning: rep.reasoning,
	}
	r.wait(rep.latency)
	genai.RecordChat(ctx, r.tracer, c, start, r.at())

	r.res.ModelCalls++
	for _, t := range r.open {
		t.Add(c.Usage)
	}
	return out, c.Usage
}

// errToolFailed marks a tool's own failure, which the agent reports to
// the model and goes on from, from an error that stops the agent.
var errToolFailed = errors.New("tool failed")

// tool records an execute_tool span around the tool's implementation and
// returns the tool_call_response part for the model. A tool's failure
// comes back wrapped in errToolFailed; any other error (a nested agent
// stopped by its guard) stops the caller too.
func (r *runner) tool(ctx context.Context, a *agent, c toolCall) (genai.Part, error) {
	r.wait(5 * time.Millisecond)
	desc := ""
	for _, d := range a.tools {
		if d.Name == c.name {
			desc = d.Description
		}
	}
	ctx, span := genai.StartTool(ctx, r.tracer, c.name, desc, c.id, c.args, r.at())
	r.res.ToolCalls++
	if r.slow > 0 && r.res.ToolCalls == 1 {
		c.latency = r.slow
	}
	r.wait(c.latency)
	result, err := r.tools[c.name](ctx, c)
	genai.EndTool(span, result, err, errorType(err), r.at())
	var ue *upstreamError
	switch {
	case errors.As(err, &ue):
		r.res.ToolErrors++
		return genai.ToolResponse(c.id, map[string]any{"error": err.Error()}), fmt.Errorf("%w: %w", errToolFailed, err)
	case err != nil:
		return genai.Part{}, err
	}
	return genai.ToolResponse(c.id, result), nil
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

// errorType is the error.type of err: the status code of a failed HTTP
// call, budget_exceeded for a run stopped by its token budget, else the
// semantic conventions' catch-all; "" for no error.
func errorType(err error) string {
	var ue *upstreamError
	switch {
	case err == nil:
		return ""
	case errors.As(err, &ue):
		return fmt.Sprint(ue.code)
	case errors.Is(err, bridge.ErrBudgetExceeded):
		return "budget_exceeded"
	}
	return "_OTHER"
}

// tokens estimates the tokens of s: four bytes a token, rounded up.
func tokens(s string) int64 { return int64(len(s)+3) / 4 }
