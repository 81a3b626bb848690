package agentsim

import (
	"time"

	"github.com/agenttrace/agenttrace/internal/agentsim/genai"
)

// The scripted run: a planner books a speaker's trip to a conference. It
// asks for trains and flights at once (the flight search is down), hands
// the hotels to hotel-scout, which searches and shortlists, and writes the
// plan. Texts have realistic lengths (half a kilobyte to two) so that
// token counts and artifact sizes look like a real run's.

const tripRequest = `Hi! I'm giving a talk at the Spree Infrastructure Forum in Berlin on Tuesday 16 June 2026 at 10:00 ` +
	`(venue: Spree Conference Centre, Holzmarktstraße 25). I live in Amsterdam and would like to travel on Monday 15 June ` +
	`and come back on Wednesday 17 June, leaving after 14:00 so I can attend the closing keynote. ` +
	`I prefer the train if it takes less than about seven hours door to door; otherwise a morning flight is fine. ` +
	`Company policy: economy or second class, hotels up to €180 per night, and the hotel must be within 20 minutes of the venue ` +
	`by public transport. Could you put together a plan with times and prices so I can send it to our travel desk?`

const plannerInstructions = `You are Planner, a business-travel assistant. ` +
	`Work out the traveller's constraints first: dates, times they must be somewhere, class of travel and the company's limits. ` +
	`Use search_trains and search_flights to compare ground and air options; for trips under seven hours prefer the train ` +
	`and say why. Delegate accommodation to the hotel scout through find_hotels and never invent hotels, prices or ` +
	`availability. Quote prices in the currency the tools return, say whether they are one way or return, and flag anything ` +
	`that breaks the company's policy. If a tool fails, mention it in one sentence and carry on with what you have; do not ` +
	`retry more than once. End with a short itinerary and a list of what the travel desk still has to book.`

const scoutInstructions = `You are Hotel Scout, a sub-agent that shortlists hotels. ` +
	`Call search_hotels once with the city, dates, nightly limit and the address the traveller must reach. ` +
	`Keep only hotels within the travel-time limit, rank them by travel time, then rating, then price, ` +
	`and return at most three with the nightly and total price, the route to the address and one line on why each fits.`

var plannerTools = []genai.ToolDef{
	genai.Function("search_trains",
		"Search rail connections between two stations for a date, with departure and arrival times, changes and fares.",
		map[string]any{
			"origin":      genai.StringParam("station name"),
			"destination": genai.StringParam("station name"),
			"date":        genai.DateParam(),
			"return_date": genai.DateParam(),
			"earliest":    genai.StringParam("earliest departure, HH:MM, per leg"),
			"class":       genai.EnumParam("first", "second"),
		},
		"origin", "destination", "date"),
	genai.Function("search_flights",
		"Search scheduled flights between two airports and return fares per itinerary.",
		map[string]any{
			"origin":      genai.StringParam("IATA code"),
			"destination": genai.StringParam("IATA code"),
			"depart_date": genai.DateParam(),
			"return_date": genai.DateParam(),
			"cabin":       genai.EnumParam("economy", "business"),
		},
		"origin", "destination", "depart_date"),
	genai.Function("find_hotels",
		"Ask the hotel scout for a ranked shortlist of hotels near an address.",
		map[string]any{
			"city":                    genai.StringParam(""),
			"near":                    genai.StringParam("address the traveller must reach"),
			"check_in":                genai.DateParam(),
			"check_out":               genai.DateParam(),
			"max_price_per_night_eur": genai.NumberParam(),
			"max_transit_minutes":     genai.IntegerParam(),
		},
		"city", "near", "check_in", "check_out"),
}

var scoutTools = []genai.ToolDef{genai.Function("search_hotels",
	"Search hotel availability for a city and dates, with prices, ratings and public-transport time to an address.",
	map[string]any{
		"city":          genai.StringParam(""),
		"check_in":      genai.DateParam(),
		"check_out":     genai.DateParam(),
		"max_price_eur": genai.NumberParam(),
		"transit_to":    genai.StringParam(""),
	},
	"city", "check_in", "check_out")}

var trainOffers = map[string]any{
	"currency": "EUR",
	"outbound": []map[string]any{
		{"train": "ICE 147", "depart": "2026-06-15T08:00+02:00", "arrive": "2026-06-15T14:22+02:00", "from": "Amsterdam Centraal", "to": "Berlin Ostbahnhof", "changes": 0, "fare_second": 59.90, "fare_second_flex": 89.90},
		{"train": "ICE 149", "depart": "2026-06-15T10:00+02:00", "arrive": "2026-06-15T16:22+02:00", "from": "Amsterdam Centraal", "to": "Berlin Ostbahnhof", "changes": 0, "fare_second": 49.90, "fare_second_flex": 89.90},
	},
	"inbound": []map[string]any{
		{"train": "ICE 144", "depart": "2026-06-17T14:37+02:00", "arrive": "2026-06-17T21:00+02:00", "from": "Berlin Ostbahnhof", "to": "Amsterdam Centraal", "changes": 0, "fare_second": 69.90, "fare_second_flex": 89.90},
	},
	"note": "Fares are per person, one way, and include a seat reservation.",
}

var flightsDown = &upstreamError{service: "flights.example", code: 503, status: "Service Unavailable"}

var hotelResults = map[string]any{
	"currency": "EUR",
	"nights":   2,
	"results": []map[string]any{
		{"name": "Michelberger Hotel", "area": "Friedrichshain", "rating": 8.6, "price_per_night": 149, "price_total": 298, "transit_minutes": 9, "route": "S-Bahn Warschauer Str. to Jannowitzbrücke, 4 min walk", "free_cancellation": true},
		{"name": "Hotel Klee am Spreeufer", "area": "Mitte", "rating": 8.9, "price_per_night": 172, "price_total": 344, "transit_minutes": 12, "route": "U8 Heinrich-Heine-Str., 6 min walk", "free_cancellation": true},
		{"name": "Ostkreuz Lodge", "area": "Rummelsburg", "rating": 8.1, "price_per_night": 118, "price_total": 236, "transit_minutes": 19, "route": "S3 Ostkreuz to Jannowitzbrücke", "free_cancellation": false},
		{"name": "Hotel am Gendarmenmarkt", "area": "Mitte", "rating": 9.2, "price_per_night": 239, "price_total": 478, "transit_minutes": 14, "route": "U2 Hausvogteiplatz, change at Alexanderplatz", "free_cancellation": true},
	},
}

const scoutTask = `Find a hotel in Berlin for one guest, checking in on Monday 15 June 2026 and out on Wednesday 17 June. ` +
	`The guest is speaking at the Spree Conference Centre, Holzmarktstraße 25, 10243 Berlin, at 10:00 on Tuesday and must get there ` +
	`in at most 20 minutes by public transport. Company policy caps the room at €180 per night. The guest arrives at Berlin Ostbahnhof ` +
	`at 14:22 on Monday and prefers a quiet room; free cancellation is a plus because the talk schedule may still change.`

const scoutAnswer = `Shortlist for Berlin, 15–17 June 2026 (2 nights), within 20 minutes of Holzmarktstraße 25 and under €180 a night:

1. Michelberger Hotel (Friedrichshain) — €149/night, €298 total. 9 minutes: S-Bahn from Warschauer Straße to Jannowitzbrücke, then 4 minutes on foot. Rated 8.6, free cancellation. Closest to the venue, and quiet rooms face the courtyard.
2. Hotel Klee am Spreeufer (Mitte) — €172/night, €344 total. 12 minutes: U8 to Heinrich-Heine-Straße and a 6-minute walk along the river. Rated 8.9, free cancellation.
3. Ostkreuz Lodge (Rummelsburg) — €118/night, €236 total. 19 minutes on the S3, right at the limit, and not refundable.

Hotel am Gendarmenmarkt (€239/night) is over the company limit, so I left it out.`

const planAnswer = `Here is your plan for the Spree Infrastructure Forum, 15–17 June 2026.

Getting there — train (recommended): the direct ICE takes 6h22m, under your seven-hour limit, and ends a short walk from the venue.
• Mon 15 June: ICE 147, Amsterdam Centraal 08:00 → Berlin Ostbahnhof 14:22, second class €59.90 (flexible fare €89.90).
• Wed 17 June: ICE 144, Berlin Ostbahnhof 14:37 → Amsterdam Centraal 21:00, second class €69.90 (flexible €89.90).
Total €129.80 with saver fares, €179.80 flexible. I suggest the flexible fares: the return is tight after the closing keynote.
Flights: the flight search was unavailable (the service returned 503), so I couldn't compare; at 6h22m the train is within policy anyway.

Hotel: Michelberger Hotel, Friedrichshain, 15–17 June, €149/night, €298 for two nights, free cancellation. 9 minutes to the venue by S-Bahn. Alternative: Hotel Klee am Spreeufer, €172/night.

Itinerary:
• Mon: arrive 14:22, check in, evening free (speaker dinner?).
• Tue: 9 minutes to the venue; your talk at 10:00.
• Wed: closing keynote, check out, 14:37 train home.

Estimated total: €427.80 (saver fares) or €477.80 (flexible), all within policy.
For the travel desk to book: both ICE tickets with seat reservations, and the hotel.`

var planner = agent{
	name: "planner", id: "agent_planner_01JV3Q8N5K", description: "Plans business trips: trains, flights, hotels and an itinerary.",
	model: "gpt-4.1", responseModel: "gpt-4.1-2025-04-14", conversationID: "conv_5e1d7a0b9c3f4e2d8a6b1c0f7e9d2a4b",
	temperature: 0.2, maxTokens: 2048,
	system: plannerInstructions, tools: plannerTools,
	replies: []reply{
		{
			responseID: "chatcmpl-CVx1aQ7mT2pK9sL4nW8rY3zE6bF0",
			text:       "I'll compare the direct train with a morning flight for Monday 15 June and the return on Wednesday afternoon.",
			calls: []toolCall{
				{
					id: "call_T9rN2kW5xQ8mL3vB7cY1pD4s", name: "search_trains", latency: 840 * time.Millisecond,
					args: map[string]any{"origin": "Amsterdam Centraal", "destination": "Berlin Ostbahnhof", "date": "2026-06-15",
						"return_date": "2026-06-17", "earliest": "14:00", "class": "second"},
				},
				{
					id: "call_F4lG8hJ1kM6nP0qR3sT7uV2w", name: "search_flights", latency: 410 * time.Millisecond,
					args: map[string]any{"origin": "AMS", "destination": "BER", "depart_date": "2026-06-15", "return_date": "2026-06-17", "cabin": "economy"},
				},
			},
			latency: 1930 * time.Millisecond,
		},
		{
			responseID: "chatcmpl-CVx1qB3nV8wX2yZ5aC9dE4fG7hJ1",
			calls: []toolCall{{
				id: "call_H6sK1mQ9pL4tW7xN2bV5cZ8d", name: "find_hotels", latency: 6 * time.Millisecond,
				args: map[string]any{"city": "Berlin", "near": "Holzmarktstraße 25, 10243 Berlin", "check_in": "2026-06-15",
					"check_out": "2026-06-17", "max_price_per_night_eur": 180, "max_transit_minutes": 20},
				task: scoutTask,
			}},
			latency: 1120 * time.Millisecond,
		},
		{
			responseID: "chatcmpl-CVx2fK5pR1sT8uW3xY6zA0bC4dE9",
			text:       planAnswer,
			latency:    7480 * time.Millisecond,
		},
	},
}

var hotelScout = agent{
	name: "hotel-scout", id: "agent_scout_01JV3QB2XM", description: "Shortlists hotels near an address within a nightly budget.",
	model: "o4-mini", responseModel: "o4-mini-2025-04-16", maxTokens: 4096,
	system: scoutInstructions, tools: scoutTools,
	replies: []reply{
		{
			responseID: "chatcmpl-CVx1wL2mN7pQ4rS9tU1vW6xY3zA8",
			calls: []toolCall{{
				id: "call_S3dF7gH2jK9lZ4xC8vB1nM5q", name: "search_hotels", latency: 1190 * time.Millisecond,
				args: map[string]any{"city": "Berlin", "check_in": "2026-06-15", "check_out": "2026-06-17", "max_price_eur": 180,
					"transit_to": "Holzmarktstraße 25, 10243 Berlin"},
			}},
			reasoning: 512,
			latency:   2640 * time.Millisecond,
		},
		{
			responseID: "chatcmpl-CVx2bE8fG3hJ6kL1mN4pQ9rS2tU7",
			text:       scoutAnswer,
			reasoning:  320,
			latency:    4810 * time.Millisecond,
		},
	},
}
