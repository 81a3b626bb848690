package main

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/internal/dialecttest"
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
