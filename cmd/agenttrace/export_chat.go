package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/converter"
	"github.com/agenttrace/agenttrace/semconv"
)

// chatLine is one line of chat-jsonl: OpenAI's chat fine-tuning and
// evaluation example, plus the evaluations of what it shows, which
// fine-tuning tools ignore.
type chatLine struct {
	Messages    []chatMessage    `json:"messages"`
	Tools       []chatTool       `json:"tools,omitempty"`
	Evaluations []chatEvaluation `json:"evaluations,omitempty"`
}

// chatMessage is one message of OpenAI's chat shape. Content is a string,
// or null on an assistant message that only calls tools.
type chatMessage struct {
	Role       string         `json:"role"`
	Content    *string        `json:"content"`
	ToolCalls  []chatToolCall `json:"tool_calls,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
}

// chatToolCall is a function call of an assistant message: its arguments
// are a JSON text, as the chat API sends them.
type chatToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function chatFunction `json:"function"`
}

type chatFunction struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// chatTool is a function tool definition of the chat API.
type chatTool struct {
	Type     string          `json:"type"`
	Function chatToolDetails `json:"function"`
}

type chatToolDetails struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Parameters  any    `json:"parameters,omitempty"`
}

// chatEvaluation is a gen_ai.evaluation.result and the span it judges.
type chatEvaluation struct {
	semconv.Evaluation
	SpanID string `json:"span_id"`
}

// writeChatJSONL writes the chat-jsonl lines of runs: one per answered
// model call, or, with --per run, one per run with an answered call.
func writeChatJSONL(e *env, runs []*exportRun, o exportOptions, st *exportStats) error {
	return e.writeOutput(o.out, func(w io.Writer) error { return chatJSONL(w, runs, o, st) })
}

func chatJSONL(w io.Writer, runs []*exportRun, o exportOptions, st *exportStats) error {
	bw := bufio.NewWriter(w)
	for _, r := range runs {
		for _, line := range chatLines(r, o.per == "run", st) {
			b, err := marshalLine(line)
			if err != nil {
				return fmt.Errorf("%s: %w", r.src.name, err)
			}
			bw.Write(b)
			st.lines++
		}
	}
	return bw.Flush()
}

// marshalLine writes a line as JSON, HTML characters as they are.
func marshalLine(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("encode a chat-jsonl line: %w", err)
	}
	return b.Bytes(), nil
}

// chatLines builds the lines of one run.
func chatLines(r *exportRun, perRun bool, st *exportStats) []chatLine {
	recs := converter.LogsAsEvents(r.src.records, r.src.logs) // evaluations sent as log records too
	calls := converter.ModelCalls(recs)
	parents := make(map[artifact.SpanKey]int, len(recs))
	for i := range recs {
		sp := recs[i].Span
		parents[artifact.SpanKey{Trace: sp.TraceID(), Span: sp.SpanID()}] = i
	}
	var lines []chatLine
	var last *converter.ModelCall
	for i := range calls {
		mc := &calls[i]
		if len(mc.Conversation.Output) == 0 {
			st.unanswered++
			continue
		}
		if perRun {
			last = mc
			continue
		}
		sp := recs[mc.Index].Span
		line := chatLine{Messages: chatMessages(mc.Conversation, st), Tools: chatTools(recs, parents, mc.Index)}
		for _, ev := range semconv.Evaluations(sp) {
			line.Evaluations = append(line.Evaluations, chatEvaluation{ev, sp.SpanID().String()})
		}
		lines = append(lines, line)
	}
	if last == nil {
		return lines
	}
	line := chatLine{Messages: chatMessages(last.Conversation, st)}
	seen := map[string]bool{}
	for _, mc := range calls {
		for _, t := range chatTools(recs, parents, mc.Index) {
			if !seen[t.Function.Name] {
				seen[t.Function.Name] = true
				line.Tools = append(line.Tools, t)
			}
		}
	}
	for i := range recs {
		sp := recs[i].Span
		for _, ev := range semconv.Evaluations(sp) {
			line.Evaluations = append(line.Evaluations, chatEvaluation{ev, sp.SpanID().String()})
		}
	}
	return append(lines, line)
}

// chatTools are the tool definitions of the call at index i, or of its
// nearest ancestor that has some: a framework often declares the tools on
// the span that wraps the SDK's call.
func chatTools(recs []artifact.Record, parents map[artifact.SpanKey]int, i int) []chatTool {
	for hops := 0; hops < len(recs); hops++ {
		sp := recs[i].Span
		if defs := semconv.ToolDefs(sp.Attributes()); len(defs) > 0 {
			out := make([]chatTool, len(defs))
			for n, d := range defs {
				out[n] = chatTool{Type: "function", Function: chatToolDetails{Name: d.Name, Description: d.Description, Parameters: d.Parameters}}
			}
			return out
		}
		p, ok := parents[artifact.SpanKey{Trace: sp.TraceID(), Span: sp.ParentSpanID()}]
		if !ok || sp.ParentSpanID() == (pcommon.SpanID{}) {
			return nil
		}
		i = p
	}
	return nil
}

// chatMessages turns a normalized conversation into the chat shape: the
// system instructions first, then the input, then the answer. A tool
// result becomes a tool message of its own, wherever the dialect put it
// (Anthropic puts results in a user message); parts the chat shape cannot
// hold are counted in st.
func chatMessages(c semconv.Conversation, st *exportStats) []chatMessage {
	var out []chatMessage
	if sys := joinText(c.System, st); sys != "" {
		out = append(out, chatMessage{Role: semconv.RoleSystem, Content: &sys})
	}
	for _, ms := range [][]semconv.Message{c.Input, c.Output} {
		for _, m := range ms {
			out = appendChat(out, m, st)
		}
	}
	return out
}

// appendChat appends the chat messages of one normalized message.
func appendChat(out []chatMessage, m semconv.Message, st *exportStats) []chatMessage {
	role := m.Role
	if role == "developer" {
		role = semconv.RoleSystem
	}
	var (
		text  []string
		calls []chatToolCall
	)
	for _, p := range m.Parts {
		switch p.Type {
		case semconv.PartText:
			text = append(text, p.Content)
		case semconv.PartToolCall:
			calls = append(calls, chatToolCall{ID: p.ID, Type: "function", Function: chatFunction{Name: p.Name, Arguments: argumentsText(p.Arguments)}})
		case semconv.PartToolResponse:
			res := jsonString(p.Response)
			out = append(out, chatMessage{Role: semconv.RoleTool, Content: &res, ToolCallID: p.ID})
		default:
			st.parts[p.Type]++
		}
	}
	if len(text) == 0 && len(calls) == 0 {
		return out
	}
	msg := chatMessage{Role: role, ToolCalls: calls}
	if len(text) > 0 || role != semconv.RoleAssistant {
		s := strings.Join(text, "\n")
		msg.Content = &s
	}
	return append(out, msg)
}

// argumentsText is a tool call's arguments as the JSON text the chat API
// carries: decoded arguments are written back, a text is kept as it is,
// none is an empty object.
func argumentsText(a any) string {
	switch v := a.(type) {
	case nil:
		return "{}"
	case string:
		return v
	}
	b, err := marshalLine(a)
	if err != nil {
		return jsonString(a)
	}
	return strings.TrimRight(string(b), "\n")
}

// joinText joins the text parts of ps, counting the others in st.
func joinText(ps []semconv.Part, st *exportStats) string {
	var b strings.Builder
	for _, p := range ps {
		if p.Type != semconv.PartText {
			st.parts[p.Type]++
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(p.Content)
	}
	return b.String()
}
