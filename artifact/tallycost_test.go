package artifact_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/internal/artifacttest"
	"github.com/agenttrace/agenttrace/pricing"
	"github.com/agenttrace/agenttrace/semconv"
)

// update rewrites testdata/cost-budget.golden (TestCostBudgetGolden).
var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// call is a model call of a test trace, in the order spans end.
type call struct {
	id, parent       byte
	kind             string // "chat" (default) or "agent"
	provider, model  string
	in, out, read    int64
	write, reasoning int64
	cost             float64 // gen_ai.usage.cost, when not 0
}

// costTrace makes one trace of the calls, each span in its own resource
// spans so that artifact.Records keeps the given order. Prices change
// by date: every call starts on 2026-01-10.
func costTrace(calls []call) ptrace.Traces {
	td := ptrace.NewTraces()
	start := pcommon.NewTimestampFromTime(time.Date(2026, 1, 10, 12, 0, 0, 0, time.UTC))
	for _, c := range calls {
		sp := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans().AppendEmpty()
		sp.SetTraceID(pcommon.TraceID{0xc0, 0x57})
		sp.SetSpanID(pcommon.SpanID{c.id})
		if c.parent != 0 {
			sp.SetParentSpanID(pcommon.SpanID{c.parent})
		}
		sp.SetStartTimestamp(start)
		sp.SetEndTimestamp(start + pcommon.Timestamp(c.id)*1e6)
		a := sp.Attributes()
		if c.kind == "agent" {
			sp.SetName("invoke_agent planner")
			a.PutStr(semconv.OperationName, "invoke_agent")
			continue
		}
		sp.SetName("chat " + c.model)
		a.PutStr(semconv.OperationName, "chat")
		a.PutStr(semconv.ProviderName, c.provider)
		a.PutStr(semconv.RequestModel, c.model)
		for k, v := range map[string]int64{
			semconv.UsageInputTokens: c.in, semconv.UsageOutputTokens: c.out,
			semconv.UsageCacheReadInput: c.read, semconv.UsageCacheCreationInput: c.write,
			semconv.UsageReasoningOutput: c.reasoning,
		} {
			if v != 0 {
				a.PutInt(k, v)
			}
		}
		if c.cost != 0 {
			a.PutDouble(semconv.UsageCost, c.cost)
		}
	}
	return td
}

func tallyOf(td ptrace.Traces) *artifact.Tally {
	var t artifact.Tally
	recs := artifact.Records(td)
	for i := range recs {
		t.Add(&recs[i])
	}
	return &t
}

// The expected dollars are computed by hand from the rows of
// pricing/prices.json (genai-prices 0.1.8), in $ per million tokens,
// quoted beside each case; they are not the output of the code tested.
func TestTallyCost(t *testing.T) {
	tests := []struct {
		name  string
		calls []call
		want  pricing.Total // Nanos: the hand-computed dollars × 1e9
	}{{
		// openai gpt-4o: input 2.5, cache_read 1.25, output 10. Input
		// 1,000 includes 200 read: 800 × 2.5 + 200 × 1.25 + 100 × 10 =
		// 3,250 $/M = $0.00325.
		name:  "gpt-4o with cache read",
		calls: []call{{id: 1, provider: "openai", model: "gpt-4o-2024-08-06", in: 1_000, out: 100, read: 200}},
		want:  pricing.Total{Nanos: 3_250_000, Known: 1},
	}, {
		// anthropic claude-sonnet-4-0: input 3, cache_write 3.75,
		// cache_read 0.3, output 15. Input 10,000 includes 4,000 read
		// and 2,000 written: 4,000 × 3 + 4,000 × 0.3 + 2,000 × 3.75 +
		// 1,000 × 15 = 35,700 $/M = $0.0357.
		name:  "claude-sonnet-4 with cache read and write",
		calls: []call{{id: 1, provider: "anthropic", model: "claude-sonnet-4-20250514", in: 10_000, out: 1_000, read: 4_000, write: 2_000}},
		want:  pricing.Total{Nanos: 35_700_000, Known: 1},
	}, {
		// openai gpt-4o-mini: input 0.15, cache_read 0.075, output 0.6:
		// 2,000 × 0.15 + 500 × 0.6 = 600 $/M = $0.0006. anthropic
		// claude-3-5-haiku-latest: input 0.8, cache_read 0.08, output 4:
		// 3,000 × 0.8 + 1,000 × 0.08 + 400 × 4 = 4,080 $/M = $0.00408.
		// google gemini-2.0-flash: input 0.1, output 0.4: 10,000 × 0.1 +
		// 1,000 × 0.4 = 1,400 $/M = $0.0014. Under one agent.
		name: "three models in one run",
		calls: []call{
			{id: 2, parent: 1, provider: "openai", model: "gpt-4o-mini", in: 2_000, out: 500},
			{id: 3, parent: 1, provider: "anthropic", model: "claude-3-5-haiku-latest", in: 4_000, out: 400, read: 1_000},
			{id: 4, parent: 1, provider: "gcp.gemini", model: "gemini-2.0-flash", in: 10_000, out: 1_000},
			{id: 1, kind: "agent"},
		},
		want: pricing.Total{Nanos: 600_000 + 4_080_000 + 1_400_000, Known: 3},
	}, {
		// A cost the span reports wins over the data's price ($0.00325
		// for this usage of gpt-4o).
		name:  "a span's own cost wins",
		calls: []call{{id: 1, provider: "openai", model: "gpt-4o", in: 1_000, out: 100, read: 200, cost: 0.5}},
		want:  pricing.Total{Nanos: 500_000_000, Known: 1, FromSpan: 1},
	}, {
		// A model the data does not know is unknown: nothing added, one
		// unpriced call; the gpt-4o call beside it is $0.00325 as above.
		name: "unknown model",
		calls: []call{
			{id: 1, provider: "acme", model: "acme-private-7b", in: 5_000, out: 500},
			{id: 2, provider: "openai", model: "gpt-4o", in: 1_000, out: 100, read: 200},
		},
		want: pricing.Total{Nanos: 3_250_000, Known: 1, Unknown: 1},
	}, {
		// A call that reports no usage has an unknown cost, not $0.
		name:  "no usage",
		calls: []call{{id: 1, provider: "openai", model: "gpt-4o"}},
		want:  pricing.Total{Unknown: 1},
	}, {
		// A chat wrapping a chat (two instrumentations): the wrapper ends
		// last and repeats its child's usage; only the leaf is priced
		// (gpt-4o-mini, 2,000 × 0.15 + 500 × 0.6 = $0.0006).
		name: "wrapper ends after its child",
		calls: []call{
			{id: 2, parent: 1, provider: "openai", model: "gpt-4o-mini", in: 2_000, out: 500},
			{id: 1, provider: "openai", model: "gpt-4o-mini", in: 2_000, out: 500},
		},
		want: pricing.Total{Nanos: 600_000, Known: 1},
	}, {
		// The same, the child's span closing after its parent's (a stream):
		// the parent was counted first and gives its dollars back.
		name: "wrapper ends before its child",
		calls: []call{
			{id: 1, provider: "openai", model: "gpt-4o", in: 2_000, out: 500, cost: 7},
			{id: 2, parent: 1, provider: "openai", model: "gpt-4o-mini", in: 2_000, out: 500},
		},
		want: pricing.Total{Nanos: 600_000, Known: 1},
	}, {
		// The same with the parent priced from the data ($0.01 for this
		// usage of gpt-4o): its priced dollars go back.
		name: "priced wrapper ends before its child",
		calls: []call{
			{id: 1, provider: "openai", model: "gpt-4o", in: 2_000, out: 500},
			{id: 2, parent: 1, provider: "openai", model: "gpt-4o-mini", in: 2_000, out: 500},
		},
		want: pricing.Total{Nanos: 600_000, Known: 1},
	}, {
		// The same with a parent the data does not price: it is no
		// longer an unpriced call.
		name: "unpriced wrapper ends before its child",
		calls: []call{
			{id: 1, provider: "acme", model: "acme-private-7b", in: 2_000, out: 500},
			{id: 2, parent: 1, provider: "openai", model: "gpt-4o-mini", in: 2_000, out: 500},
		},
		want: pricing.Total{Nanos: 600_000, Known: 1},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tallyOf(costTrace(tt.calls)).Cost()
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestCostBudgetStatus(t *testing.T) {
	// Two gpt-4o calls of $0.00325 each (see TestTallyCost): $0.0065.
	calls := []call{
		{id: 1, provider: "openai", model: "gpt-4o", in: 1_000, out: 100, read: 200},
		{id: 2, provider: "openai", model: "gpt-4o", in: 1_000, out: 100, read: 200},
		{id: 3, provider: "acme", model: "acme-private-7b", in: 10, out: 1},
	}
	tests := []struct {
		name   string
		budget artifact.Budget
		want   *artifact.CostBudget
	}{
		{"no cost budget", artifact.Budget{Tokens: 100_000}, nil},
		{"under", artifact.Budget{USD: 0.01}, &artifact.CostBudget{BudgetUSD: 0.01, SpentUSD: 0.0065, RemainingUSD: sub(0.01, 0.0065), UnpricedCalls: 1}},
		// 0.5 × $0.01 = $0.005 ≤ $0.0065 < $0.01.
		{"near", artifact.Budget{USD: 0.01, WarnThreshold: 0.5}, &artifact.CostBudget{BudgetUSD: 0.01, SpentUSD: 0.0065, RemainingUSD: sub(0.01, 0.0065), NearBudgetUSD: true, UnpricedCalls: 1}},
		{"over", artifact.Budget{USD: 0.006}, &artifact.CostBudget{BudgetUSD: 0.006, SpentUSD: 0.0065, OverBudgetUSD: true, UnpricedCalls: 1}},
		{"exactly used up", artifact.Budget{USD: 0.0065}, &artifact.CostBudget{BudgetUSD: 0.0065, SpentUSD: 0.0065, OverBudgetUSD: true, UnpricedCalls: 1}},
	}
	tl := tallyOf(costTrace(calls))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sum := tl.Summary(&tt.budget)
			require.NotNil(t, sum.Budget)
			assert.Equal(t, tt.want, sum.Budget.CostBudget)
			// The token members keep their meaning: no token budget, never
			// over it, whatever the dollars say.
			assert.Equal(t, tt.budget.Tokens > 0 && sum.Budget.Spent >= tt.budget.Tokens, sum.Budget.OverBudget)
		})
	}
}

// sub is a − b at run time, as a writer computes remaining_usd (the
// compiler would compute a constant exactly).
func sub(a, b float64) float64 { return a - b }

// A header's cost budget and the trailer's dollar members survive
// JSONL -> OTLP -> JSONL, byte for byte, and decode to what was written.
func TestCostBudgetRoundTrip(t *testing.T) {
	for _, b := range []artifact.Budget{{USD: 0.006}, {Tokens: 5000, USD: 2.5, WarnThreshold: 0.5}, {Tokens: 5000}} {
		td := costTrace([]call{{id: 1, provider: "openai", model: "gpt-4o", in: 1_000, out: 100, read: 200}})
		recs := artifact.Records(td)
		meta := artifact.MetaFor(recs)
		meta.Budget = &b
		var j1 bytes.Buffer
		w := artifact.NewWriter(&j1, meta)
		for i := range recs {
			require.NoError(t, w.Write(&recs[i]))
		}
		require.NoError(t, w.Close())
		if b.USD > 0 {
			assert.Contains(t, j1.String(), `"budget_usd":`)
			assert.Contains(t, j1.String(), `"spent_usd":0.00325`)
		} else {
			assert.NotContains(t, j1.String(), `_usd`, "no cost budget, no dollar members")
		}

		back, r := artifacttest.ReadBytes(t, j1.Bytes())
		require.NotNil(t, r.Meta().Budget)
		want := b
		want.WarnThreshold = b.Threshold() // written out, 0.8 by default
		assert.Equal(t, want, *r.Meta().Budget)
		otlp := artifact.ToTraces(back)
		res := otlp.ResourceSpans().At(0).Resource().Attributes()
		usd, ok := res.Get(semconv.BudgetUSD)
		assert.Equal(t, b.USD > 0, ok, "agenttrace.budget.usd in OTLP")
		if ok {
			assert.Equal(t, pcommon.ValueTypeDouble, usd.Type())
			assert.Equal(t, b.USD, usd.Double())
		}
		_, hasTokens := res.Get(semconv.BudgetTokens)
		assert.Equal(t, b.Tokens > 0, hasTokens, "a cost budget alone puts no token budget in OTLP")

		j2 := artifacttest.Encode(t, otlp)
		assert.Equal(t, headerAndTrailer(j1.Bytes()), headerAndTrailer(j2))
		_, r2 := artifacttest.ReadBytes(t, j2)
		require.NotNil(t, r2.Summary())
		assert.Equal(t, b.USD > 0, r2.Summary().Budget.CostBudget != nil)
	}
}

// headerAndTrailer returns an artifact's first and last lines.
func headerAndTrailer(b []byte) [2]string {
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	return [2]string{lines[0], lines[len(lines)-1]}
}

// A trailer's dollar members decode to what they say; a trailer without
// them has no cost budget.
func TestDecodeCostBudget(t *testing.T) {
	const art = `{"v":1,"kind":"meta","started_at":"2026-01-10T12:00:00Z","budget":{"budget_tokens":0,"budget_usd":0.01,"warn_threshold":0.8}}
{"kind":"summary","finished_at":"2026-01-10T12:00:01Z","complete":true,"records":0,"calls":0,"inferences":0,"agents":0,"spans":0,"errors":0,"tokens":{"input":0,"output":0,"cache_read":0,"cache_creation":0,"reasoning":0,"total":0},"budget":{"budget_tokens":0,"spent":0,"remaining":0,"over_budget":false,"near_budget":false,"warn_threshold":0.8,"budget_usd":0.01,"spent_usd":0.012,"remaining_usd":0,"over_budget_usd":true,"near_budget_usd":false,"unpriced_calls":2,"future_member":[1]},"dropped":0}
`
	_, r := artifacttest.ReadBytes(t, []byte(art))
	assert.Equal(t, &artifact.Budget{USD: 0.01, WarnThreshold: 0.8}, r.Meta().Budget)
	require.NotNil(t, r.Summary())
	assert.Equal(t, &artifact.CostBudget{BudgetUSD: 0.01, SpentUSD: 0.012, OverBudgetUSD: true, UnpricedCalls: 2}, r.Summary().Budget.CostBudget)
}

// TestCostBudgetGolden pins the bytes of a header and trailer with a cost
// budget (docs/format.md §3, §10): a run of three priced models, a call of
// unknown price and a wrapper (see TestTallyCost for the dollars: $0.0006
// + $0.00408 + $0.0014 = $0.00608 known), held to 10,000 tokens and $0.006.
// Run with -update to accept a change, which must come with the docs'.
func TestCostBudgetGolden(t *testing.T) {
	td := costTrace([]call{
		{id: 2, parent: 1, provider: "openai", model: "gpt-4o-mini", in: 2_000, out: 500},
		{id: 3, parent: 1, provider: "anthropic", model: "claude-3-5-haiku-latest", in: 4_000, out: 400, read: 1_000},
		{id: 5, parent: 4, provider: "gcp.gemini", model: "gemini-2.0-flash", in: 10_000, out: 1_000},
		{id: 4, parent: 1, provider: "gcp.gemini", model: "gemini-2.0-flash", in: 10_000, out: 1_000},
		{id: 6, parent: 1, provider: "acme", model: "acme-private-7b", in: 100, out: 10},
		{id: 1, kind: "agent"},
	})
	recs := artifact.Records(td)
	meta := artifact.MetaFor(recs)
	meta.Budget = &artifact.Budget{Tokens: 10_000, USD: 0.006}
	var buf bytes.Buffer
	w := artifact.NewWriter(&buf, meta)
	for i := range recs {
		require.NoError(t, w.Write(&recs[i]))
	}
	require.NoError(t, w.Close())
	got := headerAndTrailer(buf.Bytes())
	golden := filepath.Join("testdata", "cost-budget.golden")
	if *update {
		require.NoError(t, os.WriteFile(golden, []byte(got[0]+"\n"+got[1]+"\n"), 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err, "missing golden file; run go test ./artifact -run TestCostBudgetGolden -update")
	assert.Equal(t, string(want), got[0]+"\n"+got[1]+"\n")
}
