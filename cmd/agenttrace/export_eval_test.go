package main

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/internal/evalrun"
)

// evalSummary is one entry of tokens --json's evaluations.
type evalSummary struct {
	Name      string           `json:"name"`
	Count     int64            `json:"count"`
	Scored    int64            `json:"scored"`
	MeanScore *float64         `json:"mean_score"`
	Labels    map[string]int64 `json:"labels"`
	Errors    int64            `json:"errors"`
}

// wantSummaries is the summary of evalrun.Verdicts, the verdicts the
// run was written with, by name in name order.
func wantSummaries() []evalSummary {
	by := map[string]*evalSummary{}
	sums := map[string]float64{}
	var names []string
	for _, v := range evalrun.Verdicts {
		s := by[v.Name]
		if s == nil {
			s = &evalSummary{Name: v.Name, Labels: map[string]int64{}}
			by[v.Name] = s
			names = append(names, v.Name)
		}
		s.Count++
		if v.Score != nil {
			s.Scored++
			sums[v.Name] += *v.Score
		}
		if v.Label != "" {
			s.Labels[v.Label]++
		}
	}
	slices.Sort(names)
	out := make([]evalSummary, 0, len(names))
	for _, n := range names {
		s := by[n]
		if s.Scored > 0 {
			m := sums[n] / float64(s.Scored)
			s.MeanScore = &m
		}
		out = append(out, *s)
	}
	return out
}

// TestEvaluationsTokensAndExport is issue 25's check for evaluation
// results outside the page: a run written with the OTel Go SDK whose chat
// calls were judged (span events on one, log records on the other) gives
// tokens --json the summary per evaluation name (count, mean score, labels
// with counts) and export each call's verdicts in its line's evaluations;
// and both survive the round trip artifact -> OTLP (spans and logs) ->
// artifact.
func TestEvaluationsTokensAndExport(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	art, err := evalrun.Write(dir)
	require.NoError(t, err)
	traces, logs, back := filepath.Join(dir, "otlp.json"), filepath.Join(dir, "logs.json"), filepath.Join(dir, "back.jsonl")
	r := agenttrace(t, "", "convert", art, "-o", traces, "--logs-out", logs)
	require.Equal(t, 0, r.code, r.stderr)
	r = agenttrace(t, "", "convert", traces, logs, "-o", back)
	require.Equal(t, 0, r.code, r.stderr)

	for _, in := range []string{art, back} {
		t.Run(filepath.Base(in), func(t *testing.T) {
			r := agenttrace(t, "", "tokens", "--json", in)
			require.Equal(t, 0, r.code, r.stderr)
			var rep struct {
				Evaluations []evalSummary `json:"evaluations"`
			}
			require.NoError(t, json.Unmarshal([]byte(r.stdout), &rep))
			want := wantSummaries()
			require.Len(t, rep.Evaluations, len(want))
			for i, w := range want {
				got := rep.Evaluations[i]
				if w.MeanScore != nil {
					require.NotNil(t, got.MeanScore, w.Name)
					assert.InDelta(t, *w.MeanScore, *got.MeanScore, 1e-12, w.Name)
					got.MeanScore = w.MeanScore
				}
				assert.Equal(t, w, got)
			}
			text := agenttrace(t, "", "tokens", in)
			require.Equal(t, 0, text.code, text.stderr)
			assert.Contains(t, text.stdout, "\nEvaluations\n")
			for _, w := range want {
				assert.Contains(t, text.stdout, "  "+w.Name+" ")
			}

			r = agenttrace(t, "", "export", "--format", "chat-jsonl", in)
			require.Equal(t, 0, r.code, r.stderr)
			lines := parseChatJSONL(t, r.stdout)
			require.Len(t, lines, len(evalrun.Answers), "one line per chat call")
			for i, l := range lines {
				assert.Equal(t, evalrun.Answers[i], *l.Messages[len(l.Messages)-1].Content)
				var want []string
				for _, v := range evalrun.Verdicts {
					if v.Call == i {
						want = append(want, v.Name+"|"+v.Label+"|"+v.Explanation+"|"+scoreText(v.Score))
					}
				}
				var got []string
				for _, e := range l.Evaluations {
					got = append(got, e.Name+"|"+e.Label+"|"+e.Explanation+"|"+scoreText(e.Score))
					assert.Equal(t, "chatcmpl-"+strconv.Itoa(i), e.ResponseID)
				}
				assert.Equal(t, want, got, "line %d", i)
			}
			run := agenttrace(t, "", "export", "--format", "chat-jsonl", "--per", "run", in)
			require.Equal(t, 0, run.code, run.stderr)
			perRun := parseChatJSONL(t, run.stdout)
			require.Len(t, perRun, 1)
			assert.Len(t, perRun[0].Evaluations, len(evalrun.Verdicts), "--per run: every verdict of the run")
		})
	}
}

func scoreText(s *float64) string {
	if s == nil {
		return "-"
	}
	b, _ := json.Marshal(*s)
	return string(b)
}
