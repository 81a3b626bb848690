package semconv

import (
	"strings"
	"unsafe"

	"github.com/agenttrace/agenttrace/internal/jsonlex"
)

// A message list already in the conventions' shape, the one every
// artifact's "input" and "output" hold, is read straight from its JSON
// text by canonMessages: no map per message and part, as decoding it
// whole (decodeJSON) then reading the maps (messagesOf) makes. Those maps
// were most of what a page of a large run allocated (docs/benchmarks.md,
// issue 24). canonMessages takes only what it reads exactly as messagesOf
// would; anything else, it declines and messagesOf reads it:
// FuzzCanonMessages holds the two to the same result.

// canonMessages reads s, a JSON list of messages of the conventions'
// shape ({role, parts, name, finish_reason}, their parts text, reasoning,
// tool_call and tool_call_response with the members the conventions
// name), as messagesOf(maybeJSON(s), role) reads it. It reports false,
// reading nothing, for any other text: another shape, another member, a
// value of another type, no message, a message left with no part, text
// the lexer refuses.
func canonMessages(s, role string) ([]Message, bool) {
	t := strings.TrimSpace(s)
	if len(t) < 2 || t[0] != '[' || t[len(t)-1] != ']' {
		return nil, false
	}
	var sc jsonlex.Scanner
	sc.Reset(unsafe.Slice(unsafe.StringData(t), len(t))) // read only, as decodeJSON
	if !sc.Open('[') {
		return nil, false
	}
	var out []Message
	for first := true; sc.More(&first, ']'); {
		m, ok := canonMessage(&sc, t, role)
		if !ok {
			return nil, false
		}
		out = append(out, m)
	}
	sc.End()
	if sc.Err != nil || len(out) == 0 {
		return nil, false
	}
	return out, true
}

// canonMessage reads one message object as normMessage reads it. A
// member named twice counts once, its last value, as in a decoded map.
func canonMessage(sc *jsonlex.Scanner, t, role string) (Message, bool) {
	if sc.Peek() != '{' || !sc.Open('{') {
		return Message{}, false
	}
	var r, name, fr string
	var parts []Part
	hasParts := false
	for first := true; sc.More(&first, '}'); {
		key := sc.Key()
		var ok bool
		switch string(key) {
		case "role":
			r, ok = canonString(sc, t)
		case "name":
			name, ok = canonString(sc, t)
		case "finish_reason":
			fr, ok = canonString(sc, t)
		case "parts":
			parts, ok = canonParts(sc, t)
			hasParts = true
		}
		if !ok {
			return Message{}, false
		}
	}
	if sc.Err != nil || !hasParts {
		return Message{}, false
	}
	if n := normRole(r); n != "" {
		role = n
	}
	msg := Message{Role: role, Name: name, Parts: parts}
	if fr != "" {
		msg.FinishReason = NormalizeFinishReason(fr)
	}
	if role == RoleTool {
		toolTexts(msg.Parts, "")
	}
	msg.Parts = dropEmptyText(msg.Parts)
	return msg, len(msg.Parts) > 0
}

// canonString reads a string value, as decodeString does; false for a
// value of another type.
func canonString(sc *jsonlex.Scanner, t string) (string, bool) {
	if sc.Peek() != '"' {
		return "", false
	}
	s := decodeString(sc, t)
	return s, sc.Err == nil
}

// canonParts reads a list of part objects as partsOf reads it.
func canonParts(sc *jsonlex.Scanner, t string) ([]Part, bool) {
	if sc.Peek() != '[' || !sc.Open('[') {
		return nil, false
	}
	out := []Part{}
	for first := true; sc.More(&first, ']'); {
		p, ok := canonPart(sc, t)
		if !ok {
			return nil, false
		}
		out = append(out, p)
	}
	return out, sc.Err == nil
}

// canonPart reads one part object as blockPart reads it.
func canonPart(sc *jsonlex.Scanner, t string) (Part, bool) {
	if sc.Peek() != '{' || !sc.Open('{') {
		return Part{}, false
	}
	var typ, content, id, name string
	var args, resp any
	var hasContent, hasArgs, hasResp bool
	for first := true; sc.More(&first, '}'); {
		key := sc.Key()
		ok := true
		switch string(key) {
		case "type":
			typ, ok = canonString(sc, t)
		case "content":
			content, ok = canonString(sc, t)
			hasContent = true
		case "id":
			id, ok = canonString(sc, t)
		case "name":
			name, ok = canonString(sc, t)
		case "arguments":
			args, hasArgs = decodeValue(sc, t), true
		case "response":
			resp, hasResp = decodeValue(sc, t), true
		default:
			ok = false
		}
		if !ok || sc.Err != nil {
			return Part{}, false
		}
	}
	if sc.Err != nil {
		return Part{}, false
	}
	switch typ {
	case PartText:
		return Part{Type: PartText, Content: content}, hasContent
	case PartReasoning:
		return Part{Type: PartReasoning, Content: content}, true
	case PartToolCall:
		p := Part{Type: PartToolCall, ID: id, Name: name}
		if hasArgs {
			p.Arguments = argsValue(args)
		}
		return p, true
	case PartToolResponse:
		p := Part{Type: PartToolResponse, ID: id}
		switch {
		case hasResp:
			p.Response = unwrapResult(resp)
		case hasContent:
			p.Response = unwrapResult(content)
		}
		return p, true
	}
	return Part{}, false
}
