package converter_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/converter"
	"github.com/agenttrace/agenttrace/semconv"
)

// modelTree builds one trace of chat spans: id -> parent and the model
// each names ("" for none).
func modelTree(spans [][2]byte, models map[byte]string) []artifact.Record {
	td := ptrace.NewTraces()
	ss := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty()
	for _, s := range spans {
		sp := ss.Spans().AppendEmpty()
		sp.SetTraceID(pcommon.TraceID{9})
		sp.SetSpanID(pcommon.SpanID{s[0]})
		if s[1] != 0 {
			sp.SetParentSpanID(pcommon.SpanID{s[1]})
		}
		sp.Attributes().PutStr(semconv.OperationName, "chat")
		if m := models[s[0]]; m != "" {
			sp.Attributes().PutStr(semconv.ResponseModel, m)
			sp.Attributes().PutStr(semconv.ProviderName, "openai")
		}
	}
	return artifact.Records(td)
}

// TestInheritModels: a model call that names no model takes the model of
// the call it wraps, else of the call that wraps it; several models below
// name none of them.
func TestInheritModels(t *testing.T) {
	cases := []struct {
		name   string
		spans  [][2]byte
		models map[byte]string
		want   map[byte]string // span -> inherited model; absent: none
		from   map[byte]byte
	}{
		{"a step around the SDK's call", [][2]byte{{1, 0}, {2, 1}}, map[byte]string{2: "m"},
			map[byte]string{1: "m"}, map[byte]byte{1: 2}},
		{"steps below the generation that names it", [][2]byte{{1, 0}, {2, 1}, {3, 1}}, map[byte]string{1: "m"},
			map[byte]string{2: "m", 3: "m"}, map[byte]byte{2: 1, 3: 1}},
		{"below wins over above", [][2]byte{{1, 0}, {2, 1}, {3, 2}}, map[byte]string{1: "up", 3: "down"},
			map[byte]string{2: "down"}, map[byte]byte{2: 3}},
		{"two models below, the one above", [][2]byte{{1, 0}, {2, 1}, {3, 2}, {4, 2}}, map[byte]string{1: "up", 3: "a", 4: "b"},
			map[byte]string{2: "up"}, map[byte]byte{2: 1}},
		{"two models below, none above", [][2]byte{{2, 0}, {3, 2}, {4, 2}}, map[byte]string{3: "a", 4: "b"},
			map[byte]string{}, nil},
		{"every call names its own", [][2]byte{{1, 0}, {2, 1}}, map[byte]string{1: "a", 2: "b"}, nil, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			recs := modelTree(tc.spans, tc.models)
			got := converter.InheritModels(recs)
			if tc.want == nil {
				assert.Nil(t, got)
				return
			}
			for i := range recs {
				id := recs[i].Span.SpanID()[0]
				m, ok := got[i]
				want, inherits := tc.want[id]
				if assert.Equal(t, inherits, ok, "span %d", id) && ok {
					assert.Equal(t, want, m.Model, "span %d", id)
					assert.Equal(t, "openai", m.Provider, "span %d takes the provider with the model", id)
					assert.Equal(t, pcommon.SpanID{tc.from[id]}, m.From, "span %d", id)
				}
			}
		})
	}
}

// TestInheritToolNames: a tool span that no key and no span name names
// takes the name from the messages of its call: a tool message it
// produced, else the model's tool call with its call id.
func TestInheritToolNames(t *testing.T) {
	call := func(id, output string) map[string]string {
		m := map[string]string{semconv.OperationName: semconv.OpExecuteTool}
		if id != "" {
			m[semconv.ToolCallID] = id
		}
		if output != "" {
			m[semconv.OutputMessages] = output
		}
		return m
	}
	asks := func(calls ...[2]string) map[string]string {
		parts := ""
		for i, c := range calls {
			if i > 0 {
				parts += ","
			}
			parts += `{"type":"tool_call","id":"` + c[0] + `","name":"` + c[1] + `","arguments":{}}`
		}
		return map[string]string{semconv.OperationName: "chat", semconv.OutputMessages: `[{"role":"assistant","parts":[` + parts + `]}]`}
	}
	cases := []struct {
		name  string
		spans []map[string]string // span i+1, each under span 1
		want  map[byte]string
		from  map[byte]byte
	}{
		{"the model's call with its id", []map[string]string{asks([2]string{"c1", "get_weather"}, [2]string{"c2", "get_time"}), call("c2", "")},
			map[byte]string{2: "get_time"}, map[byte]byte{2: 1}},
		{"the tool message it produced", []map[string]string{{semconv.OperationName: "invoke_agent"},
			call("", `[{"role":"tool","name":"lookup","parts":[{"type":"tool_call_response","id":"c9","response":"x"}]}]`)},
			map[byte]string{2: "lookup"}, map[byte]byte{2: 2}},
		{"no id, no message", []map[string]string{asks([2]string{"c1", "get_weather"}), call("", "")},
			map[byte]string{}, nil},
		{"an id no message has", []map[string]string{asks([2]string{"c1", "get_weather"}), call("c7", "")},
			map[byte]string{}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			td := ptrace.NewTraces()
			ss := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty()
			for i, attrs := range tc.spans {
				sp := ss.Spans().AppendEmpty()
				sp.SetTraceID(pcommon.TraceID{3})
				sp.SetSpanID(pcommon.SpanID{byte(i + 1)})
				if i > 0 {
					sp.SetParentSpanID(pcommon.SpanID{1})
				}
				sp.SetName("tool")
				for k, v := range attrs {
					sp.Attributes().PutStr(k, v)
				}
			}
			recs := artifact.Records(td)
			got := converter.InheritToolNames(recs)
			for i := range recs {
				id := recs[i].Span.SpanID()[0]
				n, ok := got[i]
				want, named := tc.want[id]
				if assert.Equal(t, named, ok, "span %d", id) && ok {
					assert.Equal(t, want, n.Name, "span %d", id)
					assert.Equal(t, pcommon.SpanID{tc.from[id]}, n.From, "span %d", id)
				}
			}
		})
	}
}
