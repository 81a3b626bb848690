package viewer_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/internal/browsertest"
	"github.com/agenttrace/agenttrace/semconv"
	"github.com/agenttrace/agenttrace/viewer"
)

// manyAgents is a run of n agents, each with one chat of its own model:
// breakdowns of n rows by agent and by model.
func manyAgents(n int) viewer.Run {
	var recs []artifact.Record
	for i := range n {
		for j, op := range []string{"invoke_agent", "chat"} {
			sp := ptrace.NewSpan()
			sp.SetTraceID(pcommon.TraceID{9})
			sp.SetSpanID(pcommon.SpanID{byte(i), byte(j), 1})
			if j == 1 {
				sp.SetParentSpanID(pcommon.SpanID{byte(i), 0, 1})
			}
			start := pcommon.Timestamp(1e18 + uint64(i)*1e9 + uint64(j)*1e8)
			sp.SetStartTimestamp(start)
			sp.SetEndTimestamp(start + 5e8)
			sp.SetName(fmt.Sprintf("%s agent-%02d", op, i))
			a := sp.Attributes()
			a.PutStr(semconv.OperationName, op)
			a.PutStr(semconv.AgentName, fmt.Sprintf("agent-%02d", i))
			if j == 1 {
				a.PutStr(semconv.RequestModel, fmt.Sprintf("model-%02d", i))
				a.PutInt(semconv.UsageInputTokens, int64(100+i))
				a.PutInt(semconv.UsageOutputTokens, 10)
			}
			recs = append(recs, artifact.Record{Span: sp, Resource: pcommon.NewResource(), Scope: pcommon.NewInstrumentationScope()})
		}
	}
	return viewer.Run{Name: "many-agents", Meta: artifact.MetaFor(recs), Records: recs}
}

// TestBrowserWaterfallAboveTheFold: on a 1280×800 screen the waterfall
// and its first rows are in the first screen, for a real run and for one
// of 30 agents whose breakdowns would push it down; the breakdown tables
// come after it, each showing its top 10 rows and "Show all" for the
// rest, which shows them.
func TestBrowserWaterfallAboveTheFold(t *testing.T) {
	ctx := browsertest.New(t, browsertest.WithWindow(1280, 800))
	for _, run := range []viewer.Run{realRun(t, "vercel-ai-v7", "tool-loop", false), manyAgents(30)} {
		t.Run(run.Name, func(t *testing.T) {
			open(t, ctx, writePage(t, []viewer.Run{run}))
			type fold struct {
				Rows      float64
				Height    float64
				TablesTop float64
				AgentRows int
				ShowAll   int
				Waterfall float64
			}
			got := eval[fold](t, ctx, `(() => {
			  const row = document.querySelector('#rows .row');
			  return { Rows: row ? row.getBoundingClientRect().bottom : 1e9, Height: window.innerHeight,
			    TablesTop: document.getElementById('tables').getBoundingClientRect().top,
			    Waterfall: document.getElementById('waterfall').getBoundingClientRect().top,
			    AgentRows: document.querySelectorAll('#by-agent tbody tr').length,
			    ShowAll: document.querySelectorAll('.show-all-rows').length };
			})()`)
			assert.Less(t, got.Rows, got.Height, "the first waterfall row is on the first screen")
			assert.Greater(t, got.TablesTop, got.Waterfall, "the breakdowns come after the waterfall")
			if run.Name != "many-agents" {
				assert.Zero(t, got.ShowAll, "a small run's tables are whole")
				return
			}
			assert.Equal(t, 10, got.AgentRows, "the top 10 agents")
			require.Positive(t, got.ShowAll)
			eval[bool](t, ctx, `document.querySelector('.show-all-rows[data-table="by-agent"]').click(), true`)
			assert.Equal(t, 30, eval[int](t, ctx, `document.querySelectorAll('#by-agent tbody tr').length`), "show all shows them all")
		})
	}
}
