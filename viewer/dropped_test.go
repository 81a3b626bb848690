package viewer_test

import (
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/internal/browsertest"
	"github.com/agenttrace/agenttrace/viewer"
)

// cappedRun is a run whose writer hit a record cap: the file holds 5
// records, its trailer says 6 more were dropped and that the run spent
// 1,200 tokens of a 1,000 budget, most of them in the dropped records.
func cappedRun() viewer.Run {
	run := synth("capped.jsonl", 5, "step", "body")
	run.Meta = artifact.MetaFor(run.Records)
	run.Meta.Budget = &artifact.Budget{Tokens: 1000, WarnThreshold: 0.8}
	run.Summary = &artifact.Summary{
		FinishedAt: time.Date(2026, 5, 4, 14, 1, 0, 0, time.UTC), Complete: true,
		Records: 5, Calls: 2, Inferences: 2, Agents: 1,
		Tokens:  artifact.Tokens{Input: 1000, Output: 200, Total: 1200},
		Budget:  &artifact.BudgetStatus{BudgetTokens: 1000, Spent: 1200, OverBudget: true, WarnThreshold: 0.8},
		Dropped: 6,
	}
	return run
}

// When the trailer accounts for more than the file holds, the page shows
// the trailer's totals and budget, not the records' smaller sums, and
// says how many records were dropped and that their details are not
// there; with JavaScript and without.
func TestDroppedRecordsShowTheTrailersTotals(t *testing.T) {
	run := cappedRun()
	page := writePage(t, []viewer.Run{run})

	t.Run("with JavaScript", func(t *testing.T) {
		ctx := browsertest.New(t)
		open(t, ctx, page)
		note := eval[string](t, ctx, `document.getElementById('dropped').innerText`)
		require.Contains(t, note, "6 records were dropped")
		require.Contains(t, note, "not in the file")
		cards := eval[string](t, ctx, `document.getElementById('cards').innerText`)
		require.Contains(t, cards, "1,200")
		require.Contains(t, cards, "(trailer)")
		require.Equal(t, "over", eval[string](t, ctx, `document.getElementById('budget').dataset.state`))
		require.Contains(t, eval[string](t, ctx, `document.getElementById('budget').innerText`), "1,200 of 1,000 tokens")
		require.Len(t, rowIDs(t, ctx), len(run.Records), "the records the file holds are all shown")
		browsertest.Screenshot(t, ctx, "viewer-dropped.png")
	})

	t.Run("without JavaScript", func(t *testing.T) {
		ctx := browsertest.New(t, browsertest.WithoutJavaScript())
		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(browsertest.FileURL(t, page))))
		text := eval[string](t, ctx, `document.body.textContent`)
		require.Contains(t, text, "6 records were dropped")
		require.Equal(t, "1,200", eval[string](t, ctx, `document.querySelector('[data-q=total]').textContent`))
		require.Contains(t, text, "1,200 of 1,000 tokens")
	})

	t.Run("a trailer that agrees with the records changes nothing", func(t *testing.T) {
		run := cappedRun()
		run.Summary.Dropped = 0
		ctx := browsertest.New(t)
		open(t, ctx, writePage(t, []viewer.Run{run}))
		require.Zero(t, eval[int](t, ctx, `document.querySelectorAll('#dropped, #notes').length`))
		require.NotContains(t, eval[string](t, ctx, `document.getElementById('cards').innerText`), "(trailer)")
	})

	t.Run("values truncated at write time are said", func(t *testing.T) {
		run := cappedRun()
		run.Summary.Dropped, run.Summary.Truncated = 0, 2
		page := writePage(t, []viewer.Run{run})
		ctx := browsertest.New(t)
		open(t, ctx, page)
		require.Contains(t, eval[string](t, ctx, `document.getElementById('notes').innerText`), "2 attribute values were cut short")
		noJS := browsertest.New(t, browsertest.WithoutJavaScript())
		require.NoError(t, chromedp.Do(noJS, chromedp.Navigate(browsertest.FileURL(t, page))))
		require.Contains(t, eval[string](t, noJS, `document.body.textContent`), "2 attribute values were cut short")
	})
}
