package viewer_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/internal/browsertest"
	"github.com/agenttrace/agenttrace/semconv"
	"github.com/agenttrace/agenttrace/viewer"
)

// TestBrowserAgentRowsNamedForTheAgent: an agent's row in the waterfall
// carries the agent's name (gen_ai.agent.name as the library recorded
// it), not the span's, which some libraries name after the model
// ("invoke_agent gpt-4o-mini"); the span's name stays the row's title.
func TestBrowserAgentRowsNamedForTheAgent(t *testing.T) {
	ctx := browsertest.New(t, browsertest.WithWindow(1280, 900))
	for _, lib := range []string{"vercel-ai-v7", "vercel-ai-google", "openinference-vercel-ai", "mastra", "strands-agents"} {
		t.Run(lib, func(t *testing.T) {
			run := realRun(t, lib, "tool-loop", false)
			open(t, ctx, writePage(t, []viewer.Run{run}))
			agents := 0
			var rd semconv.Reading
			for i := range run.Records {
				sp := run.Records[i].Span
				name, ok := sp.Attributes().Get(semconv.AgentName)
				if run.Records[i].Read(&rd); !ok || rd.Kind != semconv.Agent {
					continue
				}
				agents++
				type row struct{ Name, Title string }
				got := eval[row](t, ctx, `(() => {
				  const e = document.querySelector('#rows .row[data-span-id="`+sp.SpanID().String()+`"] .name');
				  return e ? { Name: e.textContent, Title: e.title } : { Name: '', Title: '' };
				})()`)
				assert.Equal(t, name.Str(), got.Name, "span %q", sp.Name())
				assert.Equal(t, sp.Name(), got.Title)
			}
			require.Positive(t, agents, "the payload has a named agent")
		})
	}
}
