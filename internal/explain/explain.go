// Package explain says, per span and in total, what agenttrace understood
// of a trace and what it did not: what "agenttrace explain" prints and
// the MCP server's explain_run answers, computed once here.
package explain

import (
	"cmp"
	"slices"
	"strings"

	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/converter"
	"github.com/agenttrace/agenttrace/semconv"
)

// Explanation is what was understood of a trace: the JSON form of
// `agenttrace explain --json`.
type Explanation struct {
	Spans []Span `json:"spans"`
	Total Total  `json:"total"`
}

// Span is what explain says of one span.
type Span struct {
	File    string `json:"file"`
	TraceID string `json:"trace_id"`
	SpanID  string `json:"span_id"`
	Name    string `json:"name"`
	Kind    string `json:"kind"`
	// Dialect is the convention whose rule decided the kind: gen_ai,
	// openinference, ..., span_name, evidence, or a dialect file's name.
	Dialect string `json:"dialect,omitempty"`
	Rule    string `json:"rule"`
	Model   string `json:"model,omitempty"`
	Tool    string `json:"tool,omitempty"`
	// NamedBy is the span whose model or tool name Model or Tool is, when
	// the span names none itself: its call chain's model
	// (converter.InheritModels), the name in its call's messages
	// (converter.InheritToolNames).
	NamedBy string `json:"named_by,omitempty"`
	// Usage is the span's usage as read, nil when it reports none.
	Usage *semconv.Usage `json:"usage,omitempty"`
	// Sources names the key each promoted field came from.
	Sources map[string]string `json:"sources,omitempty"`
	// Unread are the span's keys that look like usage, a model, content
	// or a tool and that no rule reads.
	Unread []string `json:"unread_keys,omitempty"`
	// Problems: "model call without usage", "model call without
	// messages", "tool without a name", "usage disagrees with children".
	Problems []string `json:"problems,omitempty"`
	// Disagreement is the usage level's numbers, when Problems says so.
	Disagreement *Level `json:"usage_disagreement,omitempty"`
}

// Level is a span whose usage disagrees with its children's.
type Level struct {
	Reported semconv.Usage `json:"reported"`
	Children semconv.Usage `json:"children"`
	Counted  semconv.Usage `json:"counted"`
}

// Total sums the spans.
type Total struct {
	Spans           int            `json:"spans"`
	ByKind          map[string]int `json:"by_kind"`
	ByRule          map[string]int `json:"by_dialect"`
	ModelCalls      int            `json:"model_calls"`
	WithoutUsage    int            `json:"model_calls_without_usage"`
	WithoutMessages int            `json:"model_calls_without_messages"`
	Tools           int            `json:"tools"`
	ToolsUnnamed    int            `json:"tools_without_name"`
	Disagreements   int            `json:"usage_disagreements"`
	// Unread counts, per key, the spans that carry it unread.
	Unread map[string]int `json:"unread_keys"`
	// PlainWithUnread counts the plain spans (kind span) that carry
	// unread keys: each may be a model call or a tool no rule
	// recognised. An unread key beside a recognised call (a request
	// parameter, a MIME type) is listed but is no such sign.
	PlainWithUnread int `json:"plain_spans_with_unread_keys"`
	// Understood is true when no span has a problem and no plain span
	// carries an unread key.
	Understood bool `json:"understood"`
}

// New returns an empty explanation, to which [Explanation.AddRecords]
// adds each input's spans.
func New() *Explanation {
	return &Explanation{Spans: []Span{}, Total: Total{ByKind: map[string]int{}, ByRule: map[string]int{}, Unread: map[string]int{}}}
}

// AddRecords explains the records of one input, named file, and adds them
// to the totals, Understood included.
func (ex *Explanation) AddRecords(file string, recs []artifact.Record) {
	levels := map[int]artifact.Level{}
	for _, l := range artifact.UsageLevels(recs) {
		levels[l.Index] = l
	}
	models, tools := converter.InheritModels(recs), converter.InheritToolNames(recs)
	var rd semconv.Reading
	for i := range recs {
		var lv *artifact.Level
		if l, ok := levels[i]; ok {
			lv = &l
		}
		s := explainSpan(file, &recs[i], &rd, lv)
		if m, ok := models[i]; ok && s.Model == "" {
			s.Model, s.NamedBy = m.Model, m.From.String()
		}
		if n, ok := tools[i]; ok && s.Tool == "" {
			s.Tool, s.NamedBy = n.Name, n.From.String()
			s.Problems = slices.DeleteFunc(s.Problems, func(p string) bool { return p == "tool without a name" })
		}
		ex.add(s)
	}
	t := &ex.Total
	t.Understood = t.WithoutUsage+t.WithoutMessages+t.ToolsUnnamed+t.Disagreements+t.PlainWithUnread == 0
}

// explainSpan reads one record and says what was understood of it.
func explainSpan(file string, rec *artifact.Record, rd *semconv.Reading, lv *artifact.Level) Span {
	rec.Read(rd)
	sp := rec.Span
	s := Span{File: file, TraceID: sp.TraceID().String(), SpanID: sp.SpanID().String(), Name: sp.Name(),
		Kind: rd.Kind.String(), Dialect: rd.Dialect.String(), Rule: rd.Why(), Model: rd.Model()}
	if u := rd.TokenUsage(); !u.IsZero() {
		s.Usage = &u
	}
	for f := range semconv.NumFields {
		if rd.Has(f) {
			if s.Sources == nil {
				s.Sources = map[string]string{}
			}
			s.Sources[f.Name()] = rd.Source(f)
		}
	}
	s.Unread = unreadKeys(sp)
	switch rd.Kind {
	case semconv.Inference:
		if s.Usage == nil {
			s.Problems = append(s.Problems, "model call without usage")
		}
		// A table's content key (a dialect file's too) or any place the
		// conversation reader looks.
		if !rd.Has(semconv.FieldInput) && !rd.Has(semconv.FieldOutput) && !rd.Has(semconv.FieldSystem) && !hasMessages(sp) {
			s.Problems = append(s.Problems, "model call without messages")
		}
	case semconv.Call:
		if s.Tool = rd.ToolName(sp.Name()); s.Tool == "" {
			s.Problems = append(s.Problems, "tool without a name")
		}
	}
	if lv != nil {
		s.Problems = append(s.Problems, "usage disagrees with children")
		s.Disagreement = &Level{Reported: lv.Reported, Children: lv.Children, Counted: lv.Counted}
	}
	return s
}

func hasMessages(sp ptrace.Span) bool {
	c := semconv.Messages(sp)
	return len(c.Input)+len(c.Output)+len(c.System) > 0
}

// usageLike are the words in a key that make it look like usage, a
// model, content or a tool.
var usageLike = []string{"token", "usage", "model", "prompt", "completion", "input", "output", "message", "tool"}

// notConversation are keys, and prefixes of flattened keys, that look
// like content but are no model call's conversation, so that no rule
// has them to read: Langfuse's copy of the trace's own input and output
// on every span, and the tool definitions and tool choice a call was
// offered (OpenInference's llm.tools.*, the AI SDK's ai.prompt.tools and
// ai.prompt.toolChoice). Where a conversation is kept is the dialect
// table's content section (semconv.ContentKey), a user's file included.
var notConversation = []string{semconv.LFTraceInput, semconv.LFTraceOutput, "llm.tools.", "ai.prompt.tools", "ai.prompt.toolChoice"}

// unreadKeys returns span's keys that look like usage, a model, content
// or a tool and that no rule reads, sorted.
func unreadKeys(sp ptrace.Span) []string {
	var out []string
	for k := range sp.Attributes().All() {
		if semconv.IsKnownKey(k) || semconv.ContentKey(k) || !looksGenAI(k) {
			continue
		}
		if slices.ContainsFunc(notConversation, func(p string) bool { return k == p || strings.HasPrefix(k, p) }) {
			continue
		}
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func looksGenAI(k string) bool {
	k = strings.ToLower(k)
	return slices.ContainsFunc(usageLike, func(w string) bool { return strings.Contains(k, w) })
}

func (ex *Explanation) add(s Span) {
	t := &ex.Total
	t.Spans++
	t.ByKind[s.Kind]++
	t.ByRule[cmp.Or(s.Dialect, "none")]++
	switch s.Kind {
	case semconv.Inference.String():
		t.ModelCalls++
	case semconv.Call.String():
		t.Tools++
	}
	for _, p := range s.Problems {
		switch p {
		case "model call without usage":
			t.WithoutUsage++
		case "model call without messages":
			t.WithoutMessages++
		case "tool without a name":
			t.ToolsUnnamed++
		case "usage disagrees with children":
			t.Disagreements++
		}
	}
	for _, k := range s.Unread {
		t.Unread[k]++
	}
	if len(s.Unread) > 0 && s.Kind == semconv.Span.String() {
		t.PlainWithUnread++
	}
	ex.Spans = append(ex.Spans, s)
}

// Noteworthy reports whether the span has something to say: a GenAI kind
// (not a plain span), a problem or an unread key. "agenttrace explain"
// prints only those as text.
func (s *Span) Noteworthy() bool {
	return s.Kind != semconv.Span.String() || len(s.Problems) > 0 || len(s.Unread) > 0
}
