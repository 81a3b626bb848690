package semconv

import (
	"slices"
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/semconv/internal/dialect"
)

// The content section of the dialect table (dialects.yaml, content:):
// which attributes, attribute families and events hold a span's
// conversation, in the order Messages tries them. The shapes of the
// messages themselves (OpenAI, Anthropic, Bedrock, Gemini, ...) are
// recognized by their members in the other messages_*.go files; where
// they are kept is data, so a user's dialect file names a library's
// content keys as it names its usage keys.

// contentTable is the content section compiled for Messages.
type contentTable struct {
	system, input, output []dialect.ContentSource
	// events: every event name a source reads (AppendLogEvent keeps log
	// records of these names as span events); details: the names read
	// as one merged event (event: of a keyed source).
	events  map[string]bool
	details map[string]bool
	// finish: the finish_reasons field's keys, best first.
	finish []string
	// keys: span attributes (and prefixes of flattened families, ending
	// in their dot) the section reads: ContentKey.
	keys []string
}

func compileContent(t *dialect.Table) contentTable {
	c := contentTable{system: t.Content.System, input: t.Content.Input, output: t.Content.Output,
		events: map[string]bool{}, details: map[string]bool{}, finish: t.FieldSources("finish_reasons"),
		keys: t.ContentKeys()}
	for _, side := range [][]dialect.ContentSource{c.system, c.input, c.output} {
		for _, s := range side {
			if s.Event != "" {
				c.events[s.Event] = true
				c.details[s.Event] = true
			}
			for _, e := range s.Events {
				c.events[e.Name] = true
			}
		}
	}
	return c
}

// ContentKey reports whether the dialect table in use reads attribute
// key k for a span's conversation: a content source's key, or a key of a
// flattened family the table names by its prefix.
func ContentKey(k string) bool {
	return slices.ContainsFunc(active.Load().content.keys, func(p string) bool {
		return k == p || strings.HasSuffix(p, ".") && strings.HasPrefix(k, p)
	})
}

// isContentEvent reports whether the table reads events named name for
// content.
func isContentEvent(name string) bool { return active.Load().content.events[name] }

// isDetailsEvent reports whether the table reads events named name as
// one event, merged (gen_ai.client.inference.operation.details).
func isDetailsEvent(name string) bool { return active.Load().content.details[name] }

// spanContent reads one span's content sources.
type spanContent struct {
	attrs pcommon.Map
	evs   ptrace.SpanEventSlice
	// The last event name read and its events' attributes merged: the
	// details event is read for the system instructions, the input and
	// the output.
	mergedName string
	merged     map[string]any
	mergedOK   bool
}

// get is attribute k as plain data (a JSON string decoded); the key ""
// (a part a result source does not name) is never there.
func (r *spanContent) get(k string) (any, bool) {
	if k == "" {
		return nil, false
	}
	v, ok := r.attrs.Get(k)
	if !ok {
		return nil, false
	}
	return valueAny(v), true
}

// canon reads a message list source whose attribute is text in the
// conventions' shape without decoding it into maps (canonMessages).
func (r *spanContent) canon(s *dialect.ContentSource, role string) ([]Message, bool) {
	if s.Shape != "" && s.Shape != "messages" || s.Key == "" {
		return nil, false
	}
	v, ok := r.attrs.Get(s.Key)
	if !ok || v.Type() != pcommon.ValueTypeStr {
		return nil, false
	}
	return canonMessages(v.Str(), role)
}

// event returns the merged attributes of the events named name.
func (r *spanContent) event(name string) map[string]any {
	if !r.mergedOK || r.mergedName != name {
		r.merged, r.mergedName, r.mergedOK = findEvent(r.evs, name), name, true
	}
	return r.merged
}

// system reads system instructions from s.
func (r *spanContent) system(s *dialect.ContentSource) []Part {
	var v any
	var ok bool
	if s.Event != "" {
		v, ok = r.event(s.Event)[s.Key]
	} else {
		v, ok = r.get(s.Key)
	}
	if !ok {
		return nil
	}
	if str, isStr := v.(string); isStr {
		v = maybeJSON(str)
	}
	return partsOf(v)
}

// messages reads side role (RoleUser for input, RoleAssistant for
// output) from s.
func (r *spanContent) messages(s *dialect.ContentSource, role string) []Message {
	switch s.Shape {
	case "", "messages", "prompt", "body":
		if s.Event != "" {
			return mapMessages(r.event(s.Event), s.Key, role)
		}
		if ms, ok := r.canon(s, role); ok {
			return ms
		}
		v, ok := r.get(s.Key)
		if !ok {
			return nil
		}
		switch s.Shape {
		case "prompt":
			return promptMessages(v)
		case "body":
			return bodyMessages(v, role)
		}
		return messagesOf(v, role)
	case "flat":
		return flatMessages(r.attrs, s.Prefix, s.Inner, role)
	case "result":
		return resultMessages(r, s)
	case "events":
		return eventMessages(r.evs, s.Events, role == RoleAssistant)
	case "loose":
		if role == RoleAssistant {
			return looseOutput(r.attrs, s.Suffix)
		}
		return looseInput(r.attrs, s.Suffix)
	}
	return nil
}

// first returns the messages of the first of srcs that has any.
func (r *spanContent) first(srcs []dialect.ContentSource, role string) []Message {
	for i := range srcs {
		if m := r.messages(&srcs[i], role); len(m) > 0 {
			return m
		}
	}
	return []Message{}
}

// bodySystem is the system prompt of an input body source that holds the
// only copy of it (Anthropic's top-level "system", which OpenInference's
// flattened messages leave out:
// testdata/real/openinference-anthropic/payloads/tool-loop.traces.json).
func (r *spanContent) bodySystem(srcs []dialect.ContentSource) []Part {
	for i := range srcs {
		if srcs[i].Shape != "body" {
			continue
		}
		if v, ok := r.get(srcs[i].Key); ok {
			if m, ok := v.(map[string]any); ok && m["system"] != nil {
				return partsOf(m["system"])
			}
		}
	}
	return nil
}

// finishReasons are the span's finish reasons: the table's
// finish_reasons keys, a list or one string, first present winning.
func (r *spanContent) finishReasons(keys []string) []string {
	for _, k := range keys {
		v, ok := r.attrs.Get(k)
		if !ok {
			continue
		}
		switch v.Type() {
		case pcommon.ValueTypeSlice:
			var out []string
			for _, e := range v.Slice().All() {
				out = append(out, e.AsString())
			}
			return out
		case pcommon.ValueTypeStr:
			if l, ok := maybeJSON(v.Str()).([]any); ok { // a list kept as a JSON string
				var out []string
				for _, e := range l {
					out = append(out, strOf(e))
				}
				return out
			}
			return []string{v.Str()}
		}
	}
	return nil
}
