package store

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/plog"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/redact"
	"github.com/agenttrace/agenttrace/semconv"
)

// TestRedactorOption: with Options.Redactor the store redacts everything
// it writes, whoever calls it: a resource's, a scope's, a span's and a
// span event's attributes, a log record's body, across several artifacts
// written in parallel, by conversation too (routing reads the redacted
// spans); the header says what was done; and the caller's Prepare still
// sees every record.
func TestRedactorOption(t *testing.T) {
	secret := "sk-" + "proj-" + strings.Repeat("Ab3_", 12)
	for _, route := range []Route{ByTrace, ByConversation} {
		dir := t.TempDir()
		prepared := 0
		s := newStore(t, Options{Dir: dir, Route: route, Redactor: redact.New([]string{"user.email"}, true),
			Prepare: func(*artifact.Record) { prepared++ }})
		// The log record first: held until its trace's artifact exists.
		ld := plog.NewLogs()
		lr := ld.ResourceLogs().AppendEmpty().ScopeLogs().AppendEmpty().LogRecords().AppendEmpty()
		lr.SetTraceID(tid(1))
		lr.SetSpanID(sid(2))
		lr.Body().SetStr("my key is " + secret)
		require.NoError(t, s.WriteLogs(artifact.LogRecords(ld)))
		var spans []span
		for tr := byte(1); tr <= 8; tr++ {
			spans = append(spans, span{trace: tr, id: 2, parent: 1, conv: "c" + string('0'+rune(tr))}, span{trace: tr, id: 1})
		}
		recs := records(spans...)
		recs[0].Resource.Attributes().PutStr("deploy.token", secret)
		recs[0].Scope.Attributes().PutStr("note", "key "+secret)
		for i := range recs {
			recs[i].Span.Attributes().PutStr("user.email", "ada@example.com")
			recs[i].Span.Events().AppendEmpty().Attributes().PutStr("gen_ai.prompt", "use "+secret)
		}
		require.NoError(t, s.Write(recs))
		assert.Equal(t, len(recs), prepared, "Prepare sees every record (route %d)", route)

		require.NoError(t, s.Close())

		files, err := filepath.Glob(filepath.Join(dir, "*"+Ext))
		require.NoError(t, err)
		require.Len(t, files, 8)
		for _, f := range files {
			raw, err := os.ReadFile(f)
			require.NoError(t, err)
			assert.NotContains(t, string(raw), secret, f)
			assert.NotContains(t, string(raw), "ada@example.com", f)
			assert.Contains(t, string(raw), "[REDACTED]", f)
			m := readBack(t, raw).meta
			require.NotNil(t, m, f)
			assert.True(t, m.Redacted, "named keys: the header says redacted")
			assert.True(t, m.SecretsScanned, "the header says scanned")
		}
	}
}

// TestRedactorThatChangesNothing: a Redactor with no keys and no scan is
// dropped, and the header claims nothing.
func TestRedactorThatChangesNothing(t *testing.T) {
	dir := t.TempDir()
	s := newStore(t, Options{Dir: dir, Redactor: redact.New(nil, false)})
	assert.Nil(t, s.opts.Redactor)
	require.NoError(t, s.Write(records(span{trace: 1, id: 1})))
	require.NoError(t, s.Close())
	m := readPath(t, filepath.Join(dir, tid(1).String()+Ext)).meta
	require.NotNil(t, m)
	assert.False(t, m.Redacted)
	assert.False(t, m.SecretsScanned)
}

// TestRedactorNamingTheBudget: a header reads a local root's budget
// before the encoder redacts the span; with a Redactor that names the
// budget's key, the records are redacted first, so the header, like the
// root's line, holds no budget the redaction removed. With a Redactor that
// only scans for secrets, the root's budget is the header's.
func TestRedactorNamingTheBudget(t *testing.T) {
	for _, tt := range []struct {
		name   string
		keys   []string
		budget bool
	}{
		{"scan only", nil, true},
		{"budget key named", []string{semconv.BudgetTokens}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			s := newStore(t, Options{Dir: dir, Redactor: redact.New(tt.keys, true)})
			recs := records(span{trace: 1, id: 2, parent: 1}, span{trace: 1, id: 1})
			root := recs[0].Span // records sorts by end: the root ends first here
			require.True(t, root.ParentSpanID().IsEmpty())
			root.Attributes().PutInt(semconv.BudgetTokens, 5000)
			require.NoError(t, s.Write(recs))
			require.NoError(t, s.Close())
			raw, err := os.ReadFile(filepath.Join(dir, tid(1).String()+Ext))
			require.NoError(t, err)
			m := readBack(t, raw).meta
			require.NotNil(t, m)
			if tt.budget {
				require.NotNil(t, m.Budget)
				assert.Equal(t, int64(5000), m.Budget.Tokens)
				return
			}
			assert.Nil(t, m.Budget, "the named key's value is redacted before the header reads it")
			assert.Contains(t, string(raw), `"agenttrace.budget.tokens":"[REDACTED]"`)
		})
	}
}
