// Command gentestdata writes agenttrace's OTLP fixtures by driving the real
// OpenTelemetry Go SDK through simulated agent runs, so the fixtures have the
// exact shape (IDs, flags, attribute ordering, events, links) that an
// instrumented Go agent exports rather than a hand-written approximation.
//
// Run it from the module root:
//
//	go run ./internal/cmd/gentestdata -out testdata/otlp
//
// Output is byte-for-byte reproducible for a given -seed: IDs come from a
// seeded generator, every start, end and event time is explicit, the resource
// and span limits are fixed (ignoring OTEL_* environment variables), and the
// spans are converted with converter/sdkspan and written with pdata's
// marshalers. The test in this directory regenerates the files and fails when
// the committed copies are stale.
//
// Files:
//
//   - agent-run.json: one trace of a travel-planner agent (OTLP/JSON).
//   - agent-run.pb: the same trace as OTLP protobuf (TracesData).
//   - conversation.json: two traces, two user turns sharing one
//     gen_ai.conversation.id.
//   - conversation.lines.json: the same two traces as the collector's file
//     exporter writes them, one TracesData per line, one line per trace.
package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/agenttrace/agenttrace/converter/sdkspan"
)

// defaultSeed is the seed the committed fixtures are generated with.
const defaultSeed = 20260504

// Output file names, shared with the test.
const (
	agentRunJSON      = "agent-run.json"
	agentRunPB        = "agent-run.pb"
	conversationJSON  = "conversation.json"
	conversationLines = "conversation.lines.json"
)

func main() {
	out := flag.String("out", "testdata/otlp", "directory to write the fixtures to")
	seed := flag.Int64("seed", defaultSeed, "seed for trace and span IDs")
	flag.Parse()
	if err := run(*out, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "gentestdata:", err)
		os.Exit(1)
	}
}

// run generates every scenario and writes the fixtures into outDir.
func run(outDir string, seed int64) error {
	files, err := generate(seed)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return fmt.Errorf("create output directory: %w", err)
	}
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(outDir, f.name), f.data, 0o644); err != nil {
			return fmt.Errorf("write %s: %w", f.name, err)
		}
	}
	return nil
}

type file struct {
	name string
	data []byte
}

// generate builds all fixture files in memory.
func generate(seed int64) ([]file, error) {
	agentRun, err := agentRunScenario(uint64(seed))
	if err != nil {
		return nil, fmt.Errorf("agent-run scenario: %w", err)
	}
	convo, err := conversationScenario(uint64(seed) + 1)
	if err != nil {
		return nil, fmt.Errorf("conversation scenario: %w", err)
	}

	var files []file
	td := sdkspan.ToTraces(agentRun)
	js, err := marshalJSON(td, true)
	if err != nil {
		return nil, fmt.Errorf("marshal %s: %w", agentRunJSON, err)
	}
	files = append(files, file{agentRunJSON, js})

	pb, err := (&ptrace.ProtoMarshaler{}).MarshalTraces(td)
	if err != nil {
		return nil, fmt.Errorf("marshal %s: %w", agentRunPB, err)
	}
	files = append(files, file{agentRunPB, pb})

	var all []sdktrace.ReadOnlySpan
	var lines bytes.Buffer
	for _, spans := range convo {
		all = append(all, spans...)
		line, err := marshalJSON(sdkspan.ToTraces(spans), false)
		if err != nil {
			return nil, fmt.Errorf("marshal %s: %w", conversationLines, err)
		}
		lines.Write(line)
	}
	js, err = marshalJSON(sdkspan.ToTraces(all), true)
	if err != nil {
		return nil, fmt.Errorf("marshal %s: %w", conversationJSON, err)
	}
	files = append(files, file{conversationJSON, js}, file{conversationLines, lines.Bytes()})
	return files, nil
}

// marshalJSON writes OTLP/JSON with pdata's marshaler, newline-terminated.
// Indented output is for files people read and diff; compact output is the
// file exporter's one-object-per-line format.
func marshalJSON(td ptrace.Traces, indent bool) ([]byte, error) {
	b, err := (&ptrace.JSONMarshaler{}).MarshalTraces(td)
	if err != nil {
		return nil, fmt.Errorf("pdata JSON: %w", err)
	}
	if !indent {
		return append(b, '\n'), nil
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, b, "", "  "); err != nil {
		return nil, fmt.Errorf("indent: %w", err)
	}
	buf.WriteByte('\n')
	return buf.Bytes(), nil
}

// seededIDs is a deterministic sdktrace.IDGenerator: the SDK's default draws
// from crypto-seeded randomness, which would make every run differ.
type seededIDs struct {
	mu  sync.Mutex
	rng *rand.Rand
}

func newSeededIDs(seed uint64) *seededIDs {
	return &seededIDs{rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

// NewIDs implements sdktrace.IDGenerator.
func (g *seededIDs) NewIDs(context.Context) (trace.TraceID, trace.SpanID) {
	g.mu.Lock()
	defer g.mu.Unlock()
	var tid trace.TraceID
	for !tid.IsValid() {
		binary.BigEndian.PutUint64(tid[:8], g.rng.Uint64())
		binary.BigEndian.PutUint64(tid[8:], g.rng.Uint64())
	}
	return tid, g.spanIDLocked()
}

// NewSpanID implements sdktrace.IDGenerator.
func (g *seededIDs) NewSpanID(context.Context, trace.TraceID) trace.SpanID {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.spanIDLocked()
}

func (g *seededIDs) spanIDLocked() trace.SpanID {
	var sid trace.SpanID
	for !sid.IsValid() {
		binary.BigEndian.PutUint64(sid[:], g.rng.Uint64())
	}
	return sid
}

// Instrumentation scopes, as an agent framework, its model client and the
// HTTP instrumentation would register them.
const (
	agentScope   = "github.com/example/agentkit"
	llmScope     = "github.com/example/agentkit/openai"
	httpScope    = "go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	schemaURL    = "https://opentelemetry.io/schemas/1.41.0"
	agentVersion = "0.9.3"
)

// fixtureResource is the resource every fixture span carries. It is applied
// after recording because sdktrace.WithResource merges resource.Environment()
// (OTEL_RESOURCE_ATTRIBUTES, OTEL_SERVICE_NAME) into whatever it is given.
var fixtureResource = resource.NewWithAttributes(schemaURL,
	attribute.String("service.name", "travel-planner"),
	attribute.String("service.version", "2.4.1"),
	attribute.String("service.instance.id", "4b0c6f3e-8d2a-4e71-9a55-2f6c1d9e7b80"),
	attribute.String("deployment.environment.name", "staging"),
	attribute.String("telemetry.sdk.name", "opentelemetry"),
	attribute.String("telemetry.sdk.language", "go"),
)

// fixtureLimits replaces the SDK's environment-derived limits
// (OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT would truncate message content).
var fixtureLimits = sdktrace.SpanLimits{
	AttributeValueLengthLimit:   -1,
	AttributeValueDepthLimit:    sdktrace.DefaultAttributeValueDepthLimit,
	AttributeCountLimit:         sdktrace.DefaultAttributeCountLimit,
	EventCountLimit:             sdktrace.DefaultEventCountLimit,
	LinkCountLimit:              sdktrace.DefaultLinkCountLimit,
	AttributePerEventCountLimit: sdktrace.DefaultAttributePerEventCountLimit,
	AttributePerLinkCountLimit:  sdktrace.DefaultAttributePerLinkCountLimit,
}

// sim is one simulated process: a real TracerProvider with a span recorder
// and a virtual clock.
type sim struct {
	tp     *sdktrace.TracerProvider
	rec    *tracetest.SpanRecorder
	ids    *seededIDs
	base   time.Time
	agents trace.Tracer
	llm    trace.Tracer
	http   trace.Tracer
}

func newSim(seed uint64, base time.Time) *sim {
	ids := newSeededIDs(seed)
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithIDGenerator(ids),
		sdktrace.WithSampler(sdktrace.AlwaysSample()),
		sdktrace.WithRawSpanLimits(fixtureLimits),
		sdktrace.WithSpanProcessor(rec),
	)
	return &sim{
		tp:   tp,
		rec:  rec,
		ids:  ids,
		base: base,
		agents: tp.Tracer(agentScope, trace.WithInstrumentationVersion(agentVersion),
			trace.WithSchemaURL(schemaURL)),
		llm: tp.Tracer(llmScope, trace.WithInstrumentationVersion(agentVersion),
			trace.WithSchemaURL(schemaURL)),
		http: tp.Tracer(httpScope, trace.WithInstrumentationVersion("0.61.0")),
	}
}

// at is a start/end/event timestamp d after the scenario's base time.
func (s *sim) at(d time.Duration) trace.SpanEventOption {
	return trace.WithTimestamp(s.base.Add(d))
}

// finish shuts the provider down and returns the ended spans, in end order,
// with fixtureResource in place of the provider's resource.
func (s *sim) finish() ([]sdktrace.ReadOnlySpan, error) {
	if err := s.tp.Shutdown(context.Background()); err != nil {
		return nil, fmt.Errorf("shut down tracer provider: %w", err)
	}
	stubs := tracetest.SpanStubsFromReadOnlySpans(s.rec.Ended())
	for i := range stubs {
		stubs[i].Resource = fixtureResource
	}
	return stubs.Snapshots(), nil
}

// ms is a duration in milliseconds, to keep the timelines readable.
func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }

// usage is token usage as the gen_ai.usage.* attributes carry it.
type usage struct {
	input, output, cacheRead, reasoning int
}

func (u usage) plus(o usage) usage {
	return usage{u.input + o.input, u.output + o.output, u.cacheRead + o.cacheRead, u.reasoning + o.reasoning}
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

// Message shapes of semantic conventions v1.41 (gen-ai-input-messages.json,
// gen-ai-output-messages.json, gen-ai-system-instructions.json).
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

type toolDef struct {
	Type        string         `json:"type"`
	Name        string         `json:"name"`
	Description string         `json:"description,omitempty"`
	Parameters  map[string]any `json:"parameters,omitempty"`
}

func text(s string) part { return part{Type: "text", Content: s} }

func reasoning(s string) part { return part{Type: "reasoning", Content: s} }

func toolCallPart(c toolCall) part {
	return part{Type: "tool_call", ID: c.id, Name: c.name, Arguments: c.args}
}

func toolResponse(c toolCall) part {
	resp := c.result
	if c.err != nil {
		resp = map[string]any{"error": c.errType + ": " + c.err.Error()}
	}
	return part{Type: "tool_call_response", ID: c.id, Response: resp}
}

func user(parts ...part) message      { return message{Role: "user", Parts: parts} }
func assistant(parts ...part) message { return message{Role: "assistant", Parts: parts} }
func toolMsg(parts ...part) message   { return message{Role: "tool", Parts: parts} }

// mustJSON encodes v as compact JSON without HTML escaping, as Python and JS
// instrumentations do. It panics only on values this file constructs.
func mustJSON(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(fmt.Sprintf("gentestdata: encode %T: %v", v, err))
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

// chatCall is one model call: a CLIENT span named "chat {model}".
type chatCall struct {
	model, responseModel, responseID string
	temperature                      float64 // 0: not sent (reasoning models)
	maxTokens                        int
	system                           []part
	tools                            []toolDef
	input                            []message
	output                           []message
	finishReasons                    []string
	usage                            usage
	start, end                       time.Duration
}

// chat records a chat span and returns its usage for the enclosing agent.
func (s *sim) chat(ctx context.Context, c chatCall) usage {
	// Sampling-relevant attributes are set at creation, the rest later, as
	// instrumentations do.
	_, span := s.llm.Start(ctx, "chat "+c.model,
		trace.WithSpanKind(trace.SpanKindClient),
		s.at(c.start),
		trace.WithAttributes(
			attribute.String("gen_ai.operation.name", "chat"),
			attribute.String("gen_ai.provider.name", "openai"),
			attribute.String("gen_ai.request.model", c.model),
			attribute.String("server.address", "api.openai.com"),
			attribute.Int("server.port", 443),
		))
	var req []attribute.KeyValue
	if c.temperature != 0 {
		req = append(req, attribute.Float64("gen_ai.request.temperature", c.temperature))
	}
	req = append(req, attribute.Int("gen_ai.request.max_tokens", c.maxTokens))
	if len(c.system) > 0 {
		req = append(req, attribute.String("gen_ai.system_instructions", mustJSON(c.system)))
	}
	if len(c.tools) > 0 {
		req = append(req, attribute.String("gen_ai.tool.definitions", mustJSON(c.tools)))
	}
	req = append(req, attribute.String("gen_ai.input.messages", mustJSON(c.input)))
	span.SetAttributes(req...)

	span.SetAttributes(
		attribute.String("gen_ai.response.id", c.responseID),
		attribute.String("gen_ai.response.model", c.responseModel),
		attribute.StringSlice("gen_ai.response.finish_reasons", c.finishReasons),
		attribute.String("gen_ai.output.messages", mustJSON(c.output)),
	)
	span.SetAttributes(c.usage.attributes()...)
	span.End(s.at(c.end))
	return c.usage
}

// TimeoutError is the error the flaky weather tool returns. Its name is what
// the SDK's RecordError puts in exception.type ("main.TimeoutError").
type TimeoutError struct {
	Service string
	After   time.Duration
}

func (e TimeoutError) Error() string {
	return fmt.Sprintf("%s did not respond within %s", e.Service, e.After)
}

// toolCall is one function tool the model asked for and the agent ran.
type toolCall struct {
	name, id, description string
	args                  map[string]any
	result                any
	err                   error
	errType               string
	start, end            time.Duration
}

// tool records an execute_tool span; body, if set, runs inside it.
func (s *sim) tool(ctx context.Context, c toolCall, body func(ctx context.Context)) {
	ctx, span := s.agents.Start(ctx, "execute_tool "+c.name,
		trace.WithSpanKind(trace.SpanKindInternal),
		s.at(c.start),
		trace.WithAttributes(
			attribute.String("gen_ai.operation.name", "execute_tool"),
			attribute.String("gen_ai.tool.name", c.name),
			attribute.String("gen_ai.tool.call.id", c.id),
			attribute.String("gen_ai.tool.type", "function"),
			attribute.String("gen_ai.tool.description", c.description),
			attribute.String("gen_ai.tool.call.arguments", mustJSON(c.args)),
		))
	if body != nil {
		body(ctx)
	}
	if c.err != nil {
		span.RecordError(c.err, s.at(c.end))
		span.SetStatus(codes.Error, c.err.Error())
		span.SetAttributes(attribute.String("error.type", c.errType))
	} else {
		span.SetAttributes(attribute.String("gen_ai.tool.call.result", mustJSON(c.result)))
	}
	span.End(s.at(c.end))
}

// agentCall is one invoke_agent span (INTERNAL: an in-process agent).
type agentCall struct {
	name, id, description, model, conversationID string
	input                                        []message
	start                                        time.Duration
	links                                        []trace.Link
}

// invokeAgent records an invoke_agent span around body. body returns the
// final answer, the usage to report and the end time. Like real agent SDKs,
// the span repeats the usage totals of the model calls made under it.
func (s *sim) invokeAgent(ctx context.Context, a agentCall, body func(ctx context.Context) (answer message, total usage, end time.Duration)) usage {
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
	attrs = append(attrs, attribute.String("gen_ai.input.messages", mustJSON(a.input)))
	ctx, span := s.agents.Start(ctx, "invoke_agent "+a.name,
		trace.WithSpanKind(trace.SpanKindInternal),
		s.at(a.start),
		trace.WithAttributes(attrs...),
		trace.WithLinks(a.links...),
	)
	answer, total, end := body(ctx)
	span.SetAttributes(attribute.String("gen_ai.output.messages", mustJSON([]message{answer})))
	span.SetAttributes(total.attributes()...)
	span.End(s.at(end))
	return total
}

// httpGet records an otelhttp-style client span, the non-GenAI work an agent
// tool does.
func (s *sim) httpGet(ctx context.Context, url, host string, status int, start, end time.Duration) {
	_, span := s.http.Start(ctx, "GET",
		trace.WithSpanKind(trace.SpanKindClient),
		s.at(start),
		trace.WithAttributes(
			attribute.String("http.request.method", "GET"),
			attribute.String("url.full", url),
			attribute.String("server.address", host),
			attribute.Int("server.port", 443),
			attribute.String("network.protocol.version", "1.1"),
		))
	span.SetAttributes(attribute.Int("http.response.status_code", status))
	span.End(s.at(end))
}

// splitByTrace groups spans by trace ID in order of first appearance.
func splitByTrace(spans []sdktrace.ReadOnlySpan) [][]sdktrace.ReadOnlySpan {
	var out [][]sdktrace.ReadOnlySpan
	index := map[trace.TraceID]int{}
	for _, s := range spans {
		tid := s.SpanContext().TraceID()
		i, ok := index[tid]
		if !ok {
			i = len(out)
			index[tid] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], s)
	}
	return out
}

var errNoSpans = errors.New("scenario recorded no spans")
