package dialect

import (
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Content is the table's content section: where a span's conversation is
// kept, per side, the sources tried in order, the first that yields a
// message winning (semconv.Messages).
type Content struct {
	System []ContentSource `yaml:"system"`
	Input  []ContentSource `yaml:"input"`
	Output []ContentSource `yaml:"output"`
}

// ContentSource is one place a side of the conversation may be: an
// attribute (key), an attribute of a span event (event and key), an
// attribute family flattened one member per key (prefix, inner), the
// parts of one answer spread over keys (text, reasoning, tool_calls),
// per-message span events (events), or any attribute whose name ends in
// suffix. Shape says how its value is read (ContentShapes).
type ContentSource struct {
	Shape     string        `yaml:"shape"`
	Key       string        `yaml:"key"`
	Event     string        `yaml:"event"`
	Prefix    string        `yaml:"prefix"`
	Inner     string        `yaml:"inner"`
	Suffix    string        `yaml:"suffix"`
	Text      string        `yaml:"text"`
	Reasoning string        `yaml:"reasoning"`
	ToolCalls string        `yaml:"tool_calls"`
	Events    []EventSource `yaml:"events"`
	Line      int           `yaml:"-"`
}

// EventSource is a span event (or a log record read as one) that holds
// messages: its body is one message of Role, or its attribute Key holds
// a message list.
type EventSource struct {
	Name string `yaml:"name"`
	Role string `yaml:"role"`
	Key  string `yaml:"key"`
	Line int    `yaml:"-"`
}

// UnmarshalYAML keeps the line a content source starts on, for errors.
func (s *ContentSource) UnmarshalYAML(n *yaml.Node) error {
	type plain ContentSource
	if err := n.Decode((*plain)(s)); err != nil {
		return err
	}
	s.Line = n.Line
	return nil
}

// UnmarshalYAML keeps the line an event source starts on, for errors.
func (e *EventSource) UnmarshalYAML(n *yaml.Node) error {
	type plain EventSource
	if err := n.Decode((*plain)(e)); err != nil {
		return err
	}
	e.Line = n.Line
	return nil
}

// ContentShapes are the shapes a content source may have; "" is
// "messages". messages: a message list, one message or a request or
// response document, in any shape semconv.Messages knows; prompt: the
// Vercel AI SDK's {system?, prompt?, messages?}; body: a request or
// response body kept whole, its JSON as one text part when no message is
// in it; flat: messages flattened as prefix<i>.inner<member>; result: one
// answer spread over text, reasoning and tool_calls keys; events:
// per-message events; loose: any attribute named *suffix that holds a
// message list (input) or a result with tool calls (output).
var ContentShapes = []string{"", "messages", "prompt", "body", "flat", "result", "events", "loose"}

// Roles an event source's body may have.
var Roles = []string{"system", "user", "assistant", "tool"}

// check reports the first content source no reader could apply.
func (c *Content) check(name string) error {
	for _, side := range []struct {
		name string
		srcs []ContentSource
	}{{"system", c.System}, {"input", c.Input}, {"output", c.Output}} {
		for _, s := range side.srcs {
			if err := s.check(name, side.name); err != nil {
				return err
			}
		}
	}
	return nil
}

func (s *ContentSource) check(name, side string) error {
	where := "content " + side
	if !slices.Contains(ContentShapes, s.Shape) {
		return bad(name, s.Line, "%s: shape %q is none of %s", where, s.Shape, strings.Join(ContentShapes[1:], ", "))
	}
	if side == "system" && s.Shape != "" && s.Shape != "messages" {
		return bad(name, s.Line, "%s: system instructions are read from a key (shape messages), not %s", where, s.Shape)
	}
	switch s.Shape {
	case "", "messages", "prompt", "body":
		if s.Key == "" {
			return bad(name, s.Line, "%s: a %s source needs a key", where, cmpOr(s.Shape, "messages"))
		}
		if s.Event != "" && s.Shape != "" && s.Shape != "messages" {
			return bad(name, s.Line, "%s: only a messages source reads an event's key", where)
		}
	case "flat":
		if s.Prefix == "" {
			return bad(name, s.Line, "%s: a flat source needs a prefix", where)
		}
	case "loose":
		if s.Suffix == "" {
			return bad(name, s.Line, "%s: a loose source needs a suffix", where)
		}
	case "result":
		if s.Text == "" && s.Reasoning == "" && s.ToolCalls == "" {
			return bad(name, s.Line, "%s: a result source needs text, reasoning or tool_calls", where)
		}
	case "events":
		if len(s.Events) == 0 {
			return bad(name, s.Line, "%s: an events source needs events", where)
		}
		for _, e := range s.Events {
			if e.Name == "" || (e.Role == "") == (e.Key == "") {
				return bad(name, e.Line, "%s: an event needs a name and either a role or a key", where)
			}
			if e.Role != "" && !slices.Contains(Roles, e.Role) {
				return bad(name, e.Line, "%s: event %s: role %q is none of %s", where, e.Name, e.Role, strings.Join(Roles, ", "))
			}
		}
	}
	return nil
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// Same reports whether s and o name the same place.
func (s *ContentSource) Same(o *ContentSource) bool {
	return cmpOr(s.Shape, "messages") == cmpOr(o.Shape, "messages") && s.Key == o.Key && s.Event == o.Event && s.Prefix == o.Prefix &&
		s.Suffix == o.Suffix && s.Text == o.Text && s.Reasoning == o.Reasoning && s.ToolCalls == o.ToolCalls &&
		slices.EqualFunc(s.Events, o.Events, func(a, b EventSource) bool {
			return a.Name == b.Name && a.Role == b.Role && a.Key == b.Key
		})
}

// mergeContent lays over's sources on base's, per side: a library's
// sources follow the embedded ones that name a place, before the
// fallbacks (shape loose), so a span that has both is read from the
// conventions' key.
func mergeContent(base, over []ContentSource) []ContentSource {
	out := slices.Clone(base)
	at := slices.IndexFunc(out, func(s ContentSource) bool { return s.Shape == "loose" })
	if at < 0 {
		at = len(out)
	}
	for _, s := range over {
		if slices.ContainsFunc(out, func(b ContentSource) bool { return b.Same(&s) }) {
			continue
		}
		if s.Shape == "loose" {
			out = append(out, s)
			continue
		}
		out = slices.Insert(out, at, s)
		at++
	}
	return out
}

// contentWithFields is t's content section with, after its own sources,
// a key source for each source of the input, output and system fields
// that the section does not name: a key a file maps to a message field
// holds messages, and is read as such.
func (t *Table) contentWithFields() Content {
	c := Content{System: slices.Clone(t.Content.System), Input: slices.Clone(t.Content.Input),
		Output: slices.Clone(t.Content.Output)}
	for _, f := range t.Fields {
		var side *[]ContentSource
		switch f.Name {
		case "system":
			side = &c.System
		case "input":
			side = &c.Input
		case "output":
			side = &c.Output
		default:
			continue
		}
		for _, s := range f.Sources {
			src := ContentSource{Key: s.Key, Line: s.Line}
			if s.When == "" && !slices.ContainsFunc(*side, func(b ContentSource) bool { return b.Same(&src) }) {
				*side = append(*side, src)
			}
		}
	}
	return c
}

// ContentKeys returns the span attribute keys the content section reads
// (a flat source's prefix, ending in its dot, stands for its family),
// each once; loose sources, which read any key of their suffix, are not
// listed.
func (t *Table) ContentKeys() []string {
	var out []string
	for _, side := range [][]ContentSource{t.Content.System, t.Content.Input, t.Content.Output} {
		for _, s := range side {
			if s.Event != "" {
				continue // a key of the event, not of the span
			}
			out = appendNew(out, nonEmpty(s.Key, s.Prefix, s.Text, s.Reasoning, s.ToolCalls))
		}
	}
	return out
}

func nonEmpty(ss ...string) []string {
	out := ss[:0]
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}
