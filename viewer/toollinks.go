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
// the page renders one message schema and knows no dialect; its tool
// parts may link to tool spans.
type viewConversation struct {
	semconv.Conversation
	// links are the tool spans of its tool parts, in the order of the
	// parts (input, then output); a part no tool span ran has none.
	links []partLink
}

// partLink is "tool_span" of a tool call or tool result part: the span id
// of the tool span that ran it, in the record's trace. The member is the
// view model's, never the artifact's: artifacts keep the messages as the
// span wrote them.
type partLink struct {
	output    bool // the part is in the output, else the input
	msg, part int
	span      pcommon.SpanID
}

// appendJSON appends the conversation as the view model has it:
// {"system": [part…], "input": [message…], "output": [message…]}, each
// list left out when empty, each message as semconv.Message's field tags
// say (its parts a list, never null), each part as semconv.Part writes it
// plus its "tool_span". Written by hand: encoding/json's reflection cost a
// fifth of the page (docs/benchmarks.md).
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
	links := c.links
	for _, l := range [...]struct {
		key    string
		ms     []semconv.Message
		output bool
	}{{"input", c.Input, false}, {"output", c.Output, true}} {
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
			b, links = appendMessage(b, &l.ms[i], l.output, i, links)
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

// appendMessage appends message mi of a list, its parts with their links
// (the first of links, in order), and returns the links left.
func appendMessage(b []byte, m *semconv.Message, output bool, mi int, links []partLink) ([]byte, []partLink) {
	b = append(b, `{"role":`...)
	b = jsonlex.AppendString(b, m.Role)
	b = append(b, `,"parts":[`...)
	for i := range m.Parts {
		if i > 0 {
			b = append(b, ',')
		}
		b = m.Parts[i].AppendJSON(b)
		if len(links) > 0 && links[0].output == output && links[0].msg == mi && links[0].part == i {
			b = append(b[:len(b)-1], `,"tool_span":"`...)
			b = hex.AppendEncode(b, links[0].span[:])
			b = append(b, '"', '}')
			links = links[1:]
		}
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
	return append(b, '}'), links
}

// runConversations returns each record's conversation as the page shows
// it, nil for a record without messages, with its tool parts linked.
// A model call's is what converter.ModelCalls reads (a call whose
// instrumentation left its content on the wrapper around it, such as
// OpenLLMetry's chat span around the Anthropic SDK's own span, shows the
// wrapper's); any other record's is its own (semconv.Messages).
func runConversations(b *converter.Batch, recs []artifact.Record) []*viewConversation {
	convs := make([]*viewConversation, len(recs))
	model := make([]bool, len(recs))
	set := func(i int, c semconv.Conversation) {
		if len(c.System) == 0 && len(c.Input) == 0 && len(c.Output) == 0 {
			return
		}
		convs[i] = &viewConversation{Conversation: c}
	}
	for _, mc := range b.ModelCalls() {
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

// linkTools links every tool call and tool result part of convs (indexed
// like recs) that a tool span of the record's trace ran to that span
// (viewConversation.links).
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
			tt.link(recs, convs[i], false, nil)
			tt.link(recs, convs[i], true, before)
		}
	}
}

func asksForTools(ms []semconv.Message) bool {
	for _, m := range ms {
		for _, p := range m.Parts {
			if p.Type == semconv.PartToolCall {
				return true
			}
		}
	}
	return false
}

// link links the tool parts of one list of cv, its output or its input
// (see linkTools), adding to cv.links; before counts the calls per tool
// name asked for before the list.
func (tt *traceTools) link(recs []artifact.Record, cv *viewConversation, output bool, before map[string]int) {
	list := cv.Input
	if output {
		list = cv.Output
	}
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
	for mi, m := range list {
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
					cv.links = append(cv.links, partLink{output, mi, j, recs[tt.spans[s].rec].Span.SpanID()})
					continue
				}
			}
			if !pl.ok {
				continue
			}
			if same := tt.named(pl.name); pl.n < len(same) {
				cv.links = append(cv.links, partLink{output, mi, j, recs[tt.spans[same[pl.n]].rec].Span.SpanID()})
			}
		}
	}
}
