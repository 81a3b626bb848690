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
	"net/url"
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

// Scenario content. Texts are realistic in length (a few hundred bytes to
// about 2 KB per message) so size-sensitive code paths see real inputs.

const plannerInstructions = `You are Travel Planner, an assistant that builds complete, bookable trip plans. ` +
	`Always confirm the travellers' origin, dates, party size and budget before searching. ` +
	`Use search_flights for air travel and prefer itineraries with at most one stop and total travel time under 20 hours. ` +
	`Use get_weather to check conditions for the travel dates and mention anything that affects packing or activities. ` +
	`Delegate accommodation to the hotel finder through find_hotels; do not invent hotel names or prices. ` +
	`Quote prices in the currency returned by the tools, state whether they are per person or in total, and never promise availability: fares and rooms can change until booked. ` +
	`When a tool fails, say so briefly and continue with what you have instead of retrying more than once. ` +
	`Finish with a short day-by-day outline and a checklist of what the travellers still need to book.`

const hotelInstructions = `You are Hotel Finder, a sub-agent that shortlists accommodation. ` +
	`Call search_hotels once with the city, dates, party size and nightly budget you were given. ` +
	`Rank options by location fit first, then guest rating, then price. ` +
	`Return at most three hotels with the nightly and total price, the nearest metro station and one sentence on why each fits. ` +
	`Do not book anything and do not mention hotels that the tool did not return.`

const tripRequest = `Hi! My partner and I want to go from Lisbon to Tokyo for about ten days in the second half of May 2026 — ` +
	`ideally leaving on Monday the 18th and flying back on Friday the 29th. We're flexible by a day either way if it saves a lot. ` +
	`Economy is fine but we'd rather avoid two stops. Budget is roughly €4,500 for the two of us, flights and hotel included. ` +
	`We like walking neighbourhoods, small restaurants and a quiet place to sleep. Could you put together a plan?`

var plannerTools = []genai.ToolDef{
	genai.Function("search_flights",
		"Search scheduled flights and return the cheapest fares per itinerary, including stops, duration and baggage.",
		map[string]any{
			"origin":      genai.StringParam("IATA airport or city code"),
			"destination": genai.StringParam("IATA airport or city code"),
			"depart_date": genai.DateParam(),
			"return_date": genai.DateParam(),
			"cabin":       genai.EnumParam("economy", "premium_economy", "business"),
			"passengers":  map[string]any{"type": "integer", "minimum": 1},
		},
		"origin", "destination", "depart_date", "passengers"),
	genai.Function("get_weather",
		"Climate outlook for a location and date range: daily highs and lows, rain probability.",
		map[string]any{
			"location":   genai.StringParam(""),
			"start_date": genai.DateParam(),
			"end_date":   genai.DateParam(),
		},
		"location", "start_date", "end_date"),
	genai.Function("find_hotels",
		"Ask the hotel-finder agent for a ranked shortlist of hotels.",
		map[string]any{
			"city":                    genai.StringParam(""),
			"check_in":                genai.DateParam(),
			"check_out":               genai.DateParam(),
			"guests":                  genai.IntegerParam(),
			"max_price_per_night_eur": genai.NumberParam(),
			"preferences":             genai.StringParam(""),
		},
		"city", "check_in", "check_out", "guests"),
}

var hotelTools = []genai.ToolDef{genai.Function("search_hotels",
	"Search hotel availability and prices for a city, dates and party size, optionally limited to neighbourhoods.",
	map[string]any{
		"city":           genai.StringParam(""),
		"check_in":       genai.DateParam(),
		"check_out":      genai.DateParam(),
		"guests":         genai.IntegerParam(),
		"max_price_eur":  genai.NumberParam(),
		"neighbourhoods": map[string]any{"type": "array", "items": genai.StringParam("")},
	},
	"city", "check_in", "check_out", "guests")}

var flightOffers = map[string]any{
	"currency": "EUR",
	"offers": []map[string]any{
		{
			"id": "off_7Hq2", "carrier": "TP/NH", "stops": 1, "price_total": 2318.40, "price_per_person": 1159.20,
			"outbound": map[string]any{"depart": "2026-05-18T11:35+01:00", "arrive": "2026-05-19T17:50+09:00", "via": "FRA", "duration": "22h15m"},
			"inbound":  map[string]any{"depart": "2026-05-29T12:20+09:00", "arrive": "2026-05-29T20:05+01:00", "via": "FRA", "duration": "15h45m"},
			"baggage":  "1 x 23 kg checked per person",
		},
		{
			"id": "off_9Lm4", "carrier": "LH", "stops": 1, "price_total": 2104.90, "price_per_person": 1052.45,
			"outbound": map[string]any{"depart": "2026-05-18T06:10+01:00", "arrive": "2026-05-19T08:55+09:00", "via": "MUC", "duration": "18h45m"},
			"inbound":  map[string]any{"depart": "2026-05-29T10:45+09:00", "arrive": "2026-05-29T19:30+01:00", "via": "MUC", "duration": "15h45m"},
			"baggage":  "1 x 23 kg checked per person",
		},
		{
			"id": "off_2Pz8", "carrier": "EK", "stops": 1, "price_total": 2589.00, "price_per_person": 1294.50,
			"outbound": map[string]any{"depart": "2026-05-18T14:40+01:00", "arrive": "2026-05-19T17:35+09:00", "via": "DXB", "duration": "18h55m"},
			"inbound":  map[string]any{"depart": "2026-05-29T00:05+09:00", "arrive": "2026-05-29T13:30+01:00", "via": "DXB", "duration": "21h25m"},
			"baggage":  "2 x 23 kg checked per person",
		},
	},
	"searched_at": "2026-05-04T14:03:09Z",
}

var hotelResults = map[string]any{
	"currency": "EUR",
	"results": []map[string]any{
		{"name": "Hanare Yanaka", "neighbourhood": "Yanaka", "rating": 9.1, "price_per_night": 148, "price_total": 1480, "station": "Nippori (4 min walk)", "room": "Japanese-style double, shared bath", "free_cancellation": true},
		{"name": "Lyuro Kiyosumi", "neighbourhood": "Kiyosumi-Shirakawa", "rating": 8.7, "price_per_night": 172, "price_total": 1720, "station": "Kiyosumi-shirakawa (6 min walk)", "room": "River-view double", "free_cancellation": true},
		{"name": "Hotel Allamanda Aoyama", "neighbourhood": "Aoyama", "rating": 8.4, "price_per_night": 205, "price_total": 2050, "station": "Omotesando (5 min walk)", "room": "Superior double", "free_cancellation": false},
		{"name": "Nakameguro Riverside Inn", "neighbourhood": "Nakameguro", "rating": 8.2, "price_per_night": 219, "price_total": 2190, "station": "Naka-meguro (3 min walk)", "room": "Compact double", "free_cancellation": true},
	},
	"nights": 10,
}

const hotelReasoning = `The budget is about €4,500 in total and the cheapest suitable flight is €2,104.90, which leaves roughly €2,395 for ten nights, ` +
	`so anything above about €220 a night breaks the budget and €150–€175 leaves room for food and transport. ` +
	`They asked for walkable, quiet areas with small restaurants: Yanaka and Kiyosumi-Shirakawa fit best, Nakameguro is lively at night ` +
	`and Aoyama is more upmarket. Rank Hanare first on rating and price, Lyuro second, and keep Nakameguro as a third option because it has free cancellation.`

const hotelAnswer = `Here is my shortlist for 19–29 May (10 nights, 2 guests), ranked for quiet, walkable neighbourhoods:

1. Hanare Yanaka (Yanaka) — €148/night, €1,480 total. 4 minutes from Nippori. A converted house in the old-town area with temples and small cafés; the bath is shared, which keeps the price down. Free cancellation.
2. Lyuro Kiyosumi (Kiyosumi-Shirakawa) — €172/night, €1,720 total. 6 minutes from Kiyosumi-shirakawa. River-view rooms in a calm residential area known for coffee roasters and the Kiyosumi garden. Free cancellation.
3. Nakameguro Riverside Inn (Nakameguro) — €219/night, €2,190 total. 3 minutes from Naka-meguro. Great food scene along the canal, but livelier in the evenings. Free cancellation.

I left out Hotel Allamanda Aoyama (€205/night) because it does not allow free cancellation and the area is less residential.`

const tripAnswer = `Here's a plan for your Lisbon → Tokyo trip, 18–29 May 2026, for two people.

Flights (one stop each way, economy, prices in EUR for both of you):
• Recommended: Lufthansa via Munich — €2,104.90 total (€1,052.45 each). Leave Lisbon Mon 18 May 06:10, arrive Tokyo Tue 19 May 08:55; return Fri 29 May 10:45, home 19:30 the same day. One 23 kg bag each.
• Alternative: TAP/ANA via Frankfurt — €2,318.40 total, friendlier 11:35 departure but a longer 22h15m outbound.

Hotel: Hanare Yanaka, 19–29 May, €1,480 total. Quiet old-town streets, temples and small restaurants, 4 minutes from Nippori (direct Keisei Skyliner from Narita). Shared bath; free cancellation. If you'd prefer a private bathroom, Lyuro Kiyosumi is €1,720 total.

Estimated total: €3,584.90 for flights and hotel, leaving about €900 for food, transport and activities. A 7-day JR Pass is not worth it unless you add a Kyoto trip.

Weather: the weather service timed out, so I couldn't check your dates. Late May in Tokyo is usually warm (20–26 °C) with some rain before the June rainy season; pack a light jacket and an umbrella.

Outline:
Day 1–2: arrive, settle into Yanaka, walk Yanaka Ginza and Ueno Park.
Day 3–4: Asakusa and Kiyosumi garden; coffee in Kiyosumi-Shirakawa.
Day 5: day trip to Kamakura.
Day 6–8: Shibuya, Nakameguro canal, Shimokitazawa; teamLab Planets.
Day 9–10: Nikko day trip, last-evening dinner in Yanesen.

Still to book: flights (fares can change), the hotel, travel insurance, and a Suica card on your phone.`

// travelPlanner is the agent of both scenarios, in conversation.
func travelPlanner(conversation string) genai.Agent {
	return genai.Agent{
		Name: "travel-planner", ID: "agent_tp_01JT8K2M4Q", Model: "gpt-4o", ConversationID: conversation,
		Description: "Plans trips end to end: flights, weather, hotels and a day-by-day outline.",
	}
}

// agentRunScenario records one travel-planner run: three chat turns, tool
// calls (one failing with a timeout, one making an HTTP call), a nested
// hotel-finder agent with its own chats and tool, and a link to the previous
// turn's trace. The root repeats the usage totals of every chat in the trace;
// the hotel-finder span repeats those of its own two chats.
func agentRunScenario(seed uint64) ([]sdktrace.ReadOnlySpan, error) {
	s := newSim(seed, time.Date(2026, 5, 4, 14, 3, 7, 250_000_000, time.UTC))
	ctx := context.Background()

	prevTID, prevSID := s.ids.NewIDs(ctx)
	previousTurn := trace.NewSpanContext(trace.SpanContextConfig{
		TraceID: prevTID, SpanID: prevSID, TraceFlags: trace.FlagsSampled, Remote: true,
	})

	const conversation = "conv_68176b2f9a4c8190b1e2d3f4a5b6c7d8"
	request := genai.User(genai.Text(tripRequest))

	flights := toolCall{
		name: "search_flights", id: "call_Qx7dP2mZk9LrT4vN8sYb1WcE",
		description: plannerTools[0].Description,
		args: map[string]any{
			"origin": "LIS", "destination": "TYO", "depart_date": "2026-05-18", "return_date": "2026-05-29",
			"cabin": "economy", "passengers": 2,
		},
		result: flightOffers,
		start:  ms(2191), end: ms(3472),
	}
	weather := toolCall{
		name: "get_weather", id: "call_H3kR8sWq5NvB2xLm7TzY0pDa",
		description: plannerTools[1].Description,
		args:        map[string]any{"location": "Tokyo, JP", "start_date": "2026-05-19", "end_date": "2026-05-29"},
		// What a Go HTTP client returns when its context times out. The SDK's
		// RecordError names the type with reflection ("*url.Error"); a type
		// declared in package main would be named differently under go run
		// and go test.
		err: &url.Error{
			Op:  "Get",
			URL: "https://api.weather.example/v1/outlook?lat=35.68&lon=139.69&from=2026-05-19&to=2026-05-29",
			Err: context.DeadlineExceeded,
		},
		errType: "TimeoutError",
		start:   ms(2193), end: ms(12195),
	}
	hotels := toolCall{
		name: "find_hotels", id: "call_Vn4Tb9Kc2MxQ7wEr5YsL8hJf",
		description: plannerTools[2].Description,
		args: map[string]any{
			"city": "Tokyo", "check_in": "2026-05-19", "check_out": "2026-05-29", "guests": 2,
			"max_price_per_night_eur": 220, "preferences": "quiet, walkable neighbourhood near a metro line, small restaurants",
		},
		result: hotelAnswer,
		start:  ms(13031), end: ms(21640),
	}
	hotelSearch := toolCall{
		name: "search_hotels", id: "call_Zp6Ld3Gh8RkW1qNs4VxC7mTb",
		description: hotelTools[0].Description,
		args: map[string]any{
			"city": "Tokyo", "check_in": "2026-05-19", "check_out": "2026-05-29", "guests": 2, "max_price_eur": 220,
			"neighbourhoods": []string{"Yanaka", "Kiyosumi-Shirakawa", "Aoyama", "Nakameguro"},
		},
		result: hotelResults,
		start:  ms(15878), end: ms(16902),
	}

	turn1Out := genai.Assistant("tool_call",
		genai.Text("I'll look for flights and check the weather for your dates."),
		toolCallPart(flights), toolCallPart(weather))
	turn2Out := genai.Assistant("tool_call", toolCallPart(hotels))
	answer := genai.Assistant("stop", genai.Text(tripAnswer))

	planner := modelSettings{
		model: "gpt-4o", responseModel: "gpt-4o-2024-08-06", temperature: 0.3, maxTokens: 2048,
		system: []genai.Part{genai.Text(plannerInstructions)}, tools: plannerTools,
	}
	finder := modelSettings{
		model: "o4-mini", responseModel: "o4-mini-2025-04-16", maxTokens: 4096,
		system: []genai.Part{genai.Text(hotelInstructions)}, tools: hotelTools,
	}

	history1 := []genai.Message{request}
	history2 := append(append([]genai.Message{}, history1...), turn1Out, genai.Tool(toolResponse(flights)), genai.Tool(toolResponse(weather)))
	history3 := append(append([]genai.Message{}, history2...), turn2Out, genai.Tool(toolResponse(hotels)))

	s.invokeAgent(ctx, agentCall{
		Agent: travelPlanner(conversation),
		input: []genai.Message{request},
		start: 0,
		links: []trace.Link{{
			SpanContext: previousTurn,
			Attributes:  []attribute.KeyValue{attribute.String("gen_ai.conversation.id", conversation)},
		}},
	}, func(ctx context.Context) (string, semconv.Usage, time.Duration) {
		var total semconv.Usage
		total.Add(s.chat(ctx, chatCall{
			modelSettings: planner, responseID: "chatcmpl-BSd3kQ9vX2mT7pL4nR8wY1zE6aF0",
			input: history1, output: []genai.Message{turn1Out}, finishReasons: []string{"tool_calls"},
			usage: semconv.Usage{Input: 1342, Output: 96},
			start: ms(12), end: ms(2184),
		}))

		s.tool(ctx, flights, func(ctx context.Context) {
			s.httpGet(ctx,
				"https://api.flightsearch.example/v2/offers?origin=LIS&destination=TYO&depart=2026-05-18&return=2026-05-29&adults=2&cabin=ECONOMY",
				"api.flightsearch.example", 200, ms(2205), ms(3460))
		})
		s.tool(ctx, weather, nil)

		total.Add(s.chat(ctx, chatCall{
			modelSettings: planner, responseID: "chatcmpl-BSd3wH5kN1qR9tV3mX7cZ2pL8yJ4",
			input: history2, output: []genai.Message{turn2Out}, finishReasons: []string{"tool_calls"},
			usage: semconv.Usage{Input: 2198, Output: 41, CacheRead: 1280},
			start: ms(12210), end: ms(13020),
		}))

		s.tool(ctx, hotels, func(ctx context.Context) {
			hotelTask := genai.User(genai.Text("Find hotels in Tokyo for 2 guests, check-in 2026-05-19, check-out 2026-05-29, " +
				"at most €220 per night. Preferences: quiet, walkable neighbourhood near a metro line, small restaurants."))
			total.Add(s.invokeAgent(ctx, agentCall{
				Agent: genai.Agent{
					Name: "hotel-finder", ID: "agent_hf_01JT8K3B7W", Model: "o4-mini", ConversationID: conversation,
					Description: "Shortlists hotels for a city, dates, party size and budget.",
				},
				input: []genai.Message{hotelTask},
				start: ms(13034),
			}, func(ctx context.Context) (string, semconv.Usage, time.Duration) {
				searchOut := genai.Assistant("tool_call",
					genai.Reasoning("Two guests, ten nights, €220 cap: search the quieter neighbourhoods first."), toolCallPart(hotelSearch))
				final := genai.Assistant("stop", genai.Reasoning(hotelReasoning), genai.Text(hotelAnswer))

				var sub semconv.Usage
				sub.Add(s.chat(ctx, chatCall{
					modelSettings: finder, responseID: "chatcmpl-BSd4Aa1bC2dE3fG4hI5jK6lM7nO8",
					input: []genai.Message{hotelTask}, output: []genai.Message{searchOut}, finishReasons: []string{"tool_calls"},
					usage: semconv.Usage{Input: 890, Output: 154, Reasoning: 128},
					start: ms(13040), end: ms(15870),
				}))
				s.tool(ctx, hotelSearch, nil)
				sub.Add(s.chat(ctx, chatCall{
					modelSettings: finder, responseID: "chatcmpl-BSd4Qp9oN8mL7kJ6iH5gF4eD3cB2",
					input:  []genai.Message{hotelTask, searchOut, genai.Tool(toolResponse(hotelSearch))},
					output: []genai.Message{final}, finishReasons: []string{"stop"},
					usage: semconv.Usage{Input: 1420, Output: 380, CacheRead: 768, Reasoning: 192},
					start: ms(16910), end: ms(21620),
				}))
				return hotelAnswer, sub, ms(21632)
			}))
		})

		total.Add(s.chat(ctx, chatCall{
			modelSettings: planner, responseID: "chatcmpl-BSd5Xy2wV4uT6sR8qP0oN1mL3kJ5",
			input: history3, output: []genai.Message{answer}, finishReasons: []string{"stop"},
			usage: semconv.Usage{Input: 3104, Output: 612, CacheRead: 2048},
			start: ms(21650), end: ms(29410),
		}))
		return tripAnswer, total, ms(29415)
	})

	return s.finish()
}

const baggageQuestion = `We're flying TAP from Lisbon to Tokyo on 18 May, economy, booked as two separate tickets on one reservation. ` +
	`What is the checked baggage allowance for each of us, and are there limits on cabin bags? We'll have a lot of camera gear.`

const baggageAnswer = `On TAP economy (Classic fare) to Tokyo each of you can check one bag of up to 23 kg and 158 cm (length + width + height). ` +
	`In the cabin you each get one bag up to 8 kg and 55 × 40 × 20 cm plus a personal item such as a laptop or camera bag (40 × 30 × 15 cm). ` +
	`Because your flight connects to ANA in Frankfurt, the most restrictive cabin rule applies on that leg, so keep the camera bag under 8 kg. ` +
	`Lithium batteries for cameras must go in the cabin, not in checked luggage; spares must be individually protected and under 100 Wh each.`

const skiQuestion = `Thanks! If we add one ski bag on the way out, how much will that cost, and does it count towards the 23 kg?`

const skiAnswer = `Ski equipment is carried as a special item on TAP: one ski bag (skis, poles and boots, up to 23 kg) costs €75 per direction when added online ` +
	`at least 24 hours before departure, or €100 at the airport. It replaces the need for a second checked bag but does not count towards your 23 kg allowance, ` +
	`so your suitcase can still be 23 kg. Add it under "Manage booking → Extra baggage" for the Lisbon → Tokyo segment only.`

// conversationScenario records two user turns of one conversation as two
// traces, each an invoke_agent root with a tool-calling chat, the tool and a
// final chat.
func conversationScenario(seed uint64) ([][]sdktrace.ReadOnlySpan, error) {
	s := newSim(seed, time.Date(2026, 5, 4, 15, 20, 0, 0, time.UTC))
	ctx := context.Background()
	const conversation = "conv_2b9e4f10c7d84a6f9e31b5a07c2d8e64"

	policyTool := genai.Function("lookup_airline_policy",
		"Look up an airline's published policy on a topic (baggage, special items, pets) for a route and fare.",
		map[string]any{
			"airline": genai.StringParam("IATA airline code"),
			"topic":   genai.EnumParam("baggage", "special_items", "pets"),
			"route":   genai.StringParam(""),
			"fare":    genai.StringParam(""),
		},
		"airline", "topic")
	planner := modelSettings{
		model: "gpt-4o", responseModel: "gpt-4o-2024-08-06", temperature: 0.3, maxTokens: 1024,
		system: []genai.Part{genai.Text("You are Travel Planner. Answer questions about the travellers' existing bookings. " +
			"Use lookup_airline_policy for anything an airline publishes; never guess fees or limits.")},
		tools: []genai.ToolDef{policyTool},
	}

	type turn struct {
		question, answer string
		call             toolCall
		start            time.Duration
		usage            [2]semconv.Usage
		ids              [2]string
	}
	turns := []turn{
		{
			question: baggageQuestion, answer: baggageAnswer, start: 0,
			call: toolCall{
				name: "lookup_airline_policy", id: "call_B4gG7aLl0wAnC3eE9sQ2rT5y", description: policyTool.Description,
				args: map[string]any{"airline": "TP", "topic": "baggage", "route": "LIS-NRT", "fare": "economy classic"},
				result: map[string]any{
					"checked": "1 x 23 kg, max 158 cm linear", "cabin": "1 x 8 kg, 55x40x20 cm + 1 personal item 40x30x15 cm",
					"interline_note": "most restrictive carrier rule applies on codeshare segments",
					"batteries":      "spare lithium batteries in cabin only, max 100 Wh each",
				},
			},
			usage: [2]semconv.Usage{{Input: 412, Output: 38}, {Input: 655, Output: 171, CacheRead: 384}},
			ids:   [2]string{"chatcmpl-BSe1aB2cD3eF4gH5iJ6kL7mN8oP9", "chatcmpl-BSe1qR0sT1uV2wX3yZ4aB5cD6eF7"},
		},
		{
			question: skiQuestion, answer: skiAnswer, start: ms(95_000),
			call: toolCall{
				name: "lookup_airline_policy", id: "call_S8kI1bA9gF3eE5tP7oL2iC4y", description: policyTool.Description,
				args: map[string]any{"airline": "TP", "topic": "special_items", "route": "LIS-NRT", "fare": "economy classic"},
				result: map[string]any{
					"ski_equipment": map[string]any{"max_weight_kg": 23, "fee_online_eur": 75, "fee_airport_eur": 100, "counts_towards_allowance": false},
				},
			},
			usage: [2]semconv.Usage{{Input: 902, Output: 35, CacheRead: 640}, {Input: 1131, Output: 118, CacheRead: 896}},
			ids:   [2]string{"chatcmpl-BSe3gH8iJ9kL0mN1oP2qR3sT4uV5", "chatcmpl-BSe3wX6yZ7aB8cD9eF0gH1iJ2kL3"},
		},
	}

	var history []genai.Message
	for _, t := range turns {
		q := genai.User(genai.Text(t.question))
		history = append(history, q)
		t.call.start, t.call.end = t.start+ms(1490), t.start+ms(1730)
		callOut := genai.Assistant("tool_call", toolCallPart(t.call))
		final := genai.Assistant("stop", genai.Text(t.answer))
		in1 := append([]genai.Message{}, history...)
		in2 := append(append([]genai.Message{}, history...), callOut, genai.Tool(toolResponse(t.call)))

		s.invokeAgent(ctx, agentCall{
			Agent: travelPlanner(conversation),
			input: []genai.Message{q},
			start: t.start,
		}, func(ctx context.Context) (string, semconv.Usage, time.Duration) {
			var total semconv.Usage
			total.Add(s.chat(ctx, chatCall{
				modelSettings: planner, responseID: t.ids[0],
				input: in1, output: []genai.Message{callOut}, finishReasons: []string{"tool_calls"},
				usage: t.usage[0], start: t.start + ms(8), end: t.start + ms(1481),
			}))
			s.tool(ctx, t.call, nil)
			total.Add(s.chat(ctx, chatCall{
				modelSettings: planner, responseID: t.ids[1],
				input: in2, output: []genai.Message{final}, finishReasons: []string{"stop"},
				usage: t.usage[1], start: t.start + ms(1741), end: t.start + ms(5208),
			}))
			return t.answer, total, t.start + ms(5215)
		})
		history = append(history, final)
	}

	spans, err := s.finish()
	if err != nil {
		return nil, err
	}
	traces := splitByTrace(spans)
	if len(traces) != len(turns) {
		return nil, fmt.Errorf("recorded %d traces, want %d", len(traces), len(turns))
	}
	return traces, nil
}
