package atif

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/pricing"
	"github.com/agenttrace/agenttrace/semconv"
)

// stepBuilder makes one trajectory's steps (see FromRecords).
type stepBuilder struct {
	e      *exporter
	a      *agentTraj
	t      *Trajectory
	seen   []semconv.Message // the conversation the steps so far give
	sys    []semconv.Part
	calls  map[int]semconv.Conversation // model calls by step index
	placed map[int]resultAt             // tool records by where their result is
	open   map[string]resultAt          // tool calls still without a result
	pricer pricing.Pricer
}

// resultAt is a tool call's place: its step and its index there.
type resultAt struct{ step, call int }

// steps fills a.t.Steps and returns the conversation of each step that
// is a model call.
func (e *exporter) steps(a *agentTraj) map[int]semconv.Conversation {
	b := &stepBuilder{e: e, a: a, t: a.t, calls: map[int]semconv.Conversation{},
		placed: map[int]resultAt{}, open: map[string]resultAt{}}
	items := append(slices.Clone(a.items), a.children...)
	slices.SortStableFunc(items, func(x, y int) int {
		if c := compareU64(uint64(e.spanOf(x).StartTimestamp()), uint64(e.spanOf(y).StartTimestamp())); c != 0 {
			return c
		}
		return x - y
	})
	for _, i := range items {
		switch {
		case e.agents[i] != nil && i != a.rec:
			b.delegation(i)
		case e.kinds[i] == semconv.Call && e.owner[i] == a.rec:
			if !e.used[i] {
				b.toolOnly(i)
			}
		default:
			if mc, ok := e.calls[i]; ok {
				b.modelCall(i, mc.Conversation)
			}
		}
	}
	if len(b.t.Steps) == 0 {
		b.add(Step{Source: SourceSystem, Message: Content{Text: "no model or tool calls"}})
	}
	return b.calls
}

func compareU64(x, y uint64) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// add appends a step, numbering it.
func (b *stepBuilder) add(s Step) int {
	s.StepID = int64(len(b.t.Steps) + 1)
	b.t.Steps = append(b.t.Steps, s)
	return len(b.t.Steps) - 1
}

// stamp is a span time as an ATIF timestamp ("" for none).
func stamp(ts pcommon.Timestamp) string {
	if ts == 0 {
		return ""
	}
	return ts.AsTime().UTC().Format(time.RFC3339Nano)
}

// modelCall adds the steps of one model call: its new system
// instructions and input messages, then its agent step.
func (b *stepBuilder) modelCall(i int, conv semconv.Conversation) {
	sp := b.e.spanOf(i)
	at := stamp(sp.StartTimestamp())
	if len(b.sys) == 0 && len(conv.System) > 0 {
		b.add(Step{Timestamp: at, Source: SourceSystem, Message: partsContent(conv.System)})
		b.sys = conv.System
	}
	for _, m := range b.newInput(conv.Input) {
		switch m.Role {
		case "user":
			b.add(Step{Timestamp: at, Source: SourceUser, Message: partsContent(m.Parts)})
		case "system", "developer":
			b.add(Step{Timestamp: at, Source: SourceSystem, Message: partsContent(m.Parts)})
		case "tool":
			b.toolMessage(m)
		default:
			copied := true
			s := outputStep(m)
			s.Timestamp, s.IsCopiedContext = at, &copied
			b.placeCalls(b.add(s), -1)
		}
	}
	b.seen = slices.Clone(conv.Input)
	var out semconv.Message
	if len(conv.Output) > 0 {
		out = conv.Output[0]
	}
	s := outputStep(out)
	s.Timestamp = stamp(sp.EndTimestamp())
	var rd semconv.Reading
	b.e.recs[i].Read(&rd)
	s.ModelName = rd.Model()
	s.Metrics = b.metrics(i, &rd)
	if evs := semconv.Evaluations(sp); len(evs) > 0 {
		setExtra(&s, StepExtra{Evaluations: evs})
	}
	n := b.add(s)
	b.calls[n] = conv
	b.placeCalls(n, i)
	b.seen = append(b.seen, conv.Output...)
}

// newInput is what of input the steps do not give yet: the rest after
// them, when they are its start; else the trailing user messages (a call
// sent a window of the conversation, or another agent's).
func (b *stepBuilder) newInput(input []semconv.Message) []semconv.Message {
	if len(b.seen) <= len(input) && sameMessages(b.seen, input[:len(b.seen)]) {
		return input[len(b.seen):]
	}
	k := len(input)
	for k > 0 && input[k-1].Role == "user" {
		k--
	}
	return input[k:]
}

// placeCalls finds the results of step n's tool calls: the execute_tool
// span of the same call id (its subagents referred to), else a tool
// message a later call is sent.
func (b *stepBuilder) placeCalls(n int, call int) {
	s := &b.t.Steps[n]
	for j, tc := range s.ToolCalls {
		at := resultAt{n, j}
		if k, ok := b.e.toolByID[tc.ToolCallID]; ok && !b.e.used[k] && call >= 0 {
			b.e.used[k] = true
			b.placed[k] = at
			if c := toolResult(b.e.recs[k]); c != nil {
				b.result(at, c)
				continue
			}
		}
		b.open[tc.ToolCallID] = at
	}
}

// result sets the observation result of the tool call at at.
func (b *stepBuilder) result(at resultAt, content *Content) {
	s := &b.t.Steps[at.step]
	if s.Observation == nil {
		s.Observation = &Observation{}
	}
	s.Observation.Results = append(s.Observation.Results, ObservationResult{
		SourceCallID: s.ToolCalls[at.call].ToolCallID, Content: content})
}

// toolMessage places the results a tool message carries on the steps
// that made those calls.
func (b *stepBuilder) toolMessage(m semconv.Message) {
	for _, p := range m.Parts {
		if p.Type != semconv.PartToolResponse {
			continue
		}
		at, ok := b.open[p.ID]
		if !ok {
			continue // no step here made the call: the call's input extra keeps it
		}
		delete(b.open, p.ID)
		c := valueContent(p.Response)
		b.result(at, &c)
	}
}

// toolOnly adds a step for a tool call no model call asked for.
func (b *stepBuilder) toolOnly(i int) {
	var rd semconv.Reading
	b.e.recs[i].Read(&rd)
	sp := b.e.spanOf(i)
	id := rd.Str(semconv.FieldToolCallID)
	if id == "" {
		id = "span-" + sp.SpanID().String()
	}
	tc := ToolCall{ToolCallID: id, FunctionName: rd.ToolName(sp.Name())}
	tc.Arguments, tc.Extra = toolArguments(&rd)
	zero := int64(0)
	n := b.add(Step{Timestamp: stamp(sp.StartTimestamp()), Source: SourceAgent, ToolCalls: []ToolCall{tc}, LLMCallCount: &zero})
	b.e.used[i] = true
	at := resultAt{n, 0}
	b.placed[i] = at
	b.result(at, toolResult(b.e.recs[i]))
}

// delegation refers to subagent c's trajectory: from the result of the
// tool call whose span holds it, else from a system step.
func (b *stepBuilder) delegation(c int) {
	sub := b.e.agents[c].t
	ref := SubagentRef{TrajectoryID: sub.TrajectoryID, SessionID: sub.SessionID}
	for p := b.e.spanOf(c).ParentSpanID(); !p.IsEmpty(); {
		k, ok := b.e.index[p]
		if !ok || k == b.a.rec {
			break
		}
		if at, ok := b.placed[k]; ok && b.t.Steps[at.step].Observation != nil { // a call stopped before its result has none
			res := &b.t.Steps[at.step].Observation.Results
			for r := range *res {
				if (*res)[r].SourceCallID == b.t.Steps[at.step].ToolCalls[at.call].ToolCallID {
					(*res)[r].SubagentTrajectoryRef = append((*res)[r].SubagentTrajectoryRef, ref)
					return
				}
			}
		}
		p = b.e.spanOf(k).ParentSpanID()
	}
	b.add(Step{Timestamp: stamp(b.e.spanOf(c).StartTimestamp()), Source: SourceSystem,
		Message:     Content{Text: "delegated to " + sub.Agent.Name},
		Observation: &Observation{Results: []ObservationResult{{SubagentTrajectoryRef: []SubagentRef{ref}}}}})
}

// outputStep is an assistant message as an agent step: its reasoning,
// its text, its tool calls.
func outputStep(m semconv.Message) Step {
	s := Step{Source: SourceAgent}
	var rest, reasoning []semconv.Part
	for _, p := range m.Parts {
		switch p.Type {
		case semconv.PartReasoning:
			reasoning = append(reasoning, p)
		case semconv.PartToolCall:
			s.ToolCalls = append(s.ToolCalls, ToolCall{ToolCallID: p.ID, FunctionName: p.Name, Arguments: argumentsObject(p.Arguments)})
		default:
			rest = append(rest, p)
		}
	}
	var texts []string
	for _, p := range reasoning {
		texts = append(texts, p.Content)
	}
	s.ReasoningContent = strings.Join(texts, "\n")
	s.Message = partsContent(rest)
	return s
}

// argumentsObject is a tool call's arguments as the JSON object ATIF
// wants: an object as it is, a string holding one decoded; anything else
// under "input" (the step's extra then keeps the call exactly).
func argumentsObject(v any) json.RawMessage {
	if s, ok := v.(string); ok && firstNonSpace(s) == '{' && json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	if m, ok := v.(map[string]any); ok {
		if b, err := marshal(m); err == nil {
			return b
		}
	}
	if v == nil {
		return json.RawMessage("{}")
	}
	b, err := marshal(map[string]any{"input": v})
	if err != nil {
		return json.RawMessage("{}")
	}
	return b
}

// toolArguments is an execute_tool span's arguments as an object, and
// the tool call's extra keeping the text when it was no object.
func toolArguments(rd *semconv.Reading) (json.RawMessage, json.RawMessage) {
	if !rd.Has(semconv.FieldArgs) {
		return json.RawMessage("{}"), nil
	}
	text := rd.Value(semconv.FieldArgs).AsString()
	if firstNonSpace(text) == '{' && json.Valid([]byte(text)) {
		return json.RawMessage(text), nil
	}
	extra, _ := marshal(map[string]any{ExtraKey: map[string]string{"arguments": text}})
	return argumentsObject(text), extra
}

// toolResult is an execute_tool span's result as an observation's
// content (nil when it has none).
func toolResult(rec artifact.Record) *Content {
	var rd semconv.Reading
	rec.Read(&rd)
	if !rd.Has(semconv.FieldResult) {
		return nil
	}
	text := rd.Value(semconv.FieldResult).AsString()
	if parts, ok := contentPartsJSON(text); ok {
		return &Content{Parts: parts} // what the importer wrote of multimodal content (v1.6)
	}
	return &Content{Text: text}
}

// contentPartsJSON reads text that is a JSON list of ATIF content parts,
// each a text or an image, as the parts.
func contentPartsJSON(text string) ([]ContentPart, bool) {
	if firstNonSpace(text) != '[' {
		return nil, false
	}
	dec := json.NewDecoder(strings.NewReader(text))
	dec.DisallowUnknownFields()
	var parts []ContentPart
	if dec.Decode(&parts) != nil || len(parts) == 0 || dec.More() {
		return nil, false
	}
	for _, p := range parts {
		switch {
		case p.Type == PartText && p.Source == nil:
		case p.Type == PartImage && p.Source != nil && p.Text == "":
		default:
			return nil, false
		}
	}
	b, err := marshal(parts)
	if err != nil || canonicalJSON(b) != canonicalJSON([]byte(text)) {
		return nil, false // not exactly the parts: the text as it is
	}
	return parts, true
}

// canonicalJSON is JSON text with its objects' members sorted.
func canonicalJSON(b []byte) string {
	v := jsonValue(b)
	out, err := marshal(v)
	if err != nil {
		return string(b)
	}
	return string(out)
}

// valueContent is a tool message's response as content: a string as it
// is, anything else as its JSON.
func valueContent(v any) Content {
	if s, ok := v.(string); ok {
		return Content{Text: s}
	}
	b, err := marshal(v)
	if err != nil {
		return Content{}
	}
	return Content{Text: string(b)}
}

// partsContent is message parts as ATIF content: one text part as a
// string, none as "", more (or images) as content parts.
func partsContent(ps []semconv.Part) Content {
	switch {
	case len(ps) == 0:
		return Content{}
	case len(ps) == 1 && ps[0].Type == semconv.PartText:
		return Content{Text: ps[0].Content}
	}
	out := make([]ContentPart, 0, len(ps))
	for _, p := range ps {
		switch {
		case p.Type == semconv.PartURI && p.Modality == "image":
			out = append(out, ContentPart{Type: PartImage, Source: &ImageSource{MediaType: p.MimeType, Path: p.URI}})
		case p.Type == semconv.PartText:
			out = append(out, ContentPart{Type: PartText, Text: p.Content})
		default: // no ATIF part: its JSON as text (the call's extra keeps it exactly)
			b, _ := marshal(p)
			out = append(out, ContentPart{Type: PartText, Text: string(b)})
		}
	}
	return Content{Parts: out}
}

// metrics are a model call's usage and cost (nil when it reports none).
func (b *stepBuilder) metrics(i int, rd *semconv.Reading) *Metrics {
	u := rd.TokenUsage()
	sp := b.e.spanOf(i)
	c := b.pricer.SpanCost(sp, rd, u)
	if u.IsZero() && !c.Known() {
		return nil
	}
	m := &Metrics{}
	if !u.IsZero() {
		m.PromptTokens, m.CompletionTokens, m.CachedTokens = ptr(u.Input), ptr(u.Output), ptr(u.CacheRead)
	}
	if c.Known() {
		usd := c.USD
		m.CostUSD = &usd
	}
	extra := map[string]any{}
	if u.CacheCreation > 0 {
		extra["cache_creation_input_tokens"] = u.CacheCreation
	}
	if u.Reasoning > 0 {
		extra["reasoning_tokens"] = u.Reasoning
	}
	if len(extra) > 0 {
		m.Extra, _ = marshal(extra)
	}
	attrs := sp.Attributes()
	for key, dst := range map[string]*json.RawMessage{"agenttrace.atif.metrics.prompt_token_ids": &m.PromptTokenIDs,
		"agenttrace.atif.metrics.completion_token_ids": &m.CompletionTokenIDs, "agenttrace.atif.metrics.logprobs": &m.Logprobs} {
		if s := str(attrs, key); json.Valid([]byte(s)) {
			*dst = json.RawMessage(s)
		}
	}
	return m
}

func ptr(n int64) *int64 { return &n }

// marshal is json.Marshal without HTML escaping.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}
