package semconv

import "strings"

// Message objects: OpenAI chat messages (content, tool_calls,
// tool_call_id, a null content beside tool calls), OpenAI Responses API
// items (function_call, function_call_output), LangChain's serialized
// and dict messages, the conventions' own {role, parts}, Gemini's {role,
// parts} and Anthropic's and Bedrock's {role, content: [blocks]}: all are
// told apart by their members.

// normMessage reads one message object of any known shape. It reports
// false only for an object with nothing in it; an object it cannot read
// becomes a message holding its JSON as text, never an empty one.
func normMessage(m map[string]any, role string) (Message, bool) {
	// OpenAI Responses API items: a call or its output is a message of its own.
	switch strOf(m["type"]) {
	case "function_call":
		p, _ := blockPart(m)
		return Message{Role: RoleAssistant, Parts: []Part{p}}, true
	case "function_call_output":
		p, _ := blockPart(m)
		return Message{Role: RoleTool, Parts: []Part{p}}, true
	case "reasoning":
		if _, hasRole := m["role"]; !hasRole {
			return Message{Role: RoleAssistant, Parts: []Part{responsesReasoning(m)}}, true
		}
	}
	m, role = langChainMessage(m, role)
	if r := normRole(strOf(m["role"])); r != "" {
		role = r
	} else if r := normRole(strOf(m["type"])); r != "" && m["content"] != nil {
		role = r // LangChain dict messages: {"type":"human","content":…}
	}
	msg := Message{Role: role, Name: strOf(m["name"])}
	if fr := firstStr(m, "finish_reason", "finishReason", "stop_reason", "stopReason"); fr != "" {
		msg.FinishReason = NormalizeFinishReason(fr)
	}
	toolCallID := firstStr(m, "tool_call_id", "toolCallId")
	hasCalls := m["tool_calls"] != nil || m["function_call"] != nil
	if ps, ok := m["parts"]; ok {
		msg.Parts = partsOf(ps)
	} else if ct, ok := m["content"]; ok && !nullContent(ct, hasCalls) {
		if role == RoleTool || toolCallID != "" {
			// A tool's result, whatever the role: OpenInference's Anthropic
			// instrumentation records a tool_result block as a "user"
			// message with tool_call_id.
			msg.Parts = toolResultParts(ct, toolCallID)
		} else if c, ok := geminiContent(ct, role); ok {
			msg.Parts = c.Parts // a Gemini candidate: {content: {role, parts}}
		} else {
			msg.Parts = partsOf(ct)
		}
	} else if t, ok := m["text"].(string); ok {
		msg.Parts = []Part{{Type: PartText, Content: t}}
	}
	for _, k := range [...]string{"reasoning_content", "reasoning"} {
		if s, ok := m[k].(string); ok && s != "" {
			msg.Parts = append([]Part{{Type: PartReasoning, Content: s}}, msg.Parts...)
		}
	}
	if tcs, ok := m["tool_calls"].([]any); ok {
		for _, tc := range tcs {
			if tm, ok := tc.(map[string]any); ok {
				msg.Parts = appendCall(msg.Parts, toolCallPart(tm))
			}
		}
	}
	if fc, ok := m["function_call"].(map[string]any); ok {
		msg.Parts = append(msg.Parts, toolCallPart(fc))
	}
	if role == RoleTool {
		toolTexts(msg.Parts, toolCallID)
	}
	msg.Parts = dropEmptyText(msg.Parts)
	if len(msg.Parts) == 0 {
		if !hasContent(m) || m["embeddings"] != nil || m["embedding"] != nil {
			// Nothing but a role, or an embeddings response: vectors are
			// no message.
			return Message{}, false
		}
		// Nothing read, something there: keep it as text.
		msg.Parts = []Part{{Type: PartText, Content: jsonText(m)}}
	}
	return msg, true
}

// appendCall appends a tool call unless the content blocks already hold
// it (OpenInference records an Anthropic tool_use both among the contents
// and as a tool call).
func appendCall(ps []Part, p Part) []Part {
	for _, q := range ps {
		if q.Type == PartToolCall && p.ID != "" && q.ID == p.ID {
			return ps
		}
	}
	return append(ps, p)
}

// dropEmptyText removes text parts with no text: an instrumentation that
// writes an empty text beside (or instead of) a tool call it did not
// record (Mastra, LlamaIndex) says nothing with it, and a message of such
// parts only is an empty bubble.
func dropEmptyText(ps []Part) []Part {
	out := ps[:0]
	for _, p := range ps {
		if p.Type == PartText && p.Content == "" {
			continue
		}
		out = append(out, p)
	}
	return out
}

// nullContent tells content that is no content: null, and the text
// "null" some instrumentations write for a null content beside tool calls
// (OpenLLMetry's flattened gen_ai.prompt.N.content).
func nullContent(ct any, hasCalls bool) bool {
	switch t := ct.(type) {
	case nil:
		return true
	case string:
		return hasCalls && (t == "null" || t == "")
	}
	return false
}

// hasContent tells a message object that carries anything besides its
// role, name, finish reason and the content already read, and so must
// not become nothing.
func hasContent(m map[string]any) bool {
	for k, v := range m {
		switch k {
		case "role", "name", "finish_reason", "finishReason", "stop_reason", "stopReason", "index", "id", "type", "tool_call_id", "toolCallId":
			continue
		case "parts", "content", "contents", "text":
			// Read already: every part of them that says something is kept
			// (partOf), so nothing from them means they were empty.
			continue
		}
		if v == nil {
			continue
		}
		if s, ok := v.(string); ok && (s == "" || s == "null") {
			continue
		}
		if l, ok := v.([]any); ok && len(l) == 0 {
			continue
		}
		return true
	}
	return false
}

// toolResultParts reads a tool message's content as the result of call
// id: content blocks that are themselves results (Anthropic tool_result,
// Bedrock toolResult, Gemini functionResponse) as those parts; anything
// else, a string (a JSON one decoded), an object, a list, as the one
// response.
func toolResultParts(ct any, id string) []Part {
	v := ct
	if s, ok := ct.(string); ok {
		v = maybeJSON(s)
	}
	if l, ok := v.([]any); ok && looksLikeParts(l) {
		if ps := partsOf(l); hasPartType(ps, PartToolResponse) {
			return ps
		}
	}
	if s, ok := ct.(string); ok {
		return []Part{{Type: PartToolResponse, ID: id, Response: maybeJSON(s)}}
	}
	return []Part{{Type: PartToolResponse, ID: id, Response: unwrapResult(ct)}}
}

// toolTexts makes the text parts of a tool message that has no
// tool_call_response part its results (OpenLIT writes a tool's result as a
// text part of the tool role), so a tool's result always reads as one.
func toolTexts(ps []Part, id string) {
	if hasPartType(ps, PartToolResponse) {
		return
	}
	for i, p := range ps {
		if p.Type == PartText {
			ps[i] = Part{Type: PartToolResponse, ID: id, Response: maybeJSON(p.Content)}
		}
	}
}

func hasPartType(ps []Part, typ string) bool {
	for _, p := range ps {
		if p.Type == typ {
			return true
		}
	}
	return false
}

// responsesReasoning reads a Responses API reasoning item: its summary
// texts, or its content.
func responsesReasoning(m map[string]any) Part {
	var texts []string
	for _, k := range [...]string{"summary", "content"} {
		if l, ok := m[k].([]any); ok {
			for _, e := range l {
				if b, ok := e.(map[string]any); ok {
					if s := strOf(b["text"]); s != "" {
						texts = append(texts, s)
					}
				}
			}
		}
		if len(texts) > 0 {
			break
		}
	}
	return Part{Type: PartReasoning, Content: strings.Join(texts, "\n")}
}

// langChainMessage unwraps LangChain's serialized message,
// {"lc":1,"id":[…,"HumanMessage"],"kwargs":{…}}, taking its role from
// the class name.
func langChainMessage(m map[string]any, role string) (map[string]any, string) {
	kw, ok := m["kwargs"].(map[string]any)
	if !ok {
		return m, role
	}
	ids, ok := m["id"].([]any)
	if !ok || len(ids) == 0 {
		return m, role
	}
	switch strOf(ids[len(ids)-1]) {
	case "HumanMessage", "HumanMessageChunk":
		role = RoleUser
	case "AIMessage", "AIMessageChunk":
		role = RoleAssistant
	case "SystemMessage":
		role = RoleSystem
	case "ToolMessage":
		role = RoleTool
	}
	return kw, role
}

func normRole(r string) string {
	switch strings.ToLower(r) {
	case "":
		return ""
	case "system":
		return RoleSystem
	case "user", "human":
		return RoleUser
	case "assistant", "model", "ai", "bot":
		return RoleAssistant
	case "tool", "function", "ipython":
		return RoleTool
	case "developer":
		return "developer"
	}
	return r
}

// toolCallPart reads a tool call: OpenAI {id, function:{name, arguments}},
// flat {id, name, arguments}, LangChain {id, name, args}.
func toolCallPart(tc map[string]any) Part {
	p := Part{Type: PartToolCall, ID: strOf(tc["id"]), Name: strOf(tc["name"])}
	args, hasArgs := tc["arguments"]
	if fn, ok := tc["function"].(map[string]any); ok {
		if p.Name == "" {
			p.Name = strOf(fn["name"])
		}
		if a, ok := fn["arguments"]; ok {
			args, hasArgs = a, true
		}
	}
	if !hasArgs {
		args, hasArgs = tc["args"]
	}
	if !hasArgs {
		args, hasArgs = tc["input"]
	}
	if hasArgs {
		p.Arguments = argsValue(args)
	}
	return p
}

// argsValue decodes arguments sent as a JSON string.
func argsValue(a any) any {
	if s, ok := a.(string); ok {
		return maybeJSON(s)
	}
	return a
}

// expandStringified undoes an instrumentation that wrote a whole message
// list as the text of one user message (OpenLLMetry JS 0.27.0 does so for
// the OpenAI Responses API's input list:
// testdata/real/openllmetry-openai/payloads/responses-tool-loop.traces.json).
// It applies only when the text is a JSON list whose every item is a
// message or a Responses API item.
func expandStringified(in []Message) []Message {
	if len(in) != 1 || in[0].Role != RoleUser || len(in[0].Parts) != 1 || in[0].Parts[0].Type != PartText {
		return in
	}
	l, ok := maybeJSON(in[0].Parts[0].Content).([]any)
	if !ok || len(l) == 0 {
		return in
	}
	for _, e := range l {
		m, ok := e.(map[string]any)
		if !ok {
			return in
		}
		if _, hasRole := m["role"].(string); hasRole {
			continue
		}
		switch strOf(m["type"]) {
		case "message", "function_call", "function_call_output", "reasoning":
			continue
		}
		return in
	}
	if out := messagesOf(l, RoleUser); len(out) > 0 {
		return out
	}
	return in
}
