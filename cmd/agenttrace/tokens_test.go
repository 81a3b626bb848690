package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/bridge"
	"github.com/agenttrace/agenttrace/internal/agentsim"
	"github.com/agenttrace/agenttrace/internal/dialecttest"
	"github.com/agenttrace/agenttrace/semconv"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// tokensJSON is the part of `tokens --json` the expectations speak of.
type tokensJSON struct {
	Records map[string]int64 `json:"records"`
	Tokens  map[string]int64 `json:"tokens"`
	Errors  int64            `json:"errors"`
	Budget  json.RawMessage  `json:"budget"`
	ByModel []struct {
		Model string `json:"model"`
		Count int64  `json:"count"`
	} `json:"by_model"`
	ByTool []struct {
		Tool  string `json:"tool"`
		Calls int64  `json:"calls"`
	} `json:"by_tool"`
}

// TestTokensDialects: `tokens --json` meets every dialect fixture's
// expectations, read from OTLP and from the artifact converted from it.
func TestTokensDialects(t *testing.T) {
	for _, c := range dialecttest.Cases(t, "../../testdata") {
		name, src, want := c.Name, c.Payload, c.Want
		t.Run(name, func(t *testing.T) {
			jsonl := filepath.Join(t.TempDir(), name+".jsonl")
			r := agenttrace(t, "", "convert", src, "-o", jsonl)
			require.Equal(t, 0, r.code, r.stderr)

			for _, in := range []string{src, jsonl} {
				r := agenttrace(t, "", "tokens", "--json", in)
				require.Equal(t, 0, r.code, r.stderr)
				assert.Empty(t, r.stderr)
				var got tokensJSON
				require.NoError(t, json.Unmarshal([]byte(r.stdout), &got), r.stdout)

				assert.Equal(t, want.Records, got.Records, "records")
				wantTokens := map[string]int64{"total": want.Tokens["input"] + want.Tokens["output"]}
				for k, v := range want.Tokens {
					wantTokens[k] = v
				}
				assert.Equal(t, wantTokens, got.Tokens, "tokens")
				assert.Equal(t, want.Errors, got.Errors, "errors")
				assert.JSONEq(t, "null", string(got.Budget))

				var models []string
				for _, m := range got.ByModel {
					if m.Model != "(unknown)" { // a retriever may name no model
						models = append(models, m.Model)
					}
				}
				assert.ElementsMatch(t, want.Models, models, "models")

				wantTools := map[string]int64{}
				for _, tool := range want.Tools {
					wantTools[tool]++
				}
				gotTools := map[string]int64{}
				for _, u := range got.ByTool {
					gotTools[u.Tool] = u.Calls
				}
				assert.Equal(t, wantTools, gotTools, "tools")
			}
		})
	}
}

// TestTokensTextGolden pins the text a person reads. Run with -update to
// accept a deliberate change.
func TestTokensTextGolden(t *testing.T) {
	r := agenttrace(t, "", "tokens", dialects(t)["genai-v141"])
	require.Equal(t, 0, r.code, r.stderr)
	golden := filepath.Join("testdata", "tokens-genai-v141.txt")
	if *update {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(golden, []byte(r.stdout), 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err, "run go test ./cmd/agenttrace -run TestTokensTextGolden -update")
	assert.Equal(t, string(want), r.stdout)
}

func TestTokensOptions(t *testing.T) {
	src := dialects(t)["genai-v141"]
	count := func(args ...string) int {
		r := agenttrace(t, "", append([]string{"tokens", "--json", src}, args...)...)
		require.Equal(t, 0, r.code, r.stderr)
		var got struct {
			Largest []json.RawMessage `json:"largest"`
		}
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &got))
		return len(got.Largest)
	}
	assert.Equal(t, 5, count())
	assert.Equal(t, 2, count("--top", "2"))
	assert.Equal(t, 0, count("--top", "0"))
}

// TestTokensMergesInputs: several inputs, from stdin and files, report
// together.
func TestTokensMergesInputs(t *testing.T) {
	ds := dialects(t)
	r := agenttrace(t, readFile(t, ds["vercel-ai-v4"]), "tokens", "--json", ds["genai-v141"], "-")
	require.Equal(t, 0, r.code, r.stderr)
	var got tokensJSON
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &got))
	assert.Equal(t, int64(9732+720), got.Tokens["input"])
	assert.Equal(t, int64(3+2), got.Records["inference"])
}

func TestTokensBadLinesExit1(t *testing.T) {
	path := writeTemp(t, "run.jsonl", `{"v":1,"kind":"meta","started_at":"2026-01-01T00:00:00Z"}
{"kind":"inference","name":"chat m","trace_id":"0102030405060708090a0b0c0d0e0f10","span_id":"0102030405060708","started_at":"2026-01-01T00:00:01Z","finished_at":"2026-01-01T00:00:02Z","ok":true,"op":"chat","model":"m","usage":{"input_tokens":30,"output_tokens":1}}
not json
`)
	r := agenttrace(t, "", "tokens", path)
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stdout, "Tokens   31 (input 30, output 1;")
	assert.Contains(t, r.stderr, path+":3: ")
}

// droppedFixture is an artifact whose trailer accounts for records the
// file does not hold. TestDroppedFixture writes it (with -update) the way
// a user's agent would: through the SDK processor, with a token budget of
// 1,000 and a record cap of 6.
const droppedFixture = "testdata/dropped-records.jsonl"

// recordDropped runs a planner agent through bridge.Processor into w: 11
// chat turns (six of 100 tokens, then five of 120) under one agent span,
// 1,200 tokens in all, with a budget of 1,000 and a record cap of 6. The
// cap keeps the first six turns (600 tokens) and drops the other five and
// the agent, which ends last: six dropped records, whose usage the trailer
// still counts.
func recordDropped(t *testing.T, w io.Writer) {
	t.Helper()
	p, err := bridge.New(bridge.WithWriter(w), bridge.WithBudget(1000), bridge.WithRecordCap(6), bridge.WithBlocking())
	require.NoError(t, err)
	tp := sdktrace.NewTracerProvider(append(agentsim.TracerProviderOptions(7), sdktrace.WithSpanProcessor(p))...)
	tracer := tp.Tracer(agentsim.ScopeName)
	at := func(s int) time.Time { return agentsim.Epoch.Add(time.Duration(s) * time.Second) }
	ctx, agent := tracer.Start(context.Background(), "invoke_agent planner", trace.WithTimestamp(at(0)))
	agent.SetAttributes(attribute.String(semconv.OperationName, "invoke_agent"), attribute.String(semconv.AgentName, "planner"))
	for turn := range 11 {
		in, out := 60, 40
		if turn >= 6 {
			in, out = 72, 48
		}
		_, chat := tracer.Start(ctx, "chat gpt-4o", trace.WithTimestamp(at(2*turn+1)))
		chat.SetAttributes(
			attribute.String(semconv.OperationName, "chat"),
			attribute.String(semconv.ProviderName, "openai"),
			attribute.String(semconv.ResponseModel, "gpt-4o"),
			attribute.Int(semconv.UsageInputTokens, in),
			attribute.Int(semconv.UsageOutputTokens, out),
		)
		chat.End(trace.WithTimestamp(at(2*turn + 2)))
	}
	agent.End(trace.WithTimestamp(at(30)))
	require.NoError(t, tp.Shutdown(context.Background()))
}

// TestDroppedFixture: the fixture is what recordDropped writes, up to the
// header (whose policy the store owns): the same records and trailer.
func TestDroppedFixture(t *testing.T) {
	var buf bytes.Buffer
	recordDropped(t, &buf)
	if *update {
		require.NoError(t, os.WriteFile(droppedFixture, buf.Bytes(), 0o644))
	}
	want, err := os.ReadFile(droppedFixture)
	require.NoError(t, err)
	got := lines(buf.String())
	wantLines := lines(string(want))
	require.Len(t, got, len(wantLines))
	assert.Equal(t, wantLines[1:], got[1:], "records and trailer; run go test -run TestDroppedFixture -update")
	assert.Contains(t, wantLines[len(wantLines)-1], `"dropped":6`)
}

// TestTokensTrailerTruth: an artifact whose trailer counts dropped records
// is reported with the trailer's totals and budget, and says what was
// dropped, in --json and in text.
func TestTokensTrailerTruth(t *testing.T) {
	r := agenttrace(t, "", "tokens", "--json", droppedFixture)
	require.Equal(t, 0, r.code, r.stderr)
	var got struct {
		Records     map[string]int64         `json:"records"`
		Tokens      artifact.Tokens          `json:"tokens"`
		Budget      *artifact.BudgetStatus   `json:"budget"`
		FromTrailer bool                     `json:"from_trailer"`
		InFile      *artifact.Tokens         `json:"in_file"`
		Dropped     int64                    `json:"dropped"`
		Notes       []string                 `json:"notes"`
		ByModel     []map[string]interface{} `json:"by_model"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &got), r.stdout)
	assert.Equal(t, int64(6), got.Records["inference"], "the records in the file")
	assert.Equal(t, int64(1200), got.Tokens.Total)
	assert.Equal(t, int64(720), got.Tokens.Input)
	require.NotNil(t, got.Budget)
	assert.Equal(t, artifact.BudgetStatus{BudgetTokens: 1000, Spent: 1200, OverBudget: true, WarnThreshold: 0.8}, *got.Budget)
	assert.True(t, got.FromTrailer)
	require.NotNil(t, got.InFile)
	assert.Equal(t, int64(600), got.InFile.Total)
	assert.Equal(t, int64(6), got.Dropped)
	require.Len(t, got.Notes, 1)
	assert.Contains(t, got.Notes[0], "6 records are not in the file")
	assert.Contains(t, got.Notes[0], "details are not in the file")

	r = agenttrace(t, "", "tokens", droppedFixture)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Regexp(t, `(?m)^Tokens +1,200 .*from the summary trailer; the records in the file add up to 600$`, r.stdout)
	assert.Regexp(t, `(?m)^Budget +1,000 tokens, spent 1,200 \(120\.0%\), remaining 0: OVER BUDGET$`, r.stdout)
	assert.Regexp(t, `(?m)^Dropped +6 records, not in the file$`, r.stdout)
}

// TestTokensCostJSON: `tokens --json` carries cost_usd at the top and in
// each by_model entry; a model the price data does not know is null, and
// named, never $0.
func TestTokensCostJSON(t *testing.T) {
	type costRow struct {
		Model    string   `json:"model"`
		CostUSD  *float64 `json:"cost_usd"`
		Unknown  int64    `json:"cost_unknown"`
		PricedAs string   `json:"priced_as"`
	}
	type costReport struct {
		CostUSD       *float64  `json:"cost_usd"`
		Unknown       int64     `json:"cost_unknown"`
		UnknownModels []string  `json:"cost_unknown_models"`
		PriceData     string    `json:"price_data"`
		ByModel       []costRow `json:"by_model"`
	}
	read := func(t *testing.T, path string) costReport {
		r := agenttrace(t, "", "tokens", "--json", path)
		require.Equal(t, 0, r.code, r.stderr)
		var got costReport
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &got), r.stdout)
		return got
	}

	src := dialects(t)["genai-v141"]
	got := read(t, src)
	// Three claude-sonnet-4-5 calls, each under the 200k tier: input 3,
	// cache_write 3.75, cache_read 0.3, output 15 $/MTok
	// (pricing/prices.json). Input 9,732 includes 4,096 read and 2,048
	// written: 3,588 plain.
	want := (3_588*3 + 4_096*0.3 + 2_048*3.75 + 839*15) / 1e6
	require.NotNil(t, got.CostUSD)
	assert.InDelta(t, want, *got.CostUSD, 1e-12)
	require.Len(t, got.ByModel, 1)
	require.NotNil(t, got.ByModel[0].CostUSD)
	assert.InDelta(t, want, *got.ByModel[0].CostUSD, 1e-12)
	assert.Equal(t, "claude-sonnet-4-5", got.ByModel[0].PricedAs)
	assert.Empty(t, got.UnknownModels)
	assert.Contains(t, got.PriceData, "genai-prices ")

	data, err := os.ReadFile(src)
	require.NoError(t, err)
	unknown := filepath.Join(t.TempDir(), "house.json")
	require.NoError(t, os.WriteFile(unknown, bytes.ReplaceAll(data, []byte("claude-sonnet-4-5"), []byte("house-model-7")), 0o644))
	got = read(t, unknown)
	assert.Nil(t, got.CostUSD, "no call has a known cost: null, not 0")
	assert.Equal(t, int64(3), got.Unknown)
	assert.Equal(t, []string{"house-model-7-20250929"}, got.UnknownModels)
	require.Len(t, got.ByModel, 1)
	assert.Nil(t, got.ByModel[0].CostUSD)

	r := agenttrace(t, "", "tokens", unknown)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "Cost     unknown (3 model calls have no known cost: no price or no usage (house-model-7-20250929))")
}
