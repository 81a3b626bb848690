package store

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/semconv"
)

// TestTurnEnds: FsyncTurn's turn is a model call, a tool call or a local
// root ending; other spans (an HTTP span, an agent step below the root)
// wait for the next one. The spans are built here, one per case, in the
// shapes the GenAI conventions give them.
func TestTurnEnds(t *testing.T) {
	child := func(name, op string) func(ptrace.Span) {
		return func(sp ptrace.Span) {
			sp.SetName(name)
			sp.SetParentSpanID(sid(1))
			if op != "" {
				sp.Attributes().PutStr(semconv.OperationName, op)
			}
		}
	}
	cases := []struct {
		name  string
		spans []func(ptrace.Span)
		want  bool
	}{
		{"none", nil, false},
		{"model call", []func(ptrace.Span){child("chat m", "chat")}, true},
		{"tool call", []func(ptrace.Span){child("execute_tool search", "execute_tool")}, true},
		{"agent step below the root", []func(ptrace.Span){child("invoke_agent sub", "invoke_agent")}, false},
		{"plain span", []func(ptrace.Span){child("GET /weather", "")}, false},
		{"local root", []func(ptrace.Span){func(sp ptrace.Span) { sp.SetName("invoke_agent a") }}, true},
		{"a tool call after plain spans", []func(ptrace.Span){child("GET /a", ""), child("GET /b", ""), child("execute_tool x", "execute_tool")}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			td := ptrace.NewTraces()
			ss := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty()
			for i, set := range tc.spans {
				sp := ss.Spans().AppendEmpty()
				sp.SetTraceID(tid(1))
				sp.SetSpanID(pcommon.SpanID{2, byte(i)})
				set(sp)
			}
			assert.Equal(t, tc.want, TurnEnds(artifact.Records(td)))
		})
	}
}
