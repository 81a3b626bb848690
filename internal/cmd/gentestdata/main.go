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
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/agenttrace/agenttrace/converter/sdkspan"
	"github.com/agenttrace/agenttrace/internal/agentsim"
	"github.com/agenttrace/agenttrace/internal/agentsim/genai"
	"github.com/agenttrace/agenttrace/semconv"
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

// newSeededIDs is the deterministic id generator the fixtures were made
// with (the SDK's default draws from crypto-seeded randomness).
func newSeededIDs(seed uint64) *agentsim.SeededIDs {
	return agentsim.NewSeededIDs(seed, seed^0x9e3779b97f4a7c15)
}

// Instrumentation scopes, as an agent framework, its model client and the
// HTTP instrumentation would register them.
const (
	agentScope   = "github.com/example/agentkit"
	llmScope     = "github.com/example/agentkit/openai"
	httpScope    = "go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	agentVersion = "0.9.3"
)

// fixtureResource is the resource every fixture span carries. It is applied
// after recording because sdktrace.WithResource merges resource.Environment()
// (OTEL_RESOURCE_ATTRIBUTES, OTEL_SERVICE_NAME) into whatever it is given.
var fixtureResource = resource.NewWithAttributes(genai.SchemaURL,
	attribute.String("service.name", "travel-planner"),
	attribute.String("service.version", "2.4.1"),
	attribute.String("service.instance.id", "4b0c6f3e-8d2a-4e71-9a55-2f6c1d9e7b80"),
	attribute.String("deployment.environment.name", "staging"),
	attribute.String("telemetry.sdk.name", "opentelemetry"),
	attribute.String("telemetry.sdk.language", "go"),
)

// sim is one simulated process: a real TracerProvider with a span recorder
// and a virtual clock.
type sim struct {
	tp     *sdktrace.TracerProvider
	rec    *tracetest.SpanRecorder
	ids    *agentsim.SeededIDs
	base   time.Time
	agents trace.Tracer
	llm    trace.Tracer
	http   trace.Tracer
}

func newSim(seed uint64, base time.Time) *sim {
	ids := newSeededIDs(seed)
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(append(agentsim.ReproducibleOptions(ids), sdktrace.WithSpanProcessor(rec))...)
	return &sim{
		tp:   tp,
		rec:  rec,
		ids:  ids,
		base: base,
		agents: tp.Tracer(agentScope, trace.WithInstrumentationVersion(agentVersion),
			trace.WithSchemaURL(genai.SchemaURL)),
		llm: tp.Tracer(llmScope, trace.WithInstrumentationVersion(agentVersion),
			trace.WithSchemaURL(genai.SchemaURL)),
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

// toolCallPart is the model's request for c.
func toolCallPart(c toolCall) genai.Part { return genai.ToolCall(c.id, c.name, c.args) }

// toolResponse is what the agent tells the model the tool returned.
func toolResponse(c toolCall) genai.Part {
	if c.err != nil {
		return genai.ToolResponse(c.id, map[string]any{"error": c.errType + ": " + c.err.Error()})
	}
	return genai.ToolResponse(c.id, c.result)
}

// modelSettings are what an agent sends with each of its model calls.
type modelSettings struct {
	model, responseModel string
	temperature          float64 // 0: not sent (reasoning models)
	maxTokens            int
	system               []genai.Part
	tools                []genai.ToolDef
}

// chatCall is one model call: a CLIENT span named "chat {model}".
type chatCall struct {
	modelSettings
	responseID    string
	input         []genai.Message
	output        []genai.Message
	finishReasons []string
	usage         semconv.Usage
	start, end    time.Duration
}

// chat records a chat span and returns its usage for the enclosing agent.
func (s *sim) chat(ctx context.Context, c chatCall) semconv.Usage {
	genai.RecordChat(ctx, s.llm, genai.Chat{
		Model: c.model, ResponseModel: c.responseModel, ResponseID: c.responseID,
		Temperature: c.temperature, MaxTokens: c.maxTokens,
		System: genai.MustJSON(c.system), Tools: genai.MustJSON(c.tools),
		Input: genai.MustJSON(c.input), Output: genai.MustJSON(c.output),
		FinishReasons: c.finishReasons, Usage: c.usage,
	}, s.at(c.start), s.at(c.end))
	return c.usage
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
	ctx, span := genai.StartTool(ctx, s.agents, c.name, c.description, c.id, c.args, s.at(c.start))
	if body != nil {
		body(ctx)
	}
	genai.EndTool(span, c.result, c.err, c.errType, s.at(c.end))
}

// agentCall is one invoke_agent span (INTERNAL: an in-process agent).
type agentCall struct {
	genai.Agent
	input []genai.Message
	start time.Duration
	links []trace.Link
}

// invokeAgent records an invoke_agent span around body. body returns the
// final answer, the usage to report and the end time. Like real agent SDKs,
// the span repeats the usage totals of the model calls made under it.
func (s *sim) invokeAgent(ctx context.Context, a agentCall, body func(ctx context.Context) (answer string, total semconv.Usage, end time.Duration)) semconv.Usage {
	ctx, span := genai.StartAgent(ctx, s.agents, a.Agent, a.input, s.at(a.start), trace.WithLinks(a.links...))
	answer, total, end := body(ctx)
	genai.EndAgent(span, answer, total, nil, "", s.at(end))
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
