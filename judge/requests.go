package judge

import (
	"cmp"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/semconv"
)

// Keys of model output that are not promoted to fields.
const (
	eventChoice            = "gen_ai.choice"
	eventContentCompletion = "gen_ai.content.completion"
	aiResponseToolCalls    = "ai.response.toolCalls"
	aiResponseText         = "ai.response.text"
	aiResponseObject       = "ai.response.object"
	oiOutputPrefix         = "llm.output_messages."
	tlCompletionPrefix     = "gen_ai.completion."
)

var (
	oiToolCallKey = regexp.MustCompile(`^llm\.output_messages\.(\d+)\.message\.tool_calls\.(\d+)\.tool_call\.(id|function\.name|function\.arguments)$`)
	tlToolCallKey = regexp.MustCompile(`^gen_ai\.completion\.(\d+)\.tool_calls\.(\d+)\.(id|name|arguments)$`)
	finishKey     = regexp.MustCompile(`^(gen_ai\.completion\.\d+\.finish_reason|llm\.output_messages\.\d+\.message\.finish_reason)$`)
)

// requestsOf reads the tool calls an inference requested, whether its
// output was recorded at all, and whether a finish reason was. The output
// is read from the first of these that the span has: the output field
// (gen_ai.output.messages or gen_ai.completion: GenAI parts, OpenAI
// tool_calls, Anthropic tool_use blocks), gen_ai.choice events (GenAI
// v1.28 to v1.36), the Vercel AI SDK's ai.response.toolCalls, and the
// flattened keys of OpenInference and older OpenLLMetry.
func requestsOf(rd *semconv.Reading, sp ptrace.Span) (reqs []request, recorded, finish bool) {
	finish = rd.Has(semconv.FieldFinishReasons)
	attrs := sp.Attributes()
	for k, v := range attrs.All() {
		if finishKey.MatchString(k) && v.AsString() != "" {
			finish = true
		}
	}
	if rd.Has(semconv.FieldOutput) {
		collectCalls(jsonOf(rd.Value(semconv.FieldOutput)), &reqs, &finish)
		return reqs, true, finish
	}
	for _, ev := range sp.Events().All() {
		switch ev.Name() {
		case eventChoice:
			recorded = true
			collectCalls(plainOf(mapValue(ev.Attributes())), &reqs, &finish)
		case eventContentCompletion:
			if v, ok := ev.Attributes().Get(semconv.Completion); ok {
				recorded = true
				collectCalls(jsonOf(v), &reqs, &finish)
			}
		}
	}
	if recorded {
		return reqs, true, finish
	}
	if v, ok := attrs.Get(aiResponseToolCalls); ok {
		if calls, ok := jsonOf(v).([]any); ok {
			for _, c := range calls {
				if m, ok := c.(map[string]any); ok {
					args, has := argsOf(either(m["args"], m["input"]))
					reqs = append(reqs, request{id: str(m["toolCallId"]), name: str(m["toolName"]), args: args, hasArgs: has})
				}
			}
		}
		return reqs, true, finish
	}
	if _, ok := attrs.Get(aiResponseText); ok {
		return nil, true, finish
	}
	if _, ok := attrs.Get(aiResponseObject); ok {
		return nil, true, finish
	}
	if v, ok := attrs.Get(semconv.GenkitOutput); ok {
		reqs = genkitCalls(jsonOf(v), &finish)
		return reqs, true, finish
	}
	if v, ok := attrs.Get(semconv.LFObservationOutput); ok {
		collectCalls(jsonOf(v), &reqs, &finish)
		return reqs, true, finish
	}
	return flattenedCalls(attrs, finish)
}

// genkitCalls reads a Genkit model response ({message: {content: [...]},
// finishReason}): its toolRequest parts, and whether it says why it
// stopped. Genkit's ref numbers requests within one response only, so the
// requests carry no id and are matched with call records by name.
func genkitCalls(v any, finish *bool) []request {
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	if str(m["finishReason"]) != "" || str(m["finish_reason"]) != "" {
		*finish = true
	}
	msg, _ := m["message"].(map[string]any)
	parts, _ := msg["content"].([]any)
	var reqs []request
	for _, p := range parts {
		pm, _ := p.(map[string]any)
		tr, ok := pm["toolRequest"].(map[string]any)
		if !ok {
			continue
		}
		args, has := argsOf(tr["input"])
		reqs = append(reqs, request{name: str(tr["name"]), args: args, hasArgs: has})
	}
	return reqs
}

// mapValue wraps a map as a value, for plainOf.
func mapValue(m pcommon.Map) pcommon.Value {
	v := pcommon.NewValueMap()
	m.CopyTo(v.Map())
	return v
}

// flattenedCalls reads tool calls from OpenInference's
// llm.output_messages.<i>.message.tool_calls.<j>.tool_call.* keys and
// older OpenLLMetry's gen_ai.completion.<i>.tool_calls.<j>.* keys.
func flattenedCalls(attrs pcommon.Map, finish bool) ([]request, bool, bool) {
	type pos struct{ msg, call int }
	type fields struct{ id, name, args string }
	got := map[pos]*fields{}
	recorded := false
	for k, v := range attrs.All() {
		if !strings.HasPrefix(k, oiOutputPrefix) && !strings.HasPrefix(k, tlCompletionPrefix) {
			continue
		}
		recorded = true
		m := oiToolCallKey.FindStringSubmatch(k)
		if m == nil {
			m = tlToolCallKey.FindStringSubmatch(k)
		}
		if m == nil {
			continue
		}
		msg, _ := strconv.Atoi(m[1])
		call, _ := strconv.Atoi(m[2])
		p := pos{msg, call}
		if got[p] == nil {
			got[p] = &fields{}
		}
		switch m[3] {
		case "id":
			got[p].id = v.AsString()
		case "name", "function.name":
			got[p].name = v.AsString()
		case "arguments", "function.arguments":
			got[p].args = v.AsString()
		}
	}
	ps := make([]pos, 0, len(got))
	for p := range got {
		ps = append(ps, p)
	}
	slices.SortFunc(ps, func(x, y pos) int { return cmp.Or(cmp.Compare(x.msg, y.msg), cmp.Compare(x.call, y.call)) })
	var reqs []request
	for _, p := range ps {
		f := got[p]
		args, has := argsOf(f.args)
		reqs = append(reqs, request{id: f.id, name: f.name, args: args, hasArgs: has})
	}
	return reqs, recorded, finish
}

// collectCalls walks output messages for the tool calls they request,
// and notes a finish reason when a message carries one.
func collectCalls(v any, out *[]request, finish *bool) {
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			collectCalls(e, out, finish)
		}
	case map[string]any:
		for _, k := range []string{"finish_reason", "stop_reason", "finishReason"} {
			if s := str(x[k]); s != "" {
				*finish = true
			}
		}
		if ch, ok := x["choices"]; ok {
			collectCalls(ch, out, finish)
		}
		if m, ok := x["message"].(map[string]any); ok {
			collectCalls(m, out, finish)
		}
		for _, k := range []string{"parts", "content"} {
			if blocks, ok := x[k].([]any); ok {
				for _, b := range blocks {
					if p, ok := b.(map[string]any); ok {
						switch str(p["type"]) {
						case "tool_call", "tool_use", "function_call":
							args, has := argsOf(either(p["arguments"], p["input"]))
							*out = append(*out, request{id: str(p["id"]), name: str(p["name"]), args: args, hasArgs: has})
						}
					}
				}
			}
		}
		if calls, ok := x["tool_calls"].([]any); ok {
			for _, c := range calls {
				p, ok := c.(map[string]any)
				if !ok {
					continue
				}
				name, rawArgs := p["name"], either(p["arguments"], p["args"])
				if fn, ok := p["function"].(map[string]any); ok {
					name, rawArgs = fn["name"], fn["arguments"]
				}
				args, has := argsOf(rawArgs)
				*out = append(*out, request{id: str(p["id"]), name: str(name), args: args, hasArgs: has})
			}
		}
	}
}

// argsOf returns requested arguments as a JSON tree: a string holding
// JSON (OpenAI's encoding) is parsed. An absent or empty value is none.
func argsOf(v any) (any, bool) {
	switch x := v.(type) {
	case nil:
		return nil, false
	case string:
		if strings.TrimSpace(x) == "" {
			return nil, false
		}
		return parseText(x), true
	}
	return v, true
}

// either returns a unless it is absent (nil), else b.
func either(a, b any) any {
	if a != nil {
		return a
	}
	return b
}

func str(v any) string {
	s, _ := v.(string)
	return s
}
