package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/converter"
	"github.com/agenttrace/agenttrace/internal/browsertest"
	"github.com/agenttrace/agenttrace/semconv"
)

// shownRun is every quantity one rendering shows of a run: the run's
// (duration, tokens, cost, budget) and, where the rendering shows records,
// each record's by span id (duration, usage cells, cost).
type shownRun struct {
	Run     map[string]string            `json:"run"`
	Records map[string]map[string]string `json:"records"`
}

// The quantities compared across the renderings, by name.
var runQuantities = []string{"duration", "tokens in", "tokens out", "total", "cost", "budget"}

// TestThreeRenderingsAgree renders two runs through the three renderings
// of `agenttrace serve`: the run page in headless Chromium, the same page
// without JavaScript (the static outline), and the runs list. Every
// quantity they show (the run's duration, tokens, cost and budget; each
// record's duration, usage and cost, on the page and in the outline) must
// read the same string in each, and that string must be what the source
// data says: token counts from the capture's expected.json (the fake
// model server's log) or the generator's numbers, costs from the public
// price of gpt-4o-mini, durations read back from the text and compared
// with the spans' own timestamps to the precision shown. The runs are a
// real capture (OpenLLMetry on the OpenAI SDK, the tool loop) and a
// generated one with an hour-long agent span, model calls of a model no
// price data knows, and a token budget nearly spent (issue 24 point 3).
func TestThreeRenderingsAgree(t *testing.T) {
	dir := t.TempDir()
	realTruth := writeRealRun(t, dir, "openllmetry-openai", "tool-loop")
	genTruth := writeGeneratedRun(t, dir)
	ts := start(t, dir)

	_, list := ts.get(t, "/")
	listed := map[string]map[string]string{}
	for _, r := range rows(t, list) {
		listed[r.path] = r.cols
	}
	page := browsertest.New(t, browsertest.WithNetwork(), browsertest.WithWindow(1280, 900))
	outline := browsertest.New(t, browsertest.WithNetwork(), browsertest.WithoutJavaScript())

	for _, truth := range []runTruth{realTruth, genTruth} {
		t.Run(truth.name, func(t *testing.T) {
			js := shownOnPage(t, page, ts.url+"/run/"+truth.name)
			static := shownInOutline(t, outline, ts.url+"/run/"+truth.name)
			row := listed[truth.name]
			require.NotNil(t, row, "%s is listed", truth.name)
			fromList := map[string]string{"duration": row["duration"], "tokens in": row["in"], "tokens out": row["out"],
				"total": row["total"], "cost": row["cost"], "budget": row["budget"]}
			if fromList["budget"] == "—" {
				fromList["budget"] = ""
			}

			for _, q := range runQuantities {
				assert.Equal(t, js.Run[q], static.Run[q], "%s: the page and the outline", q)
				assert.Equal(t, js.Run[q], fromList[q], "%s: the page and the runs list", q)
			}
			for q, want := range truth.run {
				assert.Equal(t, want, js.Run[q], "%s, from the source", q)
			}
			checkDuration(t, js.Run["duration"], truth.runDuration, "the run")

			require.Len(t, js.Records, len(truth.records), "every span on the page")
			require.Len(t, static.Records, len(truth.records), "every span in the outline")
			for id, rt := range truth.records {
				got, out := js.Records[id], static.Records[id]
				require.NotNil(t, got, "span %s on the page", id)
				require.NotNil(t, out, "span %s in the outline", id)
				assert.Equal(t, got["row duration"], got["duration"], "span %s: its row and its detail", id)
				for k, v := range got {
					if k == "row duration" {
						continue
					}
					assert.Equal(t, v, out[k], "span %s: %s on the page and in the outline", id, k)
				}
				assert.Len(t, out, len(got)-1, "span %s: the outline shows what the page shows: %v, %v", id, out, got)
				checkDuration(t, got["duration"], rt.duration, "span "+id)
				for k, v := range rt.shown {
					assert.Equal(t, v, got[k], "span %s: %s, from the source", id, k)
				}
			}
		})
	}
}

// runTruth is what the source data says of a run.
type runTruth struct {
	name        string
	run         map[string]string // quantity -> the text it must read
	runDuration time.Duration
	records     map[string]recordTruth // by span id
}

type recordTruth struct {
	duration time.Duration
	shown    map[string]string // quantity -> the text it must read
}

// shownOnPage reads the run page as a person sees it with JavaScript on:
// the cards, the budget line, each row's duration, and, row by row
// selected, the detail's duration, cost and usage table.
func shownOnPage(t *testing.T, ctx0 context.Context, url string) shownRun {
	t.Helper()
	require.NoError(t, chromedp.Do(ctx0, chromedp.Navigate(url)))
	_, err := chromedp.Run(ctx0, chromedp.Poll[bool](`document.body.dataset.ready === '1'`))
	require.NoError(t, err)
	got, err := chromedp.Run(ctx0, chromedp.Evaluate[shownRun](`(() => {
	  const run = {};
	  for (const c of document.querySelectorAll('#cards .card')) {
	    const label = c.querySelector('.label').textContent.toLowerCase();
	    run[label] = c.querySelector('.value').textContent;
	  }
	  const b = document.querySelector('#budget .sub');
	  run.budget = b ? b.textContent : '';
	  const records = {};
	  const ids = Array.from(document.querySelectorAll('#rows .row')).map((r) => r.dataset.spanId).filter((id) => id);
	  for (const id of ids) {
	    const row = document.querySelector('#rows .row[data-span-id="' + id + '"]');
	    const r = { 'row duration': row.querySelector('.dur').textContent };
	    row.click();
	    const dts = document.querySelectorAll('#detail dl.facts dt');
	    for (const dt of dts) {
	      const k = dt.textContent;
	      if (k === 'duration' || k === 'cost' || k === 'estimated tokens') r[k] = dt.nextElementSibling.textContent;
	    }
	    const u = document.querySelector('#detail #usage');
	    if (u) {
	      const head = Array.from(u.querySelectorAll('th')).map((e) => e.textContent);
	      const cells = Array.from(u.querySelectorAll('tbody td')).map((e) => e.textContent);
	      head.forEach((h, i) => { r[h + ' tokens'] = cells[i]; });
	    }
	    records[id] = r;
	  }
	  return { run, records };
	})()`))
	require.NoError(t, err)
	return got
}

// shownInOutline reads the same page without JavaScript: the outline's
// summary and each record's duration and facts.
func shownInOutline(t *testing.T, ctx context.Context, url string) shownRun {
	t.Helper()
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(url)))
	got, err := chromedp.Run(ctx, chromedp.Evaluate[shownRun](`(() => {
	  const q = (k) => { const e = document.querySelector('[data-q="' + k + '"]'); return e ? e.textContent : ''; };
	  const run = { duration: q('duration'), 'tokens in': q('tokens-in'), 'tokens out': q('tokens-out'), total: q('total'), cost: q('cost'), budget: q('budget') };
	  const records = {};
	  for (const d of document.querySelectorAll('details.rec')) {
	    const r = { duration: d.querySelector(':scope > summary .muted').textContent };
	    for (const dt of d.querySelectorAll(':scope > dl.facts dt')) {
	      const k = dt.textContent;
	      if (k === 'cost' || k === 'estimated tokens' || k.endsWith(' tokens')) r[k] = dt.nextElementSibling.textContent;
	    }
	    records[d.dataset.spanId] = r;
	  }
	  return { run, records };
	})()`))
	require.NoError(t, err)
	return got
}

// shownDuration reads a duration as the pages write it back into time,
// with half the unit of its last digit: the precision it claims.
var shownDuration = regexp.MustCompile(`^(?:(\d+) h (\d{2}) m (\d{2}) s|(\d+) m (\d{2}) s|(\d+(?:\.\d+)?) (s|ms|µs))$`)

func checkDuration(t *testing.T, text string, truth time.Duration, what string) {
	t.Helper()
	m := shownDuration.FindStringSubmatch(text)
	require.NotNil(t, m, "%s: %q is not a duration", what, text)
	var got, half time.Duration
	atoi := func(s string) time.Duration { n, _ := strconv.Atoi(s); return time.Duration(n) }
	switch {
	case m[1] != "":
		got, half = atoi(m[1])*time.Hour+atoi(m[2])*time.Minute+atoi(m[3])*time.Second, time.Second/2
	case m[4] != "":
		got, half = atoi(m[4])*time.Minute+atoi(m[5])*time.Second, time.Second/2
	default:
		unit := map[string]time.Duration{"s": time.Second, "ms": time.Millisecond, "µs": time.Microsecond}[m[7]]
		v, err := strconv.ParseFloat(m[6], 64)
		require.NoError(t, err)
		decimals := 0
		if _, frac, ok := strings.Cut(m[6], "."); ok {
			decimals = len(frac)
		}
		got = time.Duration(math.Round(v * float64(unit)))
		half = time.Duration(float64(unit) / math.Pow10(decimals) / 2)
	}
	assert.InDelta(t, float64(truth), float64(got), float64(half+time.Microsecond), "%s: %q for %v", what, text, truth)
	if truth >= time.Hour {
		assert.NotNil(t, m[1], "%s: an hour or more reads in hours", what)
	}
}

// writeRealRun writes a captured scenario's JSON payload as an artifact
// in dir, and returns what its source says: the tokens of the capture's
// expected.json, each span's times read from the payload with pdata, and
// the cost of gpt-4o-mini at its public price.
func writeRealRun(t *testing.T, dir, lib, scenario string) runTruth {
	t.Helper()
	name, b := writePayload(t, dir, lib, scenario)

	// The truth, read apart from the converter.
	raw, err := (&ptrace.JSONUnmarshaler{}).UnmarshalTraces(b)
	require.NoError(t, err)
	var exp struct {
		Scenarios map[string]struct {
			Tokens struct{ Input, Output int64 } `json:"tokens"`
			Calls  []struct {
				Tokens struct{ Input, Output int64 } `json:"tokens"`
			} `json:"calls"`
		} `json:"scenarios"`
	}
	eb, err := os.ReadFile(filepath.Join("..", "..", "testdata", "real", lib, "expected.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(eb, &exp))
	sc := exp.Scenarios[scenario]
	require.Len(t, sc.Calls, 2, "the tool loop: two model calls")
	// gpt-4o-mini costs $0.15 per million input tokens and $0.60 per
	// million output tokens (OpenAI's price list); under $0.0001 a cost
	// shows six decimals.
	usd := func(in, out int64) float64 { return float64(in)*0.15e-6 + float64(out)*0.60e-6 }
	dollars := func(v float64) string { return fmt.Sprintf("$%.6f", v) }
	small := func(n int64) string {
		require.Less(t, n, int64(1000), "no thousands separator to write")
		return strconv.FormatInt(n, 10)
	}
	truth := runTruth{name: name, records: map[string]recordTruth{}, run: map[string]string{
		"tokens in": small(sc.Tokens.Input), "tokens out": small(sc.Tokens.Output), "total": small(sc.Tokens.Input + sc.Tokens.Output),
		"cost":   dollars(usd(sc.Calls[0].Tokens.Input, sc.Calls[0].Tokens.Output) + usd(sc.Calls[1].Tokens.Input, sc.Calls[1].Tokens.Output)),
		"budget": "",
	}}
	var first, last pcommon.Timestamp
	calls := 0
	spans := raw.ResourceSpans()
	for i := range spans.Len() {
		ss := spans.At(i).ScopeSpans()
		for j := range ss.Len() {
			sl := ss.At(j).Spans()
			for k := range sl.Len() {
				sp := sl.At(k)
				if first == 0 || sp.StartTimestamp() < first {
					first = sp.StartTimestamp()
				}
				last = max(last, sp.EndTimestamp())
				rt := recordTruth{duration: sp.EndTimestamp().AsTime().Sub(sp.StartTimestamp().AsTime()), shown: map[string]string{}}
				if in, ok := sp.Attributes().Get("gen_ai.usage.input_tokens"); ok {
					// The model calls, in the order the server answered them.
					out, _ := sp.Attributes().Get("gen_ai.usage.output_tokens")
					c := sc.Calls[calls]
					require.Equal(t, c.Tokens.Input, in.Int(), "the span's usage is the server's")
					require.Equal(t, c.Tokens.Output, out.Int())
					rt.shown["input tokens"], rt.shown["output tokens"] = small(c.Tokens.Input), small(c.Tokens.Output)
					rt.shown["cost"] = dollars(usd(c.Tokens.Input, c.Tokens.Output))
					calls++
				}
				truth.records[sp.SpanID().String()] = rt
			}
		}
	}
	require.Equal(t, 2, calls)
	truth.runDuration = last.AsTime().Sub(first.AsTime())
	return truth
}

// writePayload writes a captured scenario's OTLP/JSON payload
// (testdata/real) as an artifact in dir, as `agenttrace convert` would,
// closed; it returns the artifact's name and the payload.
func writePayload(t *testing.T, dir, lib, scenario string) (string, []byte) {
	t.Helper()
	src := filepath.Join("..", "..", "testdata", "real", lib, "payloads", scenario+".traces.json")
	b, err := os.ReadFile(src)
	require.NoError(t, err)
	td, err := converter.ReadOTLP(bytes.NewReader(b), converter.Detect(b[:min(len(b), converter.DetectSize)]), src)
	require.NoError(t, err)
	name := lib + "-" + scenario + ".jsonl"
	f, err := os.Create(filepath.Join(dir, name))
	require.NoError(t, err)
	w := artifact.NewWriter(f, artifact.MetaFor(artifact.Records(td)))
	require.NoError(t, w.WriteTraces(td))
	require.NoError(t, w.Close())
	require.NoError(t, f.Close())
	return name, b
}

// The generated run's numbers, from which its truth is written by hand.
const (
	genBudget = 10000
	genInA    = 5000
	genOutA   = 60
	genInB    = 4000
	genOutB   = 40 // spent: 9,100 of 10,000, over the 80% warning
)

// writeGeneratedRun writes a run whose agent span lasts 1 h 02 min 03 s,
// whose two model calls are of a model no price data knows, and whose
// token budget is 91% spent.
func writeGeneratedRun(t *testing.T, dir string) runTruth {
	t.Helper()
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", "agree-test")
	ss := rs.ScopeSpans().AppendEmpty()
	t0 := time.Date(2026, 5, 4, 9, 0, 0, 0, time.UTC)
	add := func(id byte, parent byte, op string, from, to time.Duration) ptrace.Span {
		sp := ss.Spans().AppendEmpty()
		sp.SetTraceID(pcommon.TraceID{7, 7, 7})
		sp.SetSpanID(pcommon.SpanID{id})
		if parent != 0 {
			sp.SetParentSpanID(pcommon.SpanID{parent})
		}
		sp.SetName(op)
		sp.SetStartTimestamp(pcommon.NewTimestampFromTime(t0.Add(from)))
		sp.SetEndTimestamp(pcommon.NewTimestampFromTime(t0.Add(to)))
		sp.Attributes().PutStr(semconv.OperationName, op)
		return sp
	}
	root := add(1, 0, "invoke_agent", 0, time.Hour+2*time.Minute+3*time.Second)
	root.Attributes().PutStr("gen_ai.agent.name", "marathon")
	chat := func(id byte, from, to time.Duration, in, out int64) {
		sp := add(id, 1, "chat", from, to)
		a := sp.Attributes()
		a.PutStr("gen_ai.provider.name", "acme")
		a.PutStr("gen_ai.request.model", "acme-unpriced-1")
		a.PutInt(semconv.UsageInputTokens, in)
		a.PutInt(semconv.UsageOutputTokens, out)
	}
	chat(2, time.Second, 2500*time.Millisecond, genInA, genOutA)
	chat(3, time.Hour, time.Hour+612400*time.Microsecond, genInB, genOutB)
	name := "generated.jsonl"
	f, err := os.Create(filepath.Join(dir, name))
	require.NoError(t, err)
	meta := artifact.NewMeta(t0)
	meta.Budget = &artifact.Budget{Tokens: genBudget}
	w := artifact.NewWriter(f, meta)
	require.NoError(t, w.WriteTraces(td))
	require.NoError(t, w.Close())
	require.NoError(t, f.Close())
	id := func(b byte) string { return pcommon.SpanID{b}.String() }
	return runTruth{
		name: name, runDuration: time.Hour + 2*time.Minute + 3*time.Second,
		run: map[string]string{
			"duration":  "1 h 02 m 03 s",
			"tokens in": "9,000", "tokens out": "100", "total": "9,100",
			"cost":   "unknown", // no call has a price: never $0
			"budget": "9,100 of 10,000 tokens (91.0%), near the budget",
		},
		records: map[string]recordTruth{
			id(1): {duration: time.Hour + 2*time.Minute + 3*time.Second, shown: map[string]string{"duration": "1 h 02 m 03 s"}},
			id(2): {duration: 1500 * time.Millisecond, shown: map[string]string{"duration": "1.50 s", "input tokens": "5,000", "output tokens": "60", "cost": "unknown"}},
			id(3): {duration: 612400 * time.Microsecond, shown: map[string]string{"duration": "612 ms", "input tokens": "4,000", "output tokens": "40", "cost": "unknown"}},
		},
	}
}
