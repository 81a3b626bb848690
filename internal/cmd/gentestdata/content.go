package main

import "github.com/agenttrace/agenttrace/internal/agentsim/genai"

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
