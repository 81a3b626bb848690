package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/semconv"
	"github.com/agenttrace/agenttrace/store"
)

// TestValidateLateRootBudget: a root span whose agenttrace.budget.tokens
// arrives after its trace's header was written sets the budget the
// trailer is judged against (docs/format.md §3), so validate takes the
// trailer's budget_tokens when it is the root's; one that is neither the
// header's nor the root's is still a problem.
func TestValidateLateRootBudget(t *testing.T) {
	dir := t.TempDir()
	s, err := store.New(store.Options{Dir: dir, Header: store.HeaderOptions{Budget: &artifact.Budget{Tokens: 1000}}})
	require.NoError(t, err)
	tid := pcommon.TraceID{1}
	batch := func(id, parent byte, attrs func(pcommon.Map)) []artifact.Record {
		td := ptrace.NewTraces()
		sp := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans().AppendEmpty()
		sp.SetTraceID(tid)
		sp.SetSpanID(pcommon.SpanID{id})
		if parent != 0 {
			sp.SetParentSpanID(pcommon.SpanID{parent})
		}
		sp.SetStartTimestamp(pcommon.Timestamp(1_777_000_000_000_000_000 + uint64(id)))
		sp.SetEndTimestamp(pcommon.Timestamp(1_777_000_001_000_000_000 - uint64(id)))
		attrs(sp.Attributes())
		return artifact.Records(td)
	}
	require.NoError(t, s.Write(batch(2, 1, func(m pcommon.Map) {
		m.PutStr(semconv.OperationName, "chat")
		m.PutStr("gen_ai.request.model", "gpt-4o")
		m.PutInt("gen_ai.usage.input_tokens", 1200)
		m.PutInt("gen_ai.usage.output_tokens", 300)
	})))
	require.NoError(t, s.Write(batch(1, 0, func(m pcommon.Map) {
		m.PutStr(semconv.OperationName, "invoke_agent")
		m.PutInt(semconv.BudgetTokens, 2000)
	})))
	require.NoError(t, s.Close())
	path := filepath.Join(dir, store.FileName(store.TraceKey(tid), ""))

	r := agenttrace(t, "", "validate", path)
	assert.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	assert.Contains(t, r.stdout, "ok (2 records)")

	raw := readFile(t, path)
	require.Contains(t, raw, `"budget_tokens":2000`, "the trailer judges the root's budget")
	bad := writeTemp(t, "bad.jsonl", strings.Replace(raw, `"budget_tokens":2000`, `"budget_tokens":3000`, 1))
	r = agenttrace(t, "", "validate", bad)
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stdout, "summary says budget.budget_tokens 3000, the header's budget is 1000")
}
