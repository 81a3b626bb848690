// Package dialect parses, checks and merges dialect tables: the YAML files
// that say which span attributes and span names mean what (semconv's
// embedded dialects.yaml, and the files users add with --dialect). It is
// internal so that both package semconv and the generator of
// semconv/kvlookup.go read the one table the same way, the generator
// without depending on the package it writes code for.
package dialect

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// ErrInvalid is wrapped by every error that rejects a table's content.
var ErrInvalid = errors.New("invalid dialect table")

// Table is one dialect file. Its sections are described in
// semconv/dialects/dialects.yaml and docs/dialects.md.
type Table struct {
	Fields     []Field           `yaml:"fields"`
	Total      []string          `yaml:"total"`
	Kinds      []Rule            `yaml:"kinds"`
	Operations map[string]string `yaml:"operations"`
	Lookups    []string          `yaml:"lookups"`
	Errors     []ErrorRule       `yaml:"errors"`
	Content    Content           `yaml:"content"`
}

// Field is a record field and the keys that supply it, best first.
type Field struct {
	Name    string   `yaml:"name"`
	Type    string   `yaml:"type"`
	Sources []Source `yaml:"sources"`
	Line    int      `yaml:"-"`
}

// Source is one key that may supply a field.
type Source struct {
	Key  string `yaml:"key"`
	Type string `yaml:"type"`
	When string `yaml:"when"`
	Line int    `yaml:"-"`
}

// Rule decides a span's kind from one attribute or the span name.
type Rule struct {
	Dialect    string            `yaml:"dialect"`
	Key        string            `yaml:"key"`
	NamePrefix string            `yaml:"name_prefix"`
	Values     map[string]string `yaml:"values"`
	Suffixes   map[string]string `yaml:"suffixes"`
	Other      string            `yaml:"other"`
	Present    string            `yaml:"present"`
	Requires   string            `yaml:"requires"`
	Line       int               `yaml:"-"`
}

// ErrorRule names an attribute whose values (any case) mean the span failed.
type ErrorRule struct {
	Key    string   `yaml:"key"`
	Values []string `yaml:"values"`
	Line   int      `yaml:"-"`
}

// UnmarshalYAML keeps the line a field starts on, for errors.
func (f *Field) UnmarshalYAML(n *yaml.Node) error {
	type plain Field
	if err := n.Decode((*plain)(f)); err != nil {
		return err
	}
	f.Line = n.Line
	return nil
}

// UnmarshalYAML keeps the line a source starts on, for errors.
func (s *Source) UnmarshalYAML(n *yaml.Node) error {
	type plain Source
	if err := n.Decode((*plain)(s)); err != nil {
		return err
	}
	s.Line = n.Line
	return nil
}

// UnmarshalYAML keeps the line a rule starts on, for errors.
func (r *Rule) UnmarshalYAML(n *yaml.Node) error {
	type plain Rule
	if err := n.Decode((*plain)(r)); err != nil {
		return err
	}
	r.Line = n.Line
	return nil
}

// UnmarshalYAML keeps the line an error rule starts on, for errors.
func (e *ErrorRule) UnmarshalYAML(n *yaml.Node) error {
	type plain ErrorRule
	if err := n.Decode((*plain)(e)); err != nil {
		return err
	}
	e.Line = n.Line
	return nil
}

// Types a field or source may have.
var Types = []string{"string", "int", "double", "strings", "json"}

// Conditions a source's when may name.
var Conditions = []string{"", "openinference_tool", "traceloop_tool", "traceloop_agent", "error", "genkit_model", "genkit_tool", "genkit_flow"}

// Kinds a rule or operation may decide.
var Kinds = []string{"span", "call", "inference", "agent"}

// Requirements a rule's requires may name: evidence the span must also carry.
var Requirements = []string{"", "model"}

var yamlLine = regexp.MustCompile(`line (\d+): `)

// Parse reads a table from data; name (the file's path) prefixes every
// error, with the line at fault: "dialects.yaml:12: ...".
func Parse(name string, data []byte) (*Table, error) {
	var t Table
	d := yaml.NewDecoder(bytes.NewReader(data))
	d.KnownFields(true)
	if err := d.Decode(&t); err != nil && !errors.Is(err, io.EOF) {
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		msg = strings.ReplaceAll(msg, "\n  ", "; ")
		if m := yamlLine.FindStringSubmatch(msg); m != nil {
			return nil, fmt.Errorf("%s:%s: %s: %w", name, m[1], yamlLine.ReplaceAllString(msg, ""), ErrInvalid)
		}
		return nil, fmt.Errorf("%s: %s: %w", name, msg, ErrInvalid)
	}
	if err := t.check(name); err != nil {
		return nil, err
	}
	return &t, nil
}

func bad(name string, line int, format string, args ...any) error {
	return fmt.Errorf("%s:%d: %s: %w", name, line, fmt.Sprintf(format, args...), ErrInvalid)
}

// check reports the first thing in t no reader could apply.
func (t *Table) check(name string) error {
	for _, f := range t.Fields {
		if f.Name == "" {
			return bad(name, f.Line, "field without a name")
		}
		if f.Type != "" && !slices.Contains(Types, f.Type) {
			return bad(name, f.Line, "field %s: type %q is none of %s", f.Name, f.Type, strings.Join(Types, ", "))
		}
		for _, s := range f.Sources {
			if s.Key == "" {
				return bad(name, s.Line, "field %s: a source without a key", f.Name)
			}
			if !slices.Contains(Types, s.Type) {
				return bad(name, s.Line, "field %s, key %s: type %q is none of %s", f.Name, s.Key, s.Type, strings.Join(Types, ", "))
			}
			if !slices.Contains(Conditions, s.When) {
				return bad(name, s.Line, "field %s, key %s: when %q is none of %s", f.Name, s.Key, s.When, strings.Join(Conditions[1:], ", "))
			}
		}
	}
	for _, r := range t.Kinds {
		if r.Key == "" && r.NamePrefix == "" {
			return bad(name, r.Line, "kinds rule without a key or a name_prefix")
		}
		if !slices.Contains(Requirements, r.Requires) {
			return bad(name, r.Line, "kinds rule %s: requires %q is none of %s", r.Key, r.Requires, strings.Join(Requirements[1:], ", "))
		}
		for _, k := range []string{r.Other, r.Present} {
			if k != "" && !slices.Contains(Kinds, k) {
				return bad(name, r.Line, "kinds rule %s: kind %q is none of %s", r.Key, k, strings.Join(Kinds, ", "))
			}
		}
		for _, m := range []map[string]string{r.Values, r.Suffixes} {
			for v, k := range m {
				if !slices.Contains(Kinds, k) {
					return bad(name, r.Line, "kinds rule %s, value %s: kind %q is none of %s", r.Key, v, k, strings.Join(Kinds, ", "))
				}
			}
		}
	}
	for op, k := range t.Operations {
		if !slices.Contains(Kinds, k) || op == "" || strings.Contains(op, " ") {
			return bad(name, 0, "operations: %q: %q: want one word and one of %s", op, k, strings.Join(Kinds, ", "))
		}
	}
	for _, e := range t.Errors {
		if e.Key == "" || len(e.Values) == 0 {
			return bad(name, e.Line, "errors: an entry needs a key and values")
		}
	}
	return t.Content.check(name)
}

// Merge returns base with over laid on it: over's sources follow base's
// for the same field (a library's keys rank below the conventions'), its
// rules follow base's, its operations are added. A field over names must
// exist in base: records have a fixed set of fields.
func Merge(base, over *Table, name string) (*Table, error) {
	out := base.clone()
	for _, f := range over.Fields {
		i := slices.IndexFunc(out.Fields, func(g Field) bool { return g.Name == f.Name })
		if i < 0 {
			names := make([]string, len(out.Fields))
			for j, g := range out.Fields {
				names[j] = g.Name
			}
			return nil, bad(name, f.Line, "no field %q (fields: %s)", f.Name, strings.Join(names, ", "))
		}
		if f.Type != "" && f.Type != out.Fields[i].Type {
			return nil, bad(name, f.Line, "field %s is of type %s, not %s", f.Name, out.Fields[i].Type, f.Type)
		}
		for _, s := range f.Sources {
			if !slices.ContainsFunc(out.Fields[i].Sources, func(b Source) bool { return b.Key == s.Key }) {
				out.Fields[i].Sources = append(out.Fields[i].Sources, s)
			}
		}
	}
	out.Total = appendNew(out.Total, over.Total)
	out.Lookups = appendNew(out.Lookups, over.Lookups)
	out.Kinds = append(out.Kinds, over.Kinds...)
	for op, k := range over.Operations {
		out.Operations[op] = k
	}
	out.Errors = append(out.Errors, over.Errors...)
	oc := over.contentWithFields()
	out.Content.System = mergeContent(out.Content.System, oc.System)
	out.Content.Input = mergeContent(out.Content.Input, oc.Input)
	out.Content.Output = mergeContent(out.Content.Output, oc.Output)
	return out, nil
}

func appendNew(to, from []string) []string {
	for _, s := range from {
		if !slices.Contains(to, s) {
			to = append(to, s)
		}
	}
	return to
}

func (t *Table) clone() *Table {
	out := &Table{
		Fields:     make([]Field, len(t.Fields)),
		Total:      slices.Clone(t.Total),
		Kinds:      slices.Clone(t.Kinds),
		Operations: make(map[string]string, len(t.Operations)),
		Lookups:    slices.Clone(t.Lookups),
		Errors:     slices.Clone(t.Errors),
		Content: Content{System: slices.Clone(t.Content.System), Input: slices.Clone(t.Content.Input),
			Output: slices.Clone(t.Content.Output)},
	}
	for i, f := range t.Fields {
		f.Sources = slices.Clone(f.Sources)
		out.Fields[i] = f
	}
	for k, v := range t.Operations {
		out.Operations[k] = v
	}
	return out
}

// KV actions: what the live budget's reader (semconv.ReadKV) does with a
// key. The high byte is the role, the low byte a rank or slot.
const (
	ActNone  uint16 = 0
	ActOp    uint16 = 1      // gen_ai.operation.name
	ActModel uint16 = 2      // a model: evidence
	ActUsage uint16 = 3      // usage other than input and output: evidence
	ActMsg   uint16 = 4      // messages: evidence
	ActClass uint16 = 0x100  // + the key's slot among ClassKeys
	ActIn    uint16 = 0x200  // + rank among the input token sources
	ActOut   uint16 = 0x300  // + rank among the output token sources
	ActConv  uint16 = 0x400  // + rank among the conversation sources
	RoleMask uint16 = 0xff00 // the role of an action
)

// ClassKeys returns the keys the kinds rules read, each once, in the
// order their slots are numbered.
func (t *Table) ClassKeys() []string {
	var keys []string
	for _, r := range t.Kinds {
		if r.Key != "" && !slices.Contains(keys, r.Key) {
			keys = append(keys, r.Key)
		}
	}
	return keys
}

// FieldSources returns the unconditional source keys of field name, best
// first.
func (t *Table) FieldSources(name string) []string {
	var keys []string
	for _, f := range t.Fields {
		if f.Name != name {
			continue
		}
		for _, s := range f.Sources {
			if s.When == "" {
				keys = append(keys, s.Key)
			}
		}
	}
	return keys
}

// Evidence fields: what makes a span a model call when no rule decides.
var (
	ModelFields = []string{"model", "request_model"}
	UsageFields = []string{"usage.input_tokens", "usage.output_tokens", "usage.cache_read_input_tokens",
		"usage.cache_creation_input_tokens", "usage.reasoning_output_tokens"}
	MessageFields = []string{"input", "output", "system"}
)

// KVActions returns, for every key ReadKV looks at, its action, in a
// stable order. A key has one action: the first role of class, op,
// input, output, conversation, model, usage, messages.
func (t *Table) KVActions() []KV {
	var out []KV
	add := func(k string, a uint16) {
		if !slices.ContainsFunc(out, func(kv KV) bool { return kv.Key == k }) {
			out = append(out, KV{k, a})
		}
	}
	for i, k := range t.ClassKeys() {
		add(k, ActClass+uint16(i))
	}
	add("gen_ai.operation.name", ActOp)
	for _, rf := range []struct {
		role  uint16
		field string
	}{{ActIn, "usage.input_tokens"}, {ActOut, "usage.output_tokens"}, {ActConv, "conversation_id"}} {
		for i, k := range t.FieldSources(rf.field) {
			add(k, rf.role+uint16(i))
		}
	}
	for _, f := range ModelFields {
		for _, k := range t.FieldSources(f) {
			add(k, ActModel)
		}
	}
	for _, f := range UsageFields {
		for _, k := range t.FieldSources(f) {
			add(k, ActUsage)
		}
	}
	for _, k := range t.Total {
		add(k, ActUsage)
	}
	for _, f := range MessageFields {
		for _, k := range t.FieldSources(f) {
			add(k, ActMsg)
		}
	}
	return out
}

// KV is a key and what ReadKV does with it.
type KV struct {
	Key string
	Act uint16
}

// GoAct spells an action as Go source, for the generator.
func GoAct(a uint16) string {
	switch a & RoleMask {
	case ActClass:
		return "actClass + " + strconv.Itoa(int(a&0xff))
	case ActIn:
		return "actIn + " + strconv.Itoa(int(a&0xff))
	case ActOut:
		return "actOut + " + strconv.Itoa(int(a&0xff))
	case ActConv:
		return "actConv + " + strconv.Itoa(int(a&0xff))
	}
	return [...]string{"actNone", "actOp", "actModel", "actUsage", "actMsg"}[a]
}
