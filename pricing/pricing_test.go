package pricing

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/semconv"
)

func table(t testing.TB) *Table {
	t.Helper()
	tb, err := Default()
	require.NoError(t, err)
	return tb
}

// The expected dollars are computed by hand from the per-million prices
// prices.json (genai-prices 0.1.8) gives for each model, quoted in the
// comments; they are not the output of the code under test.
func TestCostHandComputed(t *testing.T) {
	jan := time.Date(2026, 1, 10, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name, provider, model string
		at                    time.Time
		u                     semconv.Usage
		wantModel             string
		want                  float64
	}{{
		// claude-sonnet-4-0: input 3, cache_write 3.75, cache_read 0.3,
		// output 15 $/MTok. Input 10,000 includes 4,000 read and 2,000
		// written, so 4,000 are plain input.
		name: "anthropic with cache", provider: "anthropic", model: "claude-sonnet-4-20250514", at: jan,
		u:         semconv.Usage{Input: 10_000, Output: 1_000, CacheRead: 4_000, CacheCreation: 2_000},
		wantModel: "claude-sonnet-4-0",
		want:      (4_000*3 + 4_000*0.3 + 2_000*3.75 + 1_000*15) / 1e6,
	}, {
		// gpt-4o: input 2.5, cache_read 1.25, output 10 $/MTok; no cache
		// write price, so written tokens stay input at 2.5. Reasoning is
		// not priced apart: it is output at 10.
		name: "openai, cache write unpriced", provider: "openai", model: "gpt-4o-2024-08-06", at: jan,
		u:         semconv.Usage{Input: 5_000, Output: 200, CacheRead: 1_000, CacheCreation: 500, Reasoning: 50},
		wantModel: "gpt-4o",
		want:      (4_000*2.5 + 1_000*1.25 + 200*10) / 1e6,
	}, {
		// gemini-2.5-pro, tiered by prompt size: input 1.25 (2.5 above
		// 200,000 input tokens), cache_read 0.125 (0.25), output 10 (15).
		name: "tiered below", provider: "gcp.gemini", model: "gemini-2.5-pro", at: jan,
		u:         semconv.Usage{Input: 200_000, Output: 1_000, CacheRead: 100_000},
		wantModel: "gemini-2.5-pro",
		want:      (100_000*1.25 + 100_000*0.125 + 1_000*10) / 1e6,
	}, {
		name: "tiered above", provider: "gcp.gemini", model: "gemini-2.5-pro", at: jan,
		u:         semconv.Usage{Input: 250_000, Output: 1_000, CacheRead: 100_000},
		wantModel: "gemini-2.5-pro",
		want:      (150_000*2.5 + 100_000*0.25 + 1_000*15) / 1e6,
	}, {
		// claude-opus-4-6 before 2026-03-13: input 5 (10 above 200,000),
		// output 25 (37.5); from that date flat 5 and 25.
		name: "price change by date, before", provider: "anthropic", model: "claude-opus-4-6", at: jan,
		u:         semconv.Usage{Input: 300_000, Output: 2_000},
		wantModel: "claude-opus-4-6",
		want:      (300_000*10 + 2_000*37.5) / 1e6,
	}, {
		name: "price change by date, after", provider: "anthropic", model: "claude-opus-4-6",
		at:        time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC),
		u:         semconv.Usage{Input: 300_000, Output: 2_000},
		wantModel: "claude-opus-4-6",
		want:      (300_000*5 + 2_000*25) / 1e6,
	}, {
		// deepseek-chat: 0.27 in / 0.07 cache read / 1.1 out from 00:30
		// to 16:30 UTC, else 0.135 / 0.035 / 0.55.
		name: "time of day, peak", provider: "deepseek", model: "deepseek-chat",
		at:        time.Date(2026, 1, 10, 2, 0, 0, 0, time.UTC),
		u:         semconv.Usage{Input: 10_000, Output: 1_000, CacheRead: 2_000},
		wantModel: "deepseek-chat",
		want:      (8_000*0.27 + 2_000*0.07 + 1_000*1.1) / 1e6,
	}, {
		name: "time of day, off peak", provider: "deepseek", model: "deepseek-chat",
		at:        time.Date(2026, 1, 10, 20, 0, 0, 0, time.UTC),
		u:         semconv.Usage{Input: 10_000, Output: 1_000, CacheRead: 2_000},
		wantModel: "deepseek-chat",
		want:      (8_000*0.135 + 2_000*0.035 + 1_000*0.55) / 1e6,
	}, {
		// sonar-deep-research prices reasoning apart: input 2, output 8,
		// output_reasoning 3 $/MTok; output 1,000 includes 400 reasoning.
		name: "reasoning priced apart", provider: "perplexity", model: "sonar-deep-research", at: jan,
		u:         semconv.Usage{Input: 1_000, Output: 1_000, Reasoning: 400},
		wantModel: "sonar-deep-research",
		want:      (1_000*2 + 600*8 + 400*3) / 1e6,
	}, {
		// No provider: the data's model_match finds openai; the compact
		// date is retried with dashes, as the data lists it.
		name: "no provider, dated id", model: "gpt-5-mini-20250807", at: jan,
		u:         semconv.Usage{Input: 1_000_000},
		wantModel: "gpt-5-mini",
		want:      0.25, // gpt-5-mini: input 0.25 $/MTok × 1 MTok
	}}
	tb := table(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := tb.UsageCost(tt.provider, tt.model, tt.at, tt.u)
			require.Equal(t, FromPrices, c.Source)
			assert.Equal(t, tt.wantModel, c.Model.ID)
			assert.InDelta(t, tt.want, c.USD, 1e-12)
		})
	}
}

func TestUnknownModelsAreUnknown(t *testing.T) {
	tb := table(t)
	for _, c := range []struct{ provider, model string }{
		{"", "my-local-llama"}, {"openai", "not-a-model"}, {"anthropic", ""}, {"ollama", "llama3.2"},
	} {
		got := tb.UsageCost(c.provider, c.model, time.Now(), semconv.Usage{Input: 100, Output: 100})
		assert.False(t, got.Known(), "%s/%s", c.provider, c.model)
		assert.Equal(t, "unknown", got.Source.String())
	}
}

func TestLookupFollowsTheData(t *testing.T) {
	tb := table(t)
	tests := []struct{ provider, model, wantProvider, wantID string }{
		{"x_ai", "grok-4", "x-ai", "grok-4-0709"},
		{"gcp.gemini", "gemini-2.5-pro-preview-tts", "google", "gemini-2.5-pro-tts"}, // the lookahead regex excludes TTS from gemini-2.5-pro
		{"openai", "deepseek-chat", "deepseek", "deepseek-chat"},                     // an OpenAI-compatible client
		{"mistral_ai", "mistral-large-latest", "mistral", "mistral-large"},
		{"litellm", "anthropic/claude-sonnet-4-20250514", "anthropic", "claude-sonnet-4-0"},
		{"", "anthropic/claude-sonnet-4-5", "anthropic", "claude-sonnet-4-5"}, // an ATIF model_name
		{"openai", "openai/gpt-4o", "openai", "gpt-4o"},
		{"", "GPT-4o", "openai", "gpt-4o"},
	}
	for _, tt := range tests {
		m := tb.Lookup(tt.provider, tt.model)
		require.NotNil(t, m, "%s/%s", tt.provider, tt.model)
		assert.Equal(t, tt.wantProvider, m.Provider, tt.model)
		assert.Equal(t, tt.wantID, m.ID, tt.model)
	}
}

func TestDashDates(t *testing.T) {
	assert.Equal(t, "gpt-5-mini-2025-08-07", dashDates("gpt-5-mini-20250807"))
	assert.Equal(t, "x-2025-01-02:free", dashDates("x-20250102:free"))
	assert.Equal(t, "x-20251399", dashDates("x-20251399"), "not a date")
	assert.Equal(t, "x-20250230", dashDates("x-20250230"), "no such day")
}

func TestSpanCost(t *testing.T) {
	tb := table(t)
	sp := ptrace.NewSpan()
	sp.SetName("chat gpt-4o")
	sp.SetStartTimestamp(pcommon.NewTimestampFromTime(time.Date(2026, 1, 10, 0, 0, 0, 0, time.UTC)))
	a := sp.Attributes()
	a.PutStr(semconv.OperationName, "chat")
	a.PutStr(semconv.ProviderName, "openai")
	a.PutStr(semconv.ResponseModel, "gpt-4o")
	u := semconv.Usage{Input: 1_000, Output: 100}
	var rd semconv.Reading
	semconv.Read(&rd, sp.Name(), sp.Attributes(), false)
	c := tb.SpanCost(sp, &rd, u)
	assert.Equal(t, FromPrices, c.Source)
	assert.InDelta(t, (1_000*2.5+100*10)/1e6, c.USD, 1e-12) // gpt-4o: 2.5 in, 10 out

	c = tb.SpanCost(sp, &rd, semconv.Usage{})
	assert.False(t, c.Known(), "a call that reports no usage has no known cost, not $0")

	a.PutDouble(semconv.UsageCost, 0.5)
	semconv.Read(&rd, sp.Name(), sp.Attributes(), false)
	c = tb.SpanCost(sp, &rd, u)
	assert.Equal(t, Cost{USD: 0.5, Source: FromSpan}, c, "the span's own cost wins")

	a.Remove(semconv.UsageCost)
	a.PutStr(semconv.LFCostDetails, `{"input":0.1,"output":0.2,"total":0.3}`)
	semconv.Read(&rd, sp.Name(), sp.Attributes(), false)
	c = tb.SpanCost(sp, &rd, u)
	assert.Equal(t, Cost{USD: 0.3, Source: FromSpan}, c, "Langfuse's cost_details total")

	a.PutStr(semconv.LFCostDetails, `{"total":-1}`)
	semconv.Read(&rd, sp.Name(), sp.Attributes(), false)
	assert.Equal(t, FromPrices, tb.SpanCost(sp, &rd, u).Source, "a negative reported cost is no cost")
}

func TestLoadBadData(t *testing.T) {
	tests := []struct{ name, data, want string }{
		{"not json", `{`, "prices.json: unexpected end of JSON input"},
		{"no providers", `{"providers":[]}`, "no providers"},
		{"bad match", `{"providers":[{"id":"p","models":[{"id":"m","match":{"sounds_like":"x"},"prices":{}}]}]}`, `unknown match "sounds_like"`},
		{"bad regex", `{"providers":[{"id":"p","models":[{"id":"m","match":{"regex":"("},"prices":{}}]}]}`, `regex "("`},
		{"bad price", `{"providers":[{"id":"p","models":[{"id":"m","match":{"equals":"m"},"prices":{"input_mtok":"cheap"}}]}]}`, "price input_mtok"},
		{"bad constraint", `{"providers":[{"id":"p","models":[{"id":"m","match":{"equals":"m"},"prices":[{"constraint":{"type":"moon_phase"},"prices":{}}]}]}]}`, `unknown price constraint "moon_phase"`},
		{"bad date", `{"providers":[{"id":"p","models":[{"id":"m","match":{"equals":"m"},"prices":[{"constraint":{"type":"start_date","start_date":"soon"},"prices":{}}]}]}]}`, `start_date "soon"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load([]byte(tt.data), "prices.json")
			require.Error(t, err)
			assert.True(t, errors.Is(err, ErrBadData))
			assert.Contains(t, err.Error(), "prices.json")
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestVendoredDataLoads(t *testing.T) {
	tb := table(t)
	assert.NotEmpty(t, tb.Version)
	assert.Greater(t, len(tb.providers), 10)
}

func FuzzLoad(f *testing.F) {
	f.Add([]byte(`{"providers":[{"id":"p","provider_match":{"contains":"p"},"models":[{"id":"m","match":{"or":[{"regex":"^m"},{"equals":"n"}]},"prices":[{"prices":{"input_mtok":{"base":1,"tiers":[{"start":10,"price":2}]}}},{"constraint":{"type":"time_of_date","start_time":"20:00:00Z","end_time":"04:00:00+02:00"},"prices":{"output_mtok":3}}]}]}]}`))
	f.Add([]byte(`{"providers":[{"id":"p","models":[]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		tb, err := Load(data, "fuzz.json")
		if err != nil {
			if !errors.Is(err, ErrBadData) {
				t.Fatalf("error without ErrBadData: %v", err)
			}
			return
		}
		if m := tb.Lookup("p", "m"); m != nil {
			c := m.At(time.Unix(0, 0)).Cost(semconv.Usage{Input: 20, Output: 5, CacheRead: 30})
			if c < 0 {
				t.Fatalf("negative cost %g", c)
			}
		}
	})
}
