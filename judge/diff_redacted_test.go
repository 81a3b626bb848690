package judge_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/internal/artifacttest"
	"github.com/agenttrace/agenttrace/judge"
)

// TestDiffSeesRedactionPlaceholders: a tool-dispatch trace whose arguments
// hold "[redacted]" is reported as redacted even though its header has no
// redacted flag (the older shape has none); the placeholders keep only
// their calls out of the payload comparison.
func TestDiffSeesRedactionPlaceholders(t *testing.T) {
	recs, _ := artifacttest.Read(t, "../testdata/legacy/tool-dispatch-plugin.jsonl")
	rep := judge.Diff(recs, recs)
	require.False(t, rep.Diverged)
	require.True(t, rep.Redacted.A)
	require.True(t, rep.Redacted.B)
	require.True(t, rep.PayloadsCompared, "no header says the whole run was redacted")
}

// TestDiffOneRedactedField: a placeholder in one call's arguments keeps
// that call's payload out of the comparison, not the whole run's: a later
// call whose arguments changed is still reported (issue 26: one redacted
// field turned payload comparison off for the run).
func TestDiffOneRedactedField(t *testing.T) {
	mk := func(token, city string) []artifact.Record {
		r := newRun("one-redacted", time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC))
		r.tool("c0", "", "login", "call_1", 0, 10, `{"token":"`+token+`"}`, `{"ok":true}`)
		r.tool("c1", "", "search", "call_2", 20, 30, `{"city":"`+city+`"}`, `{"hits":3}`)
		return r.records()
	}
	a, b := mk("[REDACTED]", "Lisbon"), mk("tok-live", "Porto")
	rep := judge.Diff(a, b)
	assert.True(t, rep.Redacted.A)
	assert.True(t, rep.PayloadsCompared)
	assert.Equal(t, 1, rep.Counts.ArgsChanged, "the search's changed city is compared and found")
	require.Len(t, rep.Divergences, 1)
	assert.Equal(t, "search", rep.Divergences[0].A.Tool)
	assert.NotEmpty(t, rep.Divergences[0].Changes)
}

// TestDiffCapKeepsTheError: a call whose outcome changed and whose
// arguments differ in more paths than the cap lists still shows the
// result's error among the listed changes (issue 26: the 20-path cap hid
// the error code that explained the divergence).
func TestDiffCapKeepsTheError(t *testing.T) {
	mk := func(v string, result string) []artifact.Record {
		r := newRun("cap", time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC))
		args := map[string]any{}
		for i := range judge.DefaultMaxChanges + 5 {
			args[fmt.Sprintf("k%02d", i)] = v
		}
		raw, err := json.Marshal(args)
		require.NoError(t, err)
		sp := r.tool("c0", "", "book", "call_1", 0, 10, string(raw), result)
		if v == "b" {
			fail(sp, "rate_limited", "429")
		}
		return r.records()
	}
	rep := judge.Diff(mk("a", `{"ok":true}`), mk("b", `{"error":"rate_limited"}`))
	require.Len(t, rep.Divergences, 1)
	d := rep.Divergences[0]
	assert.True(t, d.ChangesTruncated)
	var paths []string
	for _, c := range d.Changes {
		paths = append(paths, c.Path)
	}
	assert.Contains(t, strings.Join(paths, " "), "result", "the result's change is listed: %v", paths)
}
