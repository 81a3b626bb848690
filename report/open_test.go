package report_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/report"
	"github.com/agenttrace/agenttrace/semconv"
)

// TestOpenAgentsNameTheirCalls: on every captured payload with an agent
// span, the run read while its agents still run (their spans open, every
// other span ended) puts each ended model call under the agent the
// finished run puts it under (report.WithOpen), and counts no open span:
// the by-agent tokens are the finished run's, the agents' runs 0.
func TestOpenAgentsNameTheirCalls(t *testing.T) {
	tried := 0
	for f, recs := range capturedRuns(t, "*") {
		var ended, open []artifact.Record
		var rd semconv.Reading
		for i := range recs {
			if recs[i].Read(&rd); rd.Kind == semconv.Agent {
				open = append(open, recs[i])
			} else {
				ended = append(ended, recs[i])
			}
		}
		if len(open) == 0 {
			continue
		}
		tried++
		meta := artifact.MetaFor(recs)
		done := report.Tokens(recs, meta)
		live := report.Tokens(ended, meta, report.WithOpen(open))
		assert.Zero(t, live.Records.Agent, "%s: no open span is counted", f)
		assert.Equal(t, done.Tokens, live.Tokens, "%s: the totals are the ended calls'", f)
		want := map[string]artifact.Tokens{}
		for _, a := range done.ByAgent {
			want[a.Agent] = a.Tokens
		}
		for _, a := range live.ByAgent {
			assert.Zero(t, a.Runs, "%s: %s has not ended", f, a.Agent)
			assert.Equal(t, want[a.Agent], a.Tokens, "%s: %s", f, a.Agent)
		}
	}
	assert.Positive(t, tried, "some captured payload has an agent span")
}
