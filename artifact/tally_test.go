package artifact_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/semconv"
)

// CallEstimate is worked out once per reading (the encoder's and the
// tally's ask for the same span) and is always the span's own: the next
// span read gets its own estimate, never the one kept for the span
// before.
func TestCallEstimateKeptPerSpan(t *testing.T) {
	toolSpan := func(result string, estimate int64) ptrace.Span {
		sp := ptrace.NewSpan()
		a := sp.Attributes()
		a.PutStr(semconv.OperationName, "execute_tool")
		a.PutStr(semconv.ToolName, "search")
		if result != "" {
			a.PutStr(semconv.ToolCallResult, result)
		}
		if estimate > 0 {
			a.PutInt(semconv.EstimatedTokens, estimate)
		}
		return sp
	}
	spans := []struct {
		sp   ptrace.Span
		want int64 // (bytes + 3) / 4, or the estimate the span carries
	}{
		{toolSpan(strings.Repeat("r", 400), 0), 100},
		{toolSpan(strings.Repeat("r", 401), 0), 101},
		{toolSpan(strings.Repeat("r", 400), 7), 7},
		{toolSpan("", 0), 0},
		{toolSpan(strings.Repeat("r", 8), 0), 2},
	}
	var rd semconv.Reading
	for i, s := range spans {
		attrs := s.sp.Attributes()
		semconv.Read(&rd, s.sp.Name(), attrs, false)
		assert.Equal(t, s.want, artifact.CallEstimate(&rd, attrs), "span %d, worked out", i)
		assert.Equal(t, s.want, artifact.CallEstimate(&rd, attrs), "span %d, kept", i)
	}
}

// Failed finds error.type and an HTTP status whether or not the span's
// other keys are the table's.
func TestFailedTableKeys(t *testing.T) {
	cases := []struct {
		name      string
		kv        map[string]any
		wantError bool
	}{
		{"table keys, error.type", map[string]any{semconv.OperationName: "chat", semconv.RequestModel: "m", semconv.ErrorType: "timeout"}, true},
		{"table keys, empty error.type", map[string]any{semconv.OperationName: "chat", semconv.ErrorType: ""}, false},
		{"table keys, no failure", map[string]any{semconv.OperationName: "chat", semconv.RequestModel: "m"}, false},
		{"an HTTP status 503 beside table keys", map[string]any{semconv.OperationName: "chat", "http.response.status_code": int64(503)}, true},
		{"the legacy HTTP status as a string", map[string]any{"http.status_code": "404"}, true},
		{"an HTTP status 200", map[string]any{semconv.OperationName: "chat", "http.response.status_code": int64(200)}, false},
		{"error.type beside a key outside the table", map[string]any{semconv.ErrorType: "boom", "custom.key": "x"}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sp := ptrace.NewSpan()
			sp.SetName("span")
			assert.NoError(t, sp.Attributes().FromRaw(tc.kv))
			var rd semconv.Reading
			semconv.Read(&rd, sp.Name(), sp.Attributes(), false)
			assert.Equal(t, tc.wantError, artifact.Failed(sp, &rd))
		})
	}
}
