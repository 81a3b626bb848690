package semconv

import (
	"sort"
	"strconv"
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"
)

// Flattened messages: OpenLLMetry's gen_ai.prompt.N.* / gen_ai.completion.N.*
// and OpenInference's llm.input_messages.N.message.* spread one message
// over many attributes; they are rebuilt into one object each and read
// like any JSON message (normMessage).

// flatMessages rebuilds flattened messages: prefix + "<i>." + inner +
// field, with fields such as role, content, tool_call_id,
// tool_calls.<j>.{id,name,arguments} (OpenLLMetry) and
// contents.<j>.message_content.{type,text} or
// tool_calls.<j>.tool_call.{id,function.name,function.arguments}
// (OpenInference).
func flatMessages(attrs pcommon.Map, prefix, inner, role string) []Message {
	byIdx := map[int]map[string]any{}
	for k, v := range attrs.All() {
		if !strings.HasPrefix(k, prefix) {
			continue
		}
		rest := k[len(prefix):]
		dot := strings.IndexByte(rest, '.')
		if dot <= 0 {
			continue
		}
		i, err := strconv.Atoi(rest[:dot])
		if err != nil || i < 0 {
			continue
		}
		field := strings.TrimPrefix(rest[dot+1:], inner)
		if byIdx[i] == nil {
			byIdx[i] = map[string]any{}
		}
		setPath(byIdx[i], field, flatValue(field, v))
	}
	if len(byIdx) == 0 {
		return nil
	}
	idx := make([]int, 0, len(byIdx))
	for i := range byIdx {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	var out []Message
	for _, i := range idx {
		m := byIdx[i]
		normalizeFlat(m)
		if msg, ok := normMessage(m, role); ok {
			out = append(out, msg)
		}
	}
	return out
}

// flatValue is a flattened field's value as plain data. A content field
// stays the string it was: whether JSON in it is a tool's result, a list of
// content blocks or a user's text is decided by normMessage, which knows
// the role (decoding it here made a tool's JSON result a map no rule read:
// OpenInference and OpenLLMetry tool messages came out empty).
func flatValue(field string, v pcommon.Value) any {
	if v.Type() == pcommon.ValueTypeStr && (field == "content" || strings.HasSuffix(field, ".content")) {
		return v.Str()
	}
	return valueAny(v)
}

// setPath stores v under a dotted path, numeric segments becoming list
// indexes (kept as maps keyed by index until normalizeFlat).
func setPath(m map[string]any, path string, v any) {
	for {
		dot := strings.IndexByte(path, '.')
		if dot < 0 {
			if _, exists := m[path]; !exists {
				m[path] = v
			}
			return
		}
		seg := path[:dot]
		next, ok := m[seg].(map[string]any)
		if !ok {
			if _, exists := m[seg]; exists {
				return // a scalar already sits here
			}
			next = map[string]any{}
			m[seg] = next
		}
		m, path = next, path[dot+1:]
	}
}

// normalizeFlat turns maps keyed by indexes into ordered lists, and
// OpenInference's wrappers (tool_call, message_content) into plain
// objects, so normMessage reads them like JSON messages.
func normalizeFlat(m map[string]any) {
	for k, v := range m {
		sub, ok := v.(map[string]any)
		if !ok {
			continue
		}
		if l, ok := indexedList(sub); ok {
			for j, e := range l {
				em, ok := e.(map[string]any)
				if !ok {
					continue
				}
				for _, w := range [...]string{"tool_call", "message_content"} {
					if inner, ok := em[w].(map[string]any); ok {
						em = inner
					}
				}
				normalizeFlat(em)
				if img, ok := em["image"].(map[string]any); ok { // OpenInference image.image.url
					if in, ok := img["image"].(map[string]any); ok {
						em["type"] = "image_url"
						em["image_url"] = map[string]any{"url": in["url"]}
					}
				}
				l[j] = em
			}
			m[k] = l
			continue
		}
		normalizeFlat(sub)
	}
	// OpenInference "contents" is the content list.
	if c, ok := m["contents"]; ok && m["content"] == nil {
		m["content"] = c
	}
}

func indexedList(m map[string]any) ([]any, bool) {
	if len(m) == 0 {
		return nil, false
	}
	idx := make([]int, 0, len(m))
	for k := range m {
		i, err := strconv.Atoi(k)
		if err != nil || i < 0 {
			return nil, false
		}
		idx = append(idx, i)
	}
	sort.Ints(idx)
	out := make([]any, 0, len(idx))
	for _, i := range idx {
		out = append(out, m[strconv.Itoa(i)])
	}
	return out, true
}
