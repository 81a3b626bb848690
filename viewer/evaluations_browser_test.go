package viewer_test

import (
	"cmp"
	"errors"
	"io"
	"maps"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/converter"
	"github.com/agenttrace/agenttrace/internal/browsertest"
	"github.com/agenttrace/agenttrace/internal/evalrun"
	"github.com/agenttrace/agenttrace/semconv"
	"github.com/agenttrace/agenttrace/viewer"
)

// evalRun is the run of package evalrun (written with the OTel Go SDK
// through the bridge), read as agenttrace html reads an artifact: its
// log records as their spans' events. It returns the run and the span
// ids of its two chat calls, in start order.
func evalRun(t *testing.T) (viewer.Run, []string) {
	t.Helper()
	path, err := evalrun.Write(t.TempDir())
	require.NoError(t, err)
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var logs []artifact.LogRecord
	r := artifact.NewReader(f, artifact.WithLogs(func(l *artifact.LogRecord) { logs = append(logs, *l) }))
	var recs []artifact.Record
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		recs = append(recs, *rec)
	}
	require.NotEmpty(t, logs, "the verdicts sent as log records are in the artifact")
	recs = converter.LogsAsEvents(recs, logs)
	var calls []artifact.Record
	var rd semconv.Reading
	for i := range recs {
		recs[i].Read(&rd)
		if rd.Kind == semconv.Inference {
			calls = append(calls, recs[i])
		}
	}
	require.Len(t, calls, len(evalrun.Answers))
	slices.SortFunc(calls, func(a, b artifact.Record) int { return cmp.Compare(a.Span.StartTimestamp(), b.Span.StartTimestamp()) })
	ids := make([]string, len(calls))
	for i, c := range calls {
		ids[i] = c.Span.SpanID().String()
	}
	return viewer.Run{Name: "evaluations", Meta: r.Meta(), Records: recs}, ids
}

// shownEval is one verdict as the detail panel shows it.
type shownEval struct {
	Name        string `json:"name"`
	Score       string `json:"score"`
	Label       string `json:"label"`
	Explanation string `json:"explanation"`
}

const readEvals = `Array.from(document.querySelectorAll('#detail .evals .eval')).map((e) => ({
  name: e.querySelector('.eval-name').textContent,
  score: (e.querySelector('.eval-score') || {}).textContent || '',
  label: (e.querySelector('.eval-label') || {}).textContent || '',
  explanation: (e.querySelector('.eval-expl') || {}).textContent || '',
}))`

// TestBrowserEvaluations is issue 25's check for evaluation results: a
// run whose chat calls were judged (gen_ai.evaluation.result as span
// events on the first call, as log records linked to the second) shows,
// in the real headless Chromium, each call's verdicts (name, score,
// label, explanation, as written) in the call's detail panel, and a mark
// with their count on its row.
func TestBrowserEvaluations(t *testing.T) {
	run, calls := evalRun(t)
	ctx := browsertest.New(t)
	open(t, ctx, writePage(t, []viewer.Run{run}))
	for i, id := range calls {
		var want []shownEval
		for _, v := range evalrun.Verdicts {
			if v.Call != i {
				continue
			}
			e := shownEval{Name: v.Name, Label: v.Label, Explanation: v.Explanation}
			if v.Score != nil {
				e.Score = strconv.FormatFloat(*v.Score, 'g', -1, 64) // as JavaScript's String prints these
			}
			want = append(want, e)
		}
		require.NotEmpty(t, want)
		_, err := chromedp.Run(ctx, chromedp.Evaluate[any](`location.hash = '#span=`+id+`'`))
		require.NoError(t, err)
		_, err = chromedp.Run(ctx, chromedp.Poll[bool](`!!document.querySelector('#rows .row.sel[data-span-id="`+id+`"]') && !!document.querySelector('#detail .evals')`))
		require.NoError(t, err, "call %d: no evaluations in its detail panel", i)
		assert.Equal(t, want, eval[[]shownEval](t, ctx, readEvals), "call %d", i)
		mark := eval[string](t, ctx, `(document.querySelector('#rows .row[data-span-id="`+id+`"] .evalmark') || {}).textContent || ''`)
		assert.Equal(t, "✓"+strconv.Itoa(len(want)), mark, "call %d: the row's mark", i)
	}
	// The run's summary per evaluation name (report.Evaluations, as
	// tokens --json has it) is a table above the waterfall.
	assert.Equal(t, wantTable(), eval[[][]string](t, ctx,
		`Array.from(document.querySelectorAll('#evaluations tbody tr')).map((tr) => Array.from(tr.cells).map((c) => c.textContent))`))
	if os.Getenv("AGENTTRACE_SCREENSHOTS") != "" {
		browsertest.Screenshot(t, ctx, "viewer-evaluations.png")
	}
}

// wantTable is the evaluations table of evalrun.Verdicts, the verdicts
// the run was written with: by name in name order, the results, the mean
// score to three decimals, the labels with their counts.
func wantTable() [][]string {
	type acc struct {
		n, scored int
		sum       float64
		labels    map[string]int
	}
	by := map[string]*acc{}
	for _, v := range evalrun.Verdicts {
		a := by[v.Name]
		if a == nil {
			a = &acc{labels: map[string]int{}}
			by[v.Name] = a
		}
		a.n++
		if v.Score != nil {
			a.scored++
			a.sum += *v.Score
		}
		if v.Label != "" {
			a.labels[v.Label]++
		}
	}
	var rows [][]string
	for _, name := range slices.Sorted(maps.Keys(by)) {
		a := by[name]
		mean := "–"
		if a.scored > 0 {
			mean = strconv.FormatFloat(math.Round(a.sum/float64(a.scored)*1000)/1000, 'f', -1, 64)
		}
		var labels []string
		for _, l := range slices.Sorted(maps.Keys(a.labels)) {
			labels = append(labels, l+" "+strconv.Itoa(a.labels[l]))
		}
		ls := strings.Join(labels, ", ")
		if ls == "" {
			ls = "–"
		}
		rows = append(rows, []string{name, strconv.Itoa(a.n), mean, ls})
	}
	return rows
}
