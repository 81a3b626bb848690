package server_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/report"
)

// A run the bridge writes a turn at a time (FsyncTurn) has its header
// written before the root span ends, so a cost budget set on the root
// (agenttrace.budget.usd) is in the trailer alone (docs/format.md §3).
// The list's budget cell and the token report of the run page and
// /compare show it: the budget the trailer judged against, not "—".
func TestListRootBudgetAfterHeader(t *testing.T) {
	const limit = 0.004 // the simulated agent's two priced calls cost more
	dir := t.TempDir()
	name := simRun(t, dir, 2, 4, sdktrace.WithSpanProcessor(rootBudgetUSD(limit)))

	f, err := os.Open(filepath.Join(dir, name))
	require.NoError(t, err)
	defer f.Close()
	rd := artifact.NewReader(f)
	var recs []artifact.Record
	for {
		rec, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		recs = append(recs, *rec)
	}
	tr := rd.Summary()
	require.NotNil(t, tr)
	require.NotNil(t, tr.Budget)
	require.NotNil(t, tr.Budget.CostBudget, "the trailer judges the root's cost budget")
	assert.InDelta(t, limit, tr.Budget.CostBudget.BudgetUSD, 1e-12)

	rep := report.Tokens(recs, rd.Meta(), report.WithTrailer(tr, recs))
	require.NotNil(t, rep.Budget, "the token report's budget is the trailer's")
	require.NotNil(t, rep.Budget.CostBudget)
	assert.InDelta(t, limit, rep.Budget.CostBudget.BudgetUSD, 1e-12)
	assert.True(t, rep.Budget.CostBudget.OverBudgetUSD)

	ts := start(t, dir)
	_, page := ts.get(t, "/")
	cells := map[string]string{}
	for _, r := range rows(t, page) {
		cells[r.path] = r.cols["budget"]
	}
	require.Contains(t, cells, name)
	assert.Regexp(t, `^\$0\.\d{4} of \$0\.0040 \(\d+\.\d%\), over budget$`, cells[name], "over its cost budget")
	assert.Contains(t, page, `<td data-col="budget" class="budget-over">`)
}
