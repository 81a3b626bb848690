package main

import (
	"context"
	"fmt"
	"net/url"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/agenttrace/agenttrace/internal/agentsim/genai"
	"github.com/agenttrace/agenttrace/semconv"
)

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

	flights, weather, hotels, hotelSearch := agentRunCalls()

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
			total.Add(s.hotelFinder(ctx, conversation, hotelTask, hotelSearch, finder))
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

// hotelFinder runs the hotel finder, the planner's sub-agent, on task:
// a search and an answer.
func (s *sim) hotelFinder(ctx context.Context, conversation string, hotelTask genai.Message, hotelSearch toolCall, finder modelSettings) semconv.Usage {
	return s.invokeAgent(ctx, agentCall{
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
	})
}

// agentRunCalls returns the agent run's tool calls: the planner's three
// (one of which times out) and the hotel finder's search.
func agentRunCalls() (flights, weather, hotels, hotelSearch toolCall) {
	flights = toolCall{
		name: "search_flights", id: "call_Qx7dP2mZk9LrT4vN8sYb1WcE",
		description: plannerTools[0].Description,
		args: map[string]any{
			"origin": "LIS", "destination": "TYO", "depart_date": "2026-05-18", "return_date": "2026-05-29",
			"cabin": "economy", "passengers": 2,
		},
		result: flightOffers,
		start:  ms(2191), end: ms(3472),
	}
	weather = toolCall{
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
	hotels = toolCall{
		name: "find_hotels", id: "call_Vn4Tb9Kc2MxQ7wEr5YsL8hJf",
		description: plannerTools[2].Description,
		args: map[string]any{
			"city": "Tokyo", "check_in": "2026-05-19", "check_out": "2026-05-29", "guests": 2,
			"max_price_per_night_eur": 220, "preferences": "quiet, walkable neighbourhood near a metro line, small restaurants",
		},
		result: hotelAnswer,
		start:  ms(13031), end: ms(21640),
	}
	hotelSearch = toolCall{
		name: "search_hotels", id: "call_Zp6Ld3Gh8RkW1qNs4VxC7mTb",
		description: hotelTools[0].Description,
		args: map[string]any{
			"city": "Tokyo", "check_in": "2026-05-19", "check_out": "2026-05-29", "guests": 2, "max_price_eur": 220,
			"neighbourhoods": []string{"Yanaka", "Kiyosumi-Shirakawa", "Aoyama", "Nakameguro"},
		},
		result: hotelResults,
		start:  ms(15878), end: ms(16902),
	}
	return flights, weather, hotels, hotelSearch
}

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
