package converter

import (
	"cmp"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/semconv"
)

// inheritInput gives model call i, which carries no input of its own, the
// input of its nearest ancestor that carries some (Mastra keeps system and
// user messages, and the step's whole history, on the agent step span
// above the model call): the ancestor's whole input when the call is the
// only model call below it (the input is then this call's), else only its
// system and user messages (the context every call below it shares). It
// returns the ancestor's span id, or an empty id when no ancestor has
// input. index finds a span's record; calls counts the model calls below
// each record.
func inheritInput(recs []artifact.Record, index map[artifact.SpanKey]int, calls map[int]int, i int, c *semconv.Conversation) pcommon.SpanID {
	sp := recs[i].Span
	k := artifact.SpanKey{Trace: sp.TraceID(), Span: sp.ParentSpanID()}
	// The bound stops a malformed trace whose parents form a cycle.
	for range len(recs) {
		j, ok := index[k]
		if !ok || k.Span.IsEmpty() {
			break
		}
		a := semconv.Messages(recs[j].Span)
		if len(a.Input) > 0 {
			if len(c.System) == 0 {
				c.System = a.System
			}
			if calls[j] == 1 {
				c.Input = a.Input
			} else {
				for _, m := range a.Input {
					if m.Role == semconv.RoleUser {
						c.Input = append(c.Input, m)
					}
				}
			}
			if len(c.Input) > 0 {
				return recs[j].Span.SpanID()
			}
		}
		k.Span = recs[j].Span.ParentSpanID()
	}
	return pcommon.SpanID{}
}

// callsBelow counts, for each record, the model calls (leaves) below it.
func callsBelow(recs []artifact.Record, index map[artifact.SpanKey]int, leaves []int) map[int]int {
	out := make(map[int]int)
	for _, i := range leaves {
		sp := recs[i].Span
		k := artifact.SpanKey{Trace: sp.TraceID(), Span: sp.ParentSpanID()}
		for range len(recs) {
			j, ok := index[k]
			if !ok || k.Span.IsEmpty() {
				break
			}
			out[j]++
			k.Span = recs[j].Span.ParentSpanID()
		}
	}
	return out
}

// inheritOutput gives model call i, which carries no output of its own,
// the output of its nearest ancestor that has some and no other model call
// below it (the output is then this call's: Mastra records a step's tool
// calls on the agent step only). Only an output that calls tools is taken:
// a wrapper's text may be its own (an error it reports, a count of
// embeddings), while a tool call can only be the model's. An ancestor
// shared with other calls gives nothing: its output is not this call's.
func inheritOutput(recs []artifact.Record, index map[artifact.SpanKey]int, calls map[int]int, i int, c *semconv.Conversation) {
	sp := recs[i].Span
	k := artifact.SpanKey{Trace: sp.TraceID(), Span: sp.ParentSpanID()}
	for range len(recs) {
		j, ok := index[k]
		if !ok || k.Span.IsEmpty() || calls[j] != 1 {
			return
		}
		if a := semconv.Messages(recs[j].Span); len(a.Output) > 0 {
			if hasToolCall(a.Output) {
				c.Output = a.Output
			}
			return
		}
		k.Span = recs[j].Span.ParentSpanID()
	}
}

func hasToolCall(ms []semconv.Message) bool {
	for _, m := range ms {
		for _, p := range m.Parts {
			if p.Type == semconv.PartToolCall {
				return true
			}
		}
	}
	return false
}

// An InheritedModel is the model a model call that names none takes from
// the call it is one with, that call's provider (taken with the model
// when the call names no provider either) and its span.
type InheritedModel struct {
	Model, Provider string
	From            pcommon.SpanID
}

// InheritModels returns, for each inference record of recs that names no
// model (a framework's step span around the SDK's call, or the step below
// a framework's generation span, which alone names the model), the model
// of the call in the same call chain: the call it wraps, when the nearest
// model calls below it that name a model all name the same one, else the
// nearest model call above it that names one. A record that names its own
// model, or finds none, is not in the map; nil when no inference lacks a
// model. Every reader that groups by model (tokens' by_model, explain,
// messages) asks it, so none counts a call under (unknown) that its chain
// names.
func InheritModels(recs []artifact.Record) map[int]InheritedModel {
	var rd semconv.Reading
	models := make([]string, len(recs)) // an inference's own model
	providers := make([]string, len(recs))
	inference := make([]bool, len(recs))
	var missing []int
	for i := range recs {
		recs[i].Read(&rd)
		if rd.Kind != semconv.Inference {
			continue
		}
		inference[i] = true
		providers[i] = rd.Str(semconv.FieldProvider)
		if models[i] = rd.Model(); models[i] == "" {
			missing = append(missing, i)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	index := make(map[artifact.SpanKey]int, len(recs))
	children := make(map[artifact.SpanKey][]int)
	for i := range recs {
		sp := recs[i].Span
		index[artifact.SpanKey{Trace: sp.TraceID(), Span: sp.SpanID()}] = i
		if p := sp.ParentSpanID(); !p.IsEmpty() {
			k := artifact.SpanKey{Trace: sp.TraceID(), Span: p}
			children[k] = append(children[k], i)
		}
	}
	out := make(map[int]InheritedModel, len(missing))
	for _, i := range missing {
		j, ok := modelBelow(recs, children, models, inference, i)
		if !ok {
			j, ok = modelAbove(recs, index, models, i)
		}
		if ok {
			out[i] = InheritedModel{Model: models[j], Provider: cmp.Or(providers[i], providers[j]), From: recs[j].Span.SpanID()}
		}
	}
	return out
}

// modelBelow finds the calls record i wraps: the nearest inference
// records below it that name a model, when they name one model; it
// returns the first of them.
func modelBelow(recs []artifact.Record, children map[artifact.SpanKey][]int, models []string, inference []bool, i int) (int, bool) {
	found := -1
	sp := recs[i].Span
	queue := []artifact.SpanKey{{Trace: sp.TraceID(), Span: sp.SpanID()}}
	// The bound stops a malformed trace whose parents form a cycle.
	for n := 0; len(queue) > 0 && n < len(recs); n++ {
		k := queue[0]
		queue = queue[1:]
		for _, j := range children[k] {
			c := recs[j].Span
			if !inference[j] || models[j] == "" {
				queue = append(queue, artifact.SpanKey{Trace: c.TraceID(), Span: c.SpanID()})
				continue
			}
			switch {
			case found < 0:
				found = j
			case models[found] != models[j]:
				return -1, false // calls of several models: none is this one's
			}
		}
	}
	return found, found >= 0
}

// modelAbove finds the nearest inference record above record i that
// names a model: the call i is a step of.
func modelAbove(recs []artifact.Record, index map[artifact.SpanKey]int, models []string, i int) (int, bool) {
	sp := recs[i].Span
	k := artifact.SpanKey{Trace: sp.TraceID(), Span: sp.ParentSpanID()}
	for range len(recs) {
		j, ok := index[k]
		if !ok || k.Span.IsEmpty() {
			break
		}
		if models[j] != "" {
			return j, true
		}
		k.Span = recs[j].Span.ParentSpanID()
	}
	return -1, false
}

// An InheritedName is the name a tool span that names none takes, and
// the span it was found on.
type InheritedName struct {
	Name string
	From pcommon.SpanID
}

// InheritToolNames returns, for each call record of recs whose tool no
// key and no span name names ([semconv.Reading.ToolName]), the name in
// the messages of its call: a tool message it produced that names its
// tool (its own, or the one answering its call id in the trace), else a
// model's tool call with its call id that names the tool asked for. A
// call no message names is not in the map; nil when every call is named.
func InheritToolNames(recs []artifact.Record) map[int]InheritedName {
	var rd semconv.Reading
	var missing []int
	ids := make(map[int]string)
	for i := range recs {
		recs[i].Read(&rd)
		if rd.Kind != semconv.Call || rd.ToolName(recs[i].Span.Name()) != "" {
			continue
		}
		missing = append(missing, i)
		ids[i] = rd.Str(semconv.FieldToolCallID)
	}
	if len(missing) == 0 {
		return nil
	}
	var convs []semconv.Conversation // each record's messages, read once when a call id asks
	out := make(map[int]InheritedName, len(missing))
	for _, i := range missing {
		sp := recs[i].Span
		if n := namedIn(semconv.Messages(sp), ""); n != "" {
			out[i] = InheritedName{Name: n, From: sp.SpanID()}
			continue
		}
		id := ids[i]
		if id == "" {
			continue
		}
		if convs == nil {
			convs = make([]semconv.Conversation, len(recs))
			for j := range recs {
				convs[j] = semconv.Messages(recs[j].Span)
			}
		}
		for j := range recs {
			if recs[j].Span.TraceID() != sp.TraceID() {
				continue
			}
			if n := namedIn(convs[j], id); n != "" {
				out[i] = InheritedName{Name: n, From: recs[j].Span.SpanID()}
				break
			}
		}
	}
	return out
}

// namedIn returns the tool name c's messages give the call with id (any
// call when id is ""): a tool message's name, else a tool call's name;
// "" when they give none, or several.
func namedIn(c semconv.Conversation, id string) string {
	var byResult, byCall string
	several := false
	note := func(dst *string, n string) {
		switch {
		case n == "":
		case *dst == "":
			*dst = n
		case *dst != n:
			several = true
		}
	}
	for _, list := range [][]semconv.Message{c.Input, c.Output} {
		for _, m := range list {
			for _, p := range m.Parts {
				if id != "" && p.ID != id {
					continue
				}
				switch p.Type {
				case semconv.PartToolResponse:
					if m.Role == semconv.RoleTool {
						note(&byResult, m.Name)
					}
				case semconv.PartToolCall:
					note(&byCall, p.Name)
				}
			}
		}
	}
	if several {
		return ""
	}
	return cmp.Or(byResult, byCall)
}
