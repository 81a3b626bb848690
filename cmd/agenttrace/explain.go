package main

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/converter"
	"github.com/agenttrace/agenttrace/semconv"
)

func newExplainCmd(e *env) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "explain FILE...",
		Short: "Say what was understood in a trace, and what was not",
		Long: `Explain says, per span and in total, what agenttrace understood of a
trace and what it did not: each span's kind (inference, call, agent,
span) and the rule that decided it (gen_ai.operation.name, a dialect's
kind key and value, the span name's "{operation} {target}" form, or
evidence: a model key beside usage or message keys, or a provider's own
request/response body); the attributes that look like usage, a model,
content or a tool name (their key holds token, usage, model, prompt,
completion, input, output, message or tool) that no rule of the dialect
table reads; model calls without usage or without messages; tools
without a name; spans whose usage disagrees with their children's.

A trace from a library nobody tuned agenttrace for shows at once what is
missing, instead of a silently wrong total: add the keys it names to a
dialect file (docs/dialects.md) and pass it with --dialect.

Text lists only the spans with something to say (a GenAI kind, a problem
or an unread key); --json lists every span. Values are redacted as
convert redacts them.

Exit status: 0 when everything was understood, 1 when some span has a
problem or a plain span carries an unread key (or an input is invalid),
2 on a usage error.`,
		Example: `  agenttrace explain traces.json
  agenttrace explain --dialect mylib.yaml traces.json --json`,
		Args: argsAtLeast(1, "input (a file, or - for standard input)"),
		RunE: func(_ *cobra.Command, args []string) error {
			if err := checkStdin(args); err != nil {
				return err
			}
			return e.explain(args, asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object instead of lines")
	e.redactFlags(cmd)
	return cmd
}

// explanation is `agenttrace explain --json`.
type explanation struct {
	Spans []spanExplained `json:"spans"`
	Total explainTotal    `json:"total"`
}

// spanExplained is what explain says of one span.
type spanExplained struct {
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
	Disagreement *levelExplained `json:"usage_disagreement,omitempty"`
}

// levelExplained is a span whose usage disagrees with its children's.
type levelExplained struct {
	Reported semconv.Usage `json:"reported"`
	Children semconv.Usage `json:"children"`
	Counted  semconv.Usage `json:"counted"`
}

// explainTotal sums the spans.
type explainTotal struct {
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

func (e *env) explain(paths []string, asJSON bool) error {
	all, err := e.loadInputs(paths)
	if err != nil {
		return err
	}
	ex := explanation{Spans: []spanExplained{}, Total: explainTotal{ByKind: map[string]int{}, ByRule: map[string]int{}, Unread: map[string]int{}}}
	for _, src := range all.sources {
		levels := map[int]converter.Level{}
		for _, l := range converter.UsageLevels(src.records) {
			levels[l.Index] = l
		}
		var rd semconv.Reading
		for i := range src.records {
			var lv *converter.Level
			if l, ok := levels[i]; ok {
				lv = &l
			}
			ex.add(explainSpan(src.name, &src.records[i], &rd, lv))
		}
	}
	ex.Total.Understood = ex.Total.WithoutUsage+ex.Total.WithoutMessages+ex.Total.ToolsUnnamed+ex.Total.Disagreements+ex.Total.PlainWithUnread == 0
	if asJSON {
		err = e.printJSON(ex)
	} else {
		err = ex.writeText(e.stdout)
		if err != nil {
			err = writeError("standard output", err)
		}
	}
	if err != nil {
		return err
	}
	if err := e.noteSkipped(all); err != nil {
		return err
	}
	if !ex.Total.Understood {
		return errFindings
	}
	return nil
}

// explainSpan reads one record and says what was understood of it.
func explainSpan(file string, rec *converter.Record, rd *semconv.Reading, lv *converter.Level) spanExplained {
	rec.Read(rd)
	sp := rec.Span
	s := spanExplained{File: file, TraceID: sp.TraceID().String(), SpanID: sp.SpanID().String(), Name: sp.Name(),
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
		s.Disagreement = &levelExplained{Reported: lv.Reported, Children: lv.Children, Counted: lv.Counted}
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

// readElsewhere are keys, and prefixes of flattened keys, that the
// conversation reader (semconv.Messages) or a dialect's JSON usage reads
// rather than the dialect table: they are understood, not unread.
var readElsewhere = []string{
	semconv.OIInputMessages + ".", semconv.OIOutputMessages + ".", semconv.TLPromptPrefix, semconv.TLCompletionPrefix,
	semconv.OIInputValue, semconv.OIOutputValue, semconv.TLEntityInput, semconv.TLEntityOutput,
	semconv.LFObservationInput, semconv.LFObservationOutput, semconv.LFTraceInput, semconv.LFTraceOutput,
	semconv.GenkitInput, semconv.GenkitOutput, "ai.prompt", "ai.response.text", "ai.response.toolCalls",
	"gcp.vertex.agent.llm_request", "gcp.vertex.agent.llm_response", "llm.tools.",
}

// unreadKeys returns span's keys that look like usage, a model, content
// or a tool and that no rule reads, sorted.
func unreadKeys(sp ptrace.Span) []string {
	var out []string
	for k := range sp.Attributes().All() {
		if semconv.IsKnownKey(k) || !looksGenAI(k) {
			continue
		}
		if slices.ContainsFunc(readElsewhere, func(p string) bool { return k == p || strings.HasPrefix(k, p) }) {
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

func (ex *explanation) add(s spanExplained) {
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

// writeText prints the spans with something to say, then the totals.
func (ex *explanation) writeText(w io.Writer) error {
	p := &errWriter{w: w}
	for _, s := range ex.Spans {
		if s.Kind == semconv.Span.String() && len(s.Problems) == 0 && len(s.Unread) == 0 {
			continue
		}
		p.printf("%s: %s %s %q: %s\n", s.File, s.Kind, s.SpanID, s.Name, s.Rule)
		if s.Model != "" || s.Tool != "" {
			p.printf("    model %s tool %s\n", cmp.Or(s.Model, "-"), cmp.Or(s.Tool, "-"))
		}
		for _, pr := range s.Problems {
			p.printf("    problem: %s\n", pr)
		}
		if len(s.Unread) > 0 {
			p.printf("    unread keys: %s\n", strings.Join(s.Unread, ", "))
		}
	}
	t := ex.Total
	p.printf("\n%d spans: %s\n", t.Spans, countsText(t.ByKind))
	p.printf("decided by: %s\n", countsText(t.ByRule))
	p.printf("model calls: %d, without usage %d, without messages %d\n", t.ModelCalls, t.WithoutUsage, t.WithoutMessages)
	p.printf("tools: %d, without a name %d\n", t.Tools, t.ToolsUnnamed)
	p.printf("usage levels that disagree with their children: %d\n", t.Disagreements)
	if len(t.Unread) > 0 {
		p.printf("unread keys that look like usage, a model, content or a tool: %s\n", countsText(t.Unread))
		p.printf("plain spans with unread keys (model calls or tools no rule recognised?): %d\n", t.PlainWithUnread)
		p.printf("(add them to a dialect file and pass --dialect: docs/dialects.md)\n")
	}
	if t.Understood {
		p.printf("everything was understood\n")
	}
	return p.err
}

// countsText is "a 3, b 1", by count then name.
func countsText(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int { return cmp.Or(cmp.Compare(m[b], m[a]), strings.Compare(a, b)) })
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}

// errWriter keeps the first write error, so a report is a list of
// printf calls and one check.
type errWriter struct {
	w   io.Writer
	err error
}

func (p *errWriter) printf(format string, a ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format, a...)
	}
}
