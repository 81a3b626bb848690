package viewer_test

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/viewer"
)

// The view model lists a run's records in the waterfall's order, which the
// page builds its tree from as the records come (issue 24): every record
// after the record it is drawn under (its parent, or the view_parent a
// folded wrapper gives it), siblings by start, every record once, and a
// folded wrapper just before the model call it is folded into. Checked on every payload captured from the real libraries,
// the parent links read from the records themselves.
func TestRecordsComeInWaterfallOrder(t *testing.T) {
	traces, err := filepath.Glob(filepath.Join(realDir, "*", "payloads", "*.traces.pb"))
	require.NoError(t, err)
	require.NotEmpty(t, traces)
	foldedSeen := 0 // wrappers folded into their calls (the double-* captures)
	for _, tp := range traces {
		lib := filepath.Base(filepath.Dir(filepath.Dir(tp)))
		scenario := strings.TrimSuffix(filepath.Base(tp), ".traces.pb")
		t.Run(lib+"/"+scenario, func(t *testing.T) {
			run := realRun(t, lib, scenario, false)
			var buf bytes.Buffer
			require.NoError(t, viewer.WriteRunJSON(&buf, run))
			var v struct {
				Ordered bool `json:"ordered"`
				Count   int  `json:"count"`
				Records []struct {
					T0     float64 `json:"t0"`
					Trace  string  `json:"trace_id"`
					Span   string  `json:"span_id"`
					Parent string  `json:"parent_span_id"`
					View   *string `json:"view_parent"`
					Into   string  `json:"folded_into"`
				} `json:"records"`
			}
			require.NoError(t, json.Unmarshal(buf.Bytes(), &v))
			require.True(t, v.Ordered)
			require.Len(t, v.Records, len(run.Records))
			require.Equal(t, len(run.Records), v.Count)
			at := map[string]int{}
			for i, r := range v.Records {
				at[r.Trace+"/"+r.Span] = i
			}
			lastKid := map[string]float64{} // the start of a parent's last child so far
			for i, r := range v.Records {
				if r.Into != "" {
					foldedSeen++
					require.Less(t, i+1, len(v.Records), "a folded wrapper is followed by its call")
					require.Equal(t, r.Into, v.Records[i+1].Span, "a folded wrapper comes just before its call")
					continue
				}
				parent := r.Parent
				if r.View != nil {
					parent = *r.View
				}
				if parent == "" {
					continue
				}
				p, ok := at[r.Trace+"/"+parent]
				if !ok {
					continue // a parent the run does not hold: a pending row
				}
				require.Less(t, p, i, "record %s comes after its parent %s", r.Span, parent)
				k := r.Trace + "/" + parent
				require.GreaterOrEqual(t, r.T0, lastKid[k], "siblings by start")
				lastKid[k] = r.T0
			}
		})
	}
	require.Positive(t, foldedSeen, "some capture has a wrapper folded into its call")
}
