package converter_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/redact"
)

// TestEncoderRedactsInItsWalk: an Encoder with a SpanRedactor (the
// redaction done in the walk that reads and encodes a span's attributes)
// writes, for every span of every captured OTLP/JSON traces payload
// (testdata/real), the same line and reading as redacting the span first
// (redact.Redactor.Span) and encoding it after; and leaves the span as
// Span leaves it. Each payload also gets a planted secret in a message, a
// named key holding a map (redaction turns it into a string: the reading
// must see the new type) and a secret in the span's name, status and an
// event.
func TestEncoderRedactsInItsWalk(t *testing.T) {
	files, err := filepath.Glob("../testdata/real/*/payloads/*.traces.json")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	secret := "sk-" + "proj-" + strings.Repeat("Ab3_", 12)
	red := redact.New([]string{"user.profile"}, true)
	spans := 0
	for _, name := range files {
		raw, err := os.ReadFile(name)
		require.NoError(t, err)
		var u ptrace.JSONUnmarshaler
		td, err := u.UnmarshalTraces(raw)
		require.NoError(t, err, name)
		plant(td, secret)
		first, walked := ptrace.NewTraces(), ptrace.NewTraces()
		td.CopyTo(first)
		td.CopyTo(walked)
		a, b := artifact.Records(first), artifact.Records(walked)
		require.Len(t, b, len(a))
		var plain, hooked artifact.Encoder
		hooked.SetRedactor(red.Walk())
		for i := range a {
			red.Span(a[i].Span)
			want := plain.AppendRecord(nil, &a[i])
			got := hooked.AppendRecord(nil, &b[i])
			require.Equal(t, string(want), string(got), "%s span %d", name, i)
			assert.Equal(t, *plain.Reading(), *hooked.Reading(), "%s span %d", name, i)
			assert.Equal(t, a[i].Span, b[i].Span, "%s span %d: redacted alike", name, i)
			assert.NotContains(t, string(got), secret)
			spans++
		}
	}
	assert.Greater(t, spans, 100, "the captured spans were found")
}

// plant puts secrets and a named key into the first span of each scope.
func plant(td ptrace.Traces, secret string) {
	for _, rs := range td.ResourceSpans().All() {
		for _, ss := range rs.ScopeSpans().All() {
			if ss.Spans().Len() == 0 {
				continue
			}
			sp := ss.Spans().At(0)
			sp.SetName(sp.Name() + " " + secret)
			sp.Status().SetMessage("rejected key " + secret)
			sp.Attributes().PutStr("note", "my key is "+secret)
			sp.Attributes().PutEmptyMap("user.profile").PutStr("email", "ada@example.com")
			sp.Events().AppendEmpty().Attributes().PutStr("gen_ai.prompt", "use "+secret)
		}
	}
}
