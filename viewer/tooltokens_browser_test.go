package viewer_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/internal/browsertest"
	"github.com/agenttrace/agenttrace/report"
	"github.com/agenttrace/agenttrace/viewer"
)

// TestToolDispatchTotalAgreesWithBudget: on a tool-dispatch trace (no
// model call reports usage; testdata/legacy/tool-dispatch.jsonl, the
// older shape of a tool-dispatch server) the Total card read 0 while the
// budget bar read what the tool calls' estimate spent (issue 26): now both
// show the budget's spent.
func TestToolDispatchTotalAgreesWithBudget(t *testing.T) {
	run := readRun(t, "../testdata/legacy/tool-dispatch.jsonl")
	rep := report.Tokens(run.Records, run.Meta)
	require.NotNil(t, rep.Budget)
	require.Zero(t, rep.Tokens.Total, "no model call reported usage")
	require.Positive(t, rep.Budget.Spent)
	spent := report.Thousands(rep.Budget.Spent)

	ctx := browsertest.New(t)
	open(t, ctx, writePage(t, []viewer.Run{run}))
	total := eval[string](t, ctx, `Array.from(document.querySelectorAll('#cards .card')).find(c => c.querySelector('.label').textContent === 'Total').querySelector('.value').textContent`)
	require.Equal(t, spent, total)
	require.Contains(t, eval[string](t, ctx, `document.getElementById('budget').innerText`), spent)
}
