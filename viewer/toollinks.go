package viewer

import (
	"cmp"
	"encoding/hex"
	"slices"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/converter"
	"github.com/agenttrace/agenttrace/internal/jsonlex"
	"github.com/agenttrace/agenttrace/semconv"
)

// The messages of a run as the page shows them: each record's
// conversation, and for each tool call and tool result in it the tool span
// that ran it, so that the page draws the link and decides nothing.

// viewConversation is a record's messages in the GenAI conventions'
// shape, whatever dialect the span wrote them in (semconv.Messages), so
// the page renders one message schema and knows no dialect.
type viewConversation struct {
	System []semconv.Part `json:"system,omitempty"`
	Input  []viewMessage  `json:"input,omitempty"`
	Output []viewMessage  `json:"output,omitempty"`
}

// viewMessage is a semconv.Message whose parts may link to a tool span.
type viewMessage struct {
	Role         string     `json:"role"`
	Parts        []viewPart `json:"parts"`
	Name         string     `json:"name,omitempty"`
	FinishReason string     `json:"finish_reason,omitempty"`
}

// viewPart is a part in the conventions' shape plus, for a tool call or a
// tool result, "tool_span": the span id of the tool span that ran it, in
// the record's trace (absent when none was traced). The member is the
// view model's, never the artifact's: artifacts keep the messages as the
// span wrote them.
type viewPart struct {
	semconv.Part
	ToolSpan pcommon.SpanID
}

// MarshalJSON writes the part as appendJSON does.
func (p viewPart) MarshalJSON() ([]byte, error) { return p.appendJSON(nil), nil }

// appendJSON appends the part as semconv.Part writes it, then tool_span.
func (p viewPart) appendJSON(b []byte) []byte {
	b = p.Part.AppendJSON(b)
	if p.ToolSpan.IsEmpty() {
		return b
	}
	b = append(b[:len(b)-1], `,"tool_span":"`...)
	b = hex.AppendEncode(b, p.ToolSpan[:])
	return append(b, '"', '}')
}

// appendJSON appends the conversation as encoding/json writes it by its
// field tags, without the cost of its reflection, which was a fifth of
// the page's (docs/benchmarks.md).
func (c *viewConversation) appendJSON(b []byte) []byte {
	b = append(b, '{')
	if len(c.System) > 0 {
		b = append(b, `"system":[`...)
		for i := range c.System {
			if i > 0 {
				b = append(b, ',')
			}
			b = c.System[i].AppendJSON(b)
		}
		b = append(b, ']')
	}
	for _, l := range [...]struct {
		key string
		ms  []viewMessage
	}{{"input", c.Input}, {"output", c.Output}} {
		if len(l.ms) == 0 {
			continue
		}
		if b[len(b)-1] != '{' {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = append(b, l.key...)
		b = append(b, `":[`...)
		for i := range l.ms {
			if i > 0 {
				b = append(b, ',')
			}
			b = l.ms[i].appendJSON(b)
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

// appendJSON appends the message as encoding/json writes it by its
// field tags.
func (m *viewMessage) appendJSON(b []byte) []byte {
	b = append(b, `{"role":`...)
	b = jsonlex.AppendString(b, m.Role)
	b = append(b, `,"parts":[`...)
	for i := range m.Parts {
		if i > 0 {
			b = append(b, ',')
		}
		b = m.Parts[i].appendJSON(b)
	}
	b = append(b, ']')
	if m.Name != "" {
		b = append(b, `,"name":`...)
		b = jsonlex.AppendString(b, m.Name)
	}
	if m.FinishReason != "" {
		b = append(b, `,"finish_reason":`...)
		b = jsonlex.AppendString(b, m.FinishReason)
	}
	return append(b, '}')
}

func viewMessages(ms []semconv.Message) []viewMessage {
	if len(ms) == 0 {
		return nil
	}
	out := make([]viewMessage, len(ms))
	for i, m := range ms {
		parts := make([]viewPart, len(m.Parts))
		for j, p := range m.Parts {
			parts[j].Part = p
		}
		out[i] = viewMessage{Role: m.Role, Parts: parts, Name: m.Name, FinishReason: m.FinishReason}
	}
	return out
}

// runConversations returns each record's conversation as the page shows
// it, nil for a record without messages, with its tool parts linked.
// A model call's is what converter.ModelCalls reads (a call whose
// instrumentation left its content on the wrapper around it, such as
// OpenLLMetry's chat span around the Anthropic SDK's own span, shows the
// wrapper's); any other record's is its own (semconv.Messages).
func runConversations(recs []artifact.Record) []*viewConversation {
	convs := make([]*viewConversation, len(recs))
	model := make([]bool, len(recs))
	set := func(i int, c semconv.Conversation) {
		if len(c.System) == 0 && len(c.Input) == 0 && len(c.Output) == 0 {
			return
		}
		convs[i] = &viewConversation{System: c.System, Input: viewMessages(c.Input), Output: viewMessages(c.Output)}
	}
	for _, mc := range converter.ModelCalls(recs) {
		model[mc.Index] = true
		set(mc.Index, mc.Conversation)
	}
	var rd semconv.Reading
	for i := range recs {
		if model[i] {
			continue
		}
		// A tool span's content is its arguments and result, which the
		// page shows as such (pretty JSON, text as text), not as chat.
		if recs[i].Read(&rd); rd.Kind == semconv.Call {
			continue
		}
		set(i, semconv.Messages(recs[i].Span))
	}
	linkTools(recs, convs, model)
	return convs
}

// toolSpan is a tool call record (kind call) of a trace.
type toolSpan struct {
	rec   int
	start pcommon.Timestamp
	tool  string // the tool field, else the span name
	name  string // the span name
	id    string // the tool call id, "" when none
}

// traceTools are the tool spans of one trace, by start, and the records of
// the trace that link to them.
type traceTools struct {
	spans  []toolSpan
	byID   map[string]int   // the first tool span (by start) with a tool call id, as index into spans
	byName map[string][]int // tool spans that ran a tool name, by start; filled on demand
	recs   []int            // the records with messages, by start
	askers []int            // the model calls whose output asks for tools, by start
}

// named returns the tool spans that ran the tool name: those whose tool
// is name, or, lacking a tool field, whose span name is, or whose span
// name is "execute_tool name" (the conventions' span name).
func (tt *traceTools) named(name string) []int {
	if s, ok := tt.byName[name]; ok {
		return s
	}
	var s []int
	for i, t := range tt.spans {
		if t.tool == name || t.name == "execute_tool "+name {
			s = append(s, i)
		}
	}
	if tt.byName == nil {
		tt.byName = map[string][]int{}
	}
	tt.byName[name] = s
	return s
}

// linkTools sets ToolSpan on every tool call and tool result part of
// convs (indexed like recs) that a tool span of the record's trace ran.
// model tells the model calls (inference records that are no wrapper).
//
// The rule: a part with a tool call id links to the first tool span to
// start with that id. Otherwise the n-th call of a tool name the model
// asked for is the n-th tool span of that name to start, where the count
// runs over the list's own calls in order and, for an output list, first
// over the calls asked for in the outputs of the trace's model calls that
// started before the record (an input list restates the history from the
// trace's start). A result without an id (or whose id no tool span has)
// takes the place of its call: the call with its id, or, without an id,
// the call in its position (the k-th result answers the k-th call).
//
// Only model calls count as earlier askers: a wrapper repeats its
// call's messages, and counting both would shift every later call.
func linkTools(recs []artifact.Record, convs []*viewConversation, model []bool) {
	var rd semconv.Reading
	traces := map[pcommon.TraceID]*traceTools{}
	for i := range recs {
		recs[i].Read(&rd)
		if rd.Kind != semconv.Call {
			continue
		}
		sp := recs[i].Span
		t := toolSpan{rec: i, start: sp.StartTimestamp(), tool: rd.Str(semconv.FieldTool), name: sp.Name(), id: rd.Str(semconv.FieldToolCallID)}
		if t.tool == "" {
			t.tool = t.name
		}
		tt := traces[sp.TraceID()]
		if tt == nil {
			tt = &traceTools{}
			traces[sp.TraceID()] = tt
		}
		tt.spans = append(tt.spans, t)
	}
	if len(traces) == 0 {
		return
	}
	byStart := func(a, b int) int { return cmp.Compare(recs[a].Span.StartTimestamp(), recs[b].Span.StartTimestamp()) }
	for _, tt := range traces {
		slices.SortStableFunc(tt.spans, func(a, b toolSpan) int { return cmp.Compare(a.start, b.start) })
		tt.byID = map[string]int{}
		for j, t := range tt.spans {
			if _, ok := tt.byID[t.id]; t.id != "" && !ok {
				tt.byID[t.id] = j
			}
		}
	}

	for i, c := range convs {
		if tt := traces[recs[i].Span.TraceID()]; c != nil && tt != nil {
			tt.recs = append(tt.recs, i)
			if model[i] && asksForTools(c.Output) {
				tt.askers = append(tt.askers, i)
			}
		}
	}
	for _, tt := range traces {
		slices.SortStableFunc(tt.recs, byStart)
		slices.SortStableFunc(tt.askers, byStart)
		before := map[string]int{} // calls per tool name asked for by the askers started so far
		next := 0
		for _, i := range tt.recs {
			start := recs[i].Span.StartTimestamp()
			for ; next < len(tt.askers) && recs[tt.askers[next]].Span.StartTimestamp() < start; next++ {
				for _, m := range convs[tt.askers[next]].Output {
					for _, p := range m.Parts {
						if p.Type == semconv.PartToolCall {
							before[p.Name]++
						}
					}
				}
			}
			tt.link(recs, convs[i].Input, nil)
			tt.link(recs, convs[i].Output, before)
		}
	}
}

func asksForTools(ms []viewMessage) bool {
	for _, m := range ms {
		for _, p := range m.Parts {
			if p.Type == semconv.PartToolCall {
				return true
			}
		}
	}
	return false
}

// link sets ToolSpan on the tool parts of list (see linkTools); before
// counts the calls per tool name asked for before list.
func (tt *traceTools) link(recs []artifact.Record, list []viewMessage, before map[string]int) {
	type place struct {
		name string
		n    int
		ok   bool
	}
	var (
		calls  []place            // the list's tool calls, in order
		callID = map[string]int{} // the last call with an id, as index into calls
		seen   = map[string]int{}
	)
	for _, m := range list {
		for _, p := range m.Parts {
			if p.Type != semconv.PartToolCall {
				continue
			}
			pl := place{name: p.Name, n: before[p.Name] + seen[p.Name], ok: true}
			seen[p.Name]++
			if p.ID != "" {
				callID[p.ID] = len(calls)
			}
			calls = append(calls, pl)
		}
	}
	c, results := 0, 0
	for _, m := range list {
		for j := range m.Parts {
			p := &m.Parts[j]
			var pl place // the call the part is or answers
			switch p.Type {
			case semconv.PartToolCall:
				pl = calls[c]
				c++
			case semconv.PartToolResponse:
				if p.ID != "" {
					if k, ok := callID[p.ID]; ok {
						pl = calls[k]
					}
				} else if results < len(calls) {
					pl = calls[results]
				}
				results++
			default:
				continue
			}
			if p.ID != "" {
				if s, ok := tt.byID[p.ID]; ok {
					p.ToolSpan = recs[tt.spans[s].rec].Span.SpanID()
					continue
				}
			}
			if !pl.ok {
				continue
			}
			if same := tt.named(pl.name); pl.n < len(same) {
				p.ToolSpan = recs[tt.spans[same[pl.n]].rec].Span.SpanID()
			}
		}
	}
}
