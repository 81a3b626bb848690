package viewer_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/internal/artifacttest"
	"github.com/agenttrace/agenttrace/internal/browsertest"
	"github.com/agenttrace/agenttrace/report"
	"github.com/agenttrace/agenttrace/semconv"
	"github.com/agenttrace/agenttrace/viewer"
)

// readRun reads an artifact with the project's reader, as `agenttrace html` does.
func readRun(t testing.TB, path string) viewer.Run {
	t.Helper()
	recs, meta := artifacttest.Read(t, path)
	return viewer.Run{Name: filepath.Base(path), Meta: meta, Records: recs}
}

// writePage renders runs into a file in a temp dir and returns its path.
func writePage(t testing.TB, runs []viewer.Run, opts ...viewer.Option) string {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, viewer.Write(&buf, runs, opts...))
	p := filepath.Join(t.TempDir(), "page.html")
	require.NoError(t, os.WriteFile(p, buf.Bytes(), 0o644))
	return p
}

// open loads a page and waits until its script says it has rendered.
func open(t *testing.T, ctx context.Context, path string) {
	t.Helper()
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(browsertest.FileURL(t, path))))
	ready(t, ctx)
}

func ready(t *testing.T, ctx context.Context) {
	t.Helper()
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.body && document.body.dataset.ready === "1"`))
	require.NoError(t, err, "the page never finished rendering")
}

// showSpan selects span id through the page's own link (#span=ID), as a
// user following a link does, and waits until cond (a JavaScript
// expression) holds.
func showSpan(t *testing.T, ctx context.Context, id, cond string) {
	t.Helper()
	_, err := chromedp.Run(ctx, chromedp.Evaluate[any](`location.hash = '#span=`+id+`'`))
	require.NoError(t, err)
	_, err = chromedp.Run(ctx, chromedp.Poll[bool](cond))
	require.NoError(t, err, "span %s: %s never held", id, cond)
}

func eval[T any](t *testing.T, ctx context.Context, js string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js))
	require.NoError(t, err, "%.120s", js)
	return v
}

// rowIDs are the data-span-id of the waterfall rows in the DOM, in order.
func rowIDs(t *testing.T, ctx context.Context) []string {
	return eval[[]string](t, ctx, `Array.from(document.querySelectorAll('#rows .row')).map(r => r.dataset.spanId)`)
}

func spanIDs(recs []artifact.Record) []string {
	ids := make([]string, len(recs))
	for i := range recs {
		ids[i] = recs[i].Span.SpanID().String()
	}
	return ids
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

func failing(recs []artifact.Record) []string {
	var ids []string
	for i := range recs {
		if recs[i].Span.Status().Code() == 2 {
			ids = append(ids, recs[i].Span.SpanID().String())
		}
	}
	return ids
}

func TestPageShowsTheRun(t *testing.T) {
	run := readRun(t, "../testdata/golden/agent-run.jsonl")
	page := writePage(t, []viewer.Run{run})
	ctx := browsertest.New(t)
	open(t, ctx, page)

	t.Run("one waterfall row per record", func(t *testing.T) {
		require.Equal(t, sorted(spanIDs(run.Records)), sorted(rowIDs(t, ctx)))
	})

	t.Run("nothing was fetched", func(t *testing.T) {
		require.Zero(t, eval[int](t, ctx, `performance.getEntriesByType('resource').length`))
	})

	t.Run("cards and tables agree with the token report", func(t *testing.T) {
		rep := report.Tokens(run.Records, run.Meta)
		cards := eval[string](t, ctx, `document.getElementById('cards').innerText`)
		require.Contains(t, cards, report.Thousands(rep.Tokens.Total))
		require.Contains(t, cards, report.Thousands(rep.Tokens.Input))
		require.Contains(t, cards, report.Thousands(rep.Tokens.Output))
		// The cost card: what `agenttrace tokens` says the run cost.
		require.NotNil(t, rep.Cost.CostUSD, "the demo run's models are priced")
		wantCost := report.Dollars(rep.Cost.CostUSD)
		if rep.Cost.CostUnknown > 0 {
			wantCost += " or more"
		}
		costCard := eval[string](t, ctx, `Array.from(document.querySelectorAll('#cards .card')).filter(c => c.querySelector('.label').textContent === 'Cost').map(c => c.querySelector('.value').textContent).join('|')`)
		require.Equal(t, wantCost, costCard)
		require.NotEqual(t, "$0", costCard)
		models := eval[[][]string](t, ctx, `Array.from(document.querySelectorAll('#by-model tbody tr')).map(tr => Array.from(tr.cells).map(c => c.innerText))`)
		require.Len(t, models, len(rep.ByModel))
		for i, m := range rep.ByModel {
			require.Equal(t, m.Model, models[i][0])
			require.Equal(t, report.Thousands(m.Total), models[i][8], "total of %s", m.Model)
			require.Equal(t, report.Dollars(m.Cost.CostUSD), models[i][9], "cost of %s", m.Model)
		}
		tools := eval[[][]string](t, ctx, `Array.from(document.querySelectorAll('#by-tool tbody tr')).map(tr => Array.from(tr.cells).map(c => c.innerText))`)
		require.Len(t, tools, len(rep.ByTool))
		for i, tl := range rep.ByTool {
			require.Equal(t, []string{tl.Tool, fmt.Sprint(tl.Calls), fmt.Sprint(tl.Errors), report.Thousands(tl.EstimatedTokens)}, tools[i][:4])
		}
		agents := eval[[][]string](t, ctx, `Array.from(document.querySelectorAll('#by-agent tbody tr')).map(tr => Array.from(tr.cells).map(c => c.innerText))`)
		require.Len(t, agents, len(rep.ByAgent))
		for i, a := range rep.ByAgent {
			require.Equal(t, []string{a.Agent, fmt.Sprint(a.Runs), fmt.Sprint(a.Inferences)}, agents[i][:3])
			require.Equal(t, report.Thousands(a.Total), agents[i][5])
			require.Equal(t, report.Dollars(a.Cost.CostUSD), agents[i][6])
		}
	})

	t.Run("a click opens the record's details", func(t *testing.T) {
		var call *artifact.Record
		for i := range run.Records {
			if run.Records[i].Span.Name() == "execute_tool search_flights" {
				call = &run.Records[i]
			}
		}
		require.NotNil(t, call)
		id := call.Span.SpanID().String()
		require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#rows .row[data-span-id="`+id+`"]`))))
		detail := eval[string](t, ctx, `document.getElementById('detail').innerText`)
		require.Contains(t, detail, "execute_tool search_flights")
		args, ok := call.Span.Attributes().Get("gen_ai.tool.call.arguments")
		require.True(t, ok)
		var argv map[string]any
		require.NoError(t, json.Unmarshal([]byte(args.Str()), &argv))
		for k := range argv {
			require.Contains(t, detail, `"`+k+`"`, "argument %s shown", k)
		}
		require.Equal(t, id, eval[string](t, ctx, `document.querySelector('#rows .row.sel').dataset.spanId`))
	})

	t.Run("search narrows the rows", func(t *testing.T) {
		require.NoError(t, chromedp.Do(ctx, chromedp.SendKeys(chromedp.CSS("#search"), "get_weather")))
		_, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.querySelectorAll('#rows .row').length < `+fmt.Sprint(len(run.Records))))
		require.NoError(t, err)
		ids := rowIDs(t, ctx)
		require.Contains(t, ids, failing(run.Records)[0])
		require.Less(t, len(ids), len(run.Records))
		clearSearch(t, ctx, len(run.Records))
	})

	t.Run("filters narrow the rows", func(t *testing.T) {
		// Tool calls only.
		for _, k := range []string{"agent", "inference", "span"} {
			require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`input[data-kind="`+k+`"]`))))
		}
		kinds := eval[[]string](t, ctx, `Array.from(document.querySelectorAll('#rows .row')).map(r => r.dataset.kind)`)
		require.NotEmpty(t, kinds)
		for _, k := range kinds {
			require.Equal(t, "call", k)
		}
		for _, k := range []string{"agent", "inference", "span"} {
			require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`input[data-kind="`+k+`"]`))))
		}
		// Errors only: the failing call, with its ancestors as context.
		require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#errors-only`))))
		matched := eval[[]string](t, ctx, `Array.from(document.querySelectorAll('#rows .row:not(.ctx)')).map(r => r.dataset.spanId)`)
		require.Equal(t, failing(run.Records), matched)
		require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#errors-only`))))
		// One tool.
		require.NoError(t, chromedp.Do(ctx, chromedp.SetValue(chromedp.CSS(`#tool-filter`), "search_hotels")))
		eval[bool](t, ctx, `document.getElementById('tool-filter').dispatchEvent(new Event('change')), true`)
		names := eval[[]string](t, ctx, `Array.from(document.querySelectorAll('#rows .row:not(.ctx) .name')).map(n => n.textContent)`)
		require.Equal(t, []string{"execute_tool search_hotels"}, names)
		require.NoError(t, chromedp.Do(ctx, chromedp.SetValue(chromedp.CSS(`#tool-filter`), "")))
		eval[bool](t, ctx, `document.getElementById('tool-filter').dispatchEvent(new Event('change')), true`)
		require.Len(t, rowIDs(t, ctx), len(run.Records))
	})

	t.Run("next error lands on the failing tool", func(t *testing.T) {
		require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#collapse-all`))))
		require.Less(t, len(rowIDs(t, ctx)), len(run.Records))
		require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#next-error`))))
		require.Equal(t, failing(run.Records)[0], eval[string](t, ctx, `document.querySelector('#rows .row.sel').dataset.spanId`))
		require.Contains(t, eval[string](t, ctx, `document.getElementById('detail').innerText`), "TimeoutError")
		require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#expand-all`))))
		require.Len(t, rowIDs(t, ctx), len(run.Records))
	})

	t.Run("keyboard", func(t *testing.T) {
		key := func(k string) {
			t.Helper()
			eval[bool](t, ctx, `document.activeElement && document.activeElement.blur(), document.dispatchEvent(new KeyboardEvent('keydown', {key: `+fmt.Sprintf("%q", k)+`, bubbles: true})), true`)
		}
		selected := func() string {
			return eval[string](t, ctx, `(document.querySelector('#rows .row.sel') || {dataset: {}}).dataset.spanId || ""`)
		}
		key("n")
		require.Equal(t, failing(run.Records)[0], selected(), "n: next error")
		ids := rowIDs(t, ctx)
		at := slices.Index(ids, selected())
		key("j")
		require.Equal(t, ids[at+1], selected(), "j: next row")
		key("k")
		require.Equal(t, ids[at], selected(), "k: previous row")
		key("/")
		require.Equal(t, "search", eval[string](t, ctx, `document.activeElement.id`), "/: search")
		eval[bool](t, ctx, `document.activeElement.blur(), true`)
	})

	t.Run("modes", func(t *testing.T) {
		require.NoError(t, chromedp.Do(ctx, chromedp.SetValue(chromedp.CSS(`#mode`), "verbose")))
		eval[bool](t, ctx, `document.getElementById('mode').dispatchEvent(new Event('change')), true`)
		require.Contains(t, eval[string](t, ctx, `document.getElementById('detail').innerText`), "RECORD (JSON)")
		require.NoError(t, chromedp.Do(ctx, chromedp.SetValue(chromedp.CSS(`#mode`), "minimal")))
		eval[bool](t, ctx, `document.getElementById('mode').dispatchEvent(new Event('change')), true`)
		detail := eval[string](t, ctx, `document.getElementById('detail').innerText`)
		require.NotContains(t, detail, "RECORD (JSON)")
		require.NotContains(t, detail, "ATTRIBUTES")
		// Minimal hides plain spans that did not fail (the HTTP GET).
		kinds := eval[[]string](t, ctx, `Array.from(document.querySelectorAll('#rows .row')).map(r => r.dataset.kind)`)
		require.NotContains(t, kinds, "span")
		require.NoError(t, chromedp.Do(ctx, chromedp.SetValue(chromedp.CSS(`#mode`), "normal")))
		eval[bool](t, ctx, `document.getElementById('mode').dispatchEvent(new Event('change')), true`)
	})

	browsertest.Screenshot(t, ctx, "viewer-agent-run.png")
}

// clearSearch empties the search box and waits for all n rows to return.
func clearSearch(t *testing.T, ctx context.Context, n int) {
	t.Helper()
	eval[bool](t, ctx, `(() => { const s = document.getElementById('search'); s.value = ''; s.dispatchEvent(new Event('input')); return true; })()`)
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](fmt.Sprintf(`document.querySelectorAll('#rows .row').length === %d`, n)))
	require.NoError(t, err)
}

func TestPageWithoutJavaScript(t *testing.T) {
	run := readRun(t, "../testdata/golden/agent-run.jsonl")
	page := writePage(t, []viewer.Run{run})
	ctx := browsertest.New(t, browsertest.WithoutJavaScript())
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(browsertest.FileURL(t, page))))
	ids := eval[[]string](t, ctx, `Array.from(document.querySelectorAll('details.rec')).map(d => d.dataset.spanId)`)
	require.Equal(t, sorted(spanIDs(run.Records)), sorted(ids))
	text := eval[string](t, ctx, `document.body.textContent`)
	rep := report.Tokens(run.Records, run.Meta)
	require.Equal(t, report.Thousands(rep.Tokens.Total), eval[string](t, ctx, `document.querySelector('[data-q=total]').textContent`))
	require.Contains(t, text, "TimeoutError")
	browsertest.Screenshot(t, ctx, "viewer-no-js.png")
}

// hostile are payloads that would run if any value reached the page as
// markup, code or a URL: each one bumps window.pwned when it runs.
var hostile = []string{
	`<img src=x onerror="window.pwned=(window.pwned||0)+1">`,
	`</script><script>window.pwned=(window.pwned||0)+1</script>`,
	`</noscript><img src=x onerror="window.pwned=(window.pwned||0)+1">`,
	`</style><script>window.pwned=(window.pwned||0)+1</script>`,
	`javascript:window.pwned=(window.pwned||0)+1`,
	`"'><svg onload="window.pwned=(window.pwned||0)+1">`,
	`' onmouseover='window.pwned=(window.pwned||0)+1' x='`,
	"<!-- \u2028 ]]> ${window.pwned=(window.pwned||0)+1}",
}

// injected counts what a payload would have left in the DOM if it had
// been parsed as markup.
const injected = `(() => {
  const all = Array.from(document.querySelectorAll('*'));
  return {
    pwned: window.pwned || 0,
    img: document.querySelectorAll('img, svg, iframe, object, embed').length,
    scripts: document.querySelectorAll('script').length,
    handlers: all.filter(e => Array.from(e.attributes).some(a => a.name.startsWith('on'))).length,
    jsLinks: document.querySelectorAll('[href^="javascript:" i], [src^="javascript:" i]').length,
    title: document.title,
  };
})()`

type injection struct {
	Pwned    int    `json:"pwned"`
	Img      int    `json:"img"`
	Scripts  int    `json:"scripts"`
	Handlers int    `json:"handlers"`
	JSLinks  int    `json:"jsLinks"`
	Title    string `json:"title"`
}

func TestHostilePayloadsStayText(t *testing.T) {
	payload := strings.Join(hostile, " ")
	runs := []viewer.Run{synth(`run `+hostile[5]+`.jsonl`, 24, payload, payload)}
	page := writePage(t, runs, viewer.WithTitle(hostile[0]+hostile[1]))
	html, err := os.ReadFile(page)
	require.NoError(t, err)
	// The document's own script elements: one run, the code.
	require.Equal(t, 2, strings.Count(strings.ToLower(string(html)), "<script"))

	t.Run("with JavaScript", func(t *testing.T) {
		ctx := browsertest.New(t)
		open(t, ctx, page)
		eval[bool](t, ctx, `window.violations = 0; document.addEventListener('securitypolicyviolation', () => window.violations++); true`)
		// Show every record's details in every mode, and search for a payload.
		ids := rowIDs(t, ctx)
		require.Len(t, ids, len(runs[0].Records))
		for _, mode := range []string{"verbose", "normal", "minimal"} {
			require.NoError(t, chromedp.Do(ctx, chromedp.SetValue(chromedp.CSS(`#mode`), mode)))
			eval[bool](t, ctx, `document.getElementById('mode').dispatchEvent(new Event('change')), true`)
			for _, id := range ids {
				eval[bool](t, ctx, `(document.querySelector('#rows .row[data-span-id="`+id+`"]') || document.body).click(), true`)
				eval[bool](t, ctx, `Array.from(document.querySelectorAll('#detail .show-all')).forEach(b => b.click()), true`)
			}
		}
		require.NoError(t, chromedp.Do(ctx, chromedp.SendKeys(chromedp.CSS("#search"), "onerror")))
		_, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.getElementById('row-count').textContent.length > 0`))
		require.NoError(t, err)
		got := eval[injection](t, ctx, injected)
		require.Equal(t, injection{Scripts: 2, Title: runs[0].Name + " — agenttrace"}, got)
		require.Zero(t, eval[int](t, ctx, `window.violations`))
		// The payloads were shown, as text.
		detail := eval[string](t, ctx, `document.getElementById('app').innerText`)
		for _, p := range hostile[:4] {
			require.Contains(t, detail, p)
		}
		browsertest.Screenshot(t, ctx, "viewer-hostile.png")
	})

	t.Run("without JavaScript", func(t *testing.T) {
		ctx := browsertest.New(t, browsertest.WithoutJavaScript())
		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(browsertest.FileURL(t, page))))
		got := eval[injection](t, ctx, injected)
		require.Equal(t, injection{Scripts: 2, Title: hostile[0] + hostile[1]}, got)
		text := eval[string](t, ctx, `document.body.textContent`)
		require.Contains(t, text, hostile[0])
	})
}

// The parts of the page a plain agent run does not reach: the budget bar,
// messages by role with thinking and tool calls, and long values cut with
// their length said, expandable in full.
func TestBudgetMessagesAndLongValues(t *testing.T) {
	run := synth("budget.jsonl", 9, "step", strings.Repeat("0123456789", 150))
	run.Meta = artifact.MetaFor(run.Records)
	run.Meta.Budget = &artifact.Budget{Tokens: 300, WarnThreshold: 0.8}
	page := writePage(t, []viewer.Run{run})
	ctx := browsertest.New(t)
	open(t, ctx, page)

	rep := report.Tokens(run.Records, run.Meta)
	require.True(t, rep.Budget.OverBudget)
	require.Equal(t, "over", eval[string](t, ctx, `document.getElementById('budget').dataset.state`))
	require.Contains(t, eval[string](t, ctx, `document.getElementById('budget').innerText`),
		report.Thousands(rep.Budget.Spent)+" of 300 tokens")

	var chat, tool string
	for i := range run.Records {
		switch run.Records[i].Span.Name() {
		case "chat step":
			chat = run.Records[i].Span.SpanID().String()
		case "execute_tool step":
			tool = run.Records[i].Span.SpanID().String()
		}
	}
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#rows .row[data-span-id="`+chat+`"]`))))
	roles := eval[[]string](t, ctx, `Array.from(document.querySelectorAll('#detail .msg .role > span:first-child')).map(e => e.textContent)`)
	require.Equal(t, []string{"user", "assistant"}, roles)
	require.Equal(t, 1, eval[int](t, ctx, `document.querySelectorAll('#detail .msg.role-user details.reasoning').length`), "thinking is shown as such")
	require.Contains(t, eval[string](t, ctx, `document.querySelector('#detail .msg.role-assistant .tool-call').innerText`), "→ tool step")
	require.Contains(t, eval[string](t, ctx, `document.getElementById("detail").textContent`), "finish: tool_call", "the message's finish reason")

	// Minimal mode cuts at 600 characters and says how long the value is.
	require.NoError(t, chromedp.Do(ctx, chromedp.SetValue(chromedp.CSS(`#mode`), "minimal")))
	eval[bool](t, ctx, `document.getElementById('mode').dispatchEvent(new Event('change')), true`)
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#rows .row[data-span-id="`+tool+`"]`))))
	result, ok := run.Records[0].Span.Attributes().Get("gen_ai.tool.call.result")
	for i := 0; !ok; i++ {
		result, ok = run.Records[i].Span.Attributes().Get("gen_ai.tool.call.result")
	}
	full := len(result.Str())
	more := eval[string](t, ctx, `document.querySelector('#detail .more').innerText`)
	require.Contains(t, more, report.Thousands(int64(full))+" in all")
	require.Equal(t, 600, eval[int](t, ctx, `document.querySelector('#detail .more').parentNode.querySelector('pre').textContent.length`))
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#detail .show-all`))))
	require.Equal(t, full, eval[int](t, ctx, `Math.max(...Array.from(document.querySelectorAll('#detail pre')).map(p => p.textContent.length))`))
	browsertest.Screenshot(t, ctx, "viewer-budget.png")
}

// Every dialect's messages are shown as messages by role, as Go reads
// them (semconv.Messages), not only those already in the conventions'
// attributes: the page knows one message shape. A tool span's are its
// arguments and result, shown under those names (issue 24).
func TestMessagesOfEveryDialect(t *testing.T) {
	ctx := browsertest.New(t)
	for _, name := range []string{"openinference", "openllmetry-legacy", "openllmetry-current", "vercel-ai-v4", "genai-deprecated", "genai-v141"} {
		t.Run(name, func(t *testing.T) {
			run := readRun(t, "../testdata/golden/"+name+".jsonl")
			open(t, ctx, writePage(t, []viewer.Run{run}))
			shown := 0
			var rd semconv.Reading
			for i := range run.Records {
				c := semconv.Messages(run.Records[i].Span)
				var want []string
				if len(c.System) > 0 {
					want = append(want, "system")
				}
				for _, m := range slices.Concat(c.Input, c.Output) {
					want = append(want, m.Role)
				}
				if len(want) == 0 {
					continue
				}
				id := run.Records[i].Span.SpanID().String()
				eval[bool](t, ctx, `document.querySelector('#rows .row[data-span-id="`+id+`"]').click(), true`)
				roles := eval[[]string](t, ctx, `Array.from(document.querySelectorAll('#detail .msg .role > span:first-child')).map(e => e.textContent)`)
				if run.Records[i].Read(&rd); rd.Kind == semconv.Call {
					// A tool span's content is its arguments and result,
					// shown as such, not as chat.
					assert.Empty(t, roles, "%s: %s is a tool span", name, run.Records[i].Span.Name())
					assert.True(t, eval[bool](t, ctx, `Array.from(document.querySelectorAll('#detail .section > h3')).some(e => e.textContent === 'Arguments' || e.textContent === 'Result')`),
						"%s: %s shows its arguments or result", name, run.Records[i].Span.Name())
					shown++
					continue
				}
				require.Equal(t, want, roles, "%s: roles of %s", name, run.Records[i].Span.Name())
				shown++
			}
			require.Positive(t, shown, "%s has messages", name)
		})
	}
}
