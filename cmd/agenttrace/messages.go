package main

import (
	"bufio"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/converter"
	"github.com/agenttrace/agenttrace/semconv"
)

func newMessagesCmd(e *env) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "messages FILE...",
		Short: "Print the conversation of each model call",
		Long: `Messages prints what each model call was sent and what it answered, read
from wherever the instrumentation put it (GenAI message attributes or
events, OpenLLMetry, OpenInference, the Vercel AI SDK, Langfuse, Genkit)
and normalized to the GenAI conventions' message shape.

Without --json it prints a transcript per trace: system instructions, user
and assistant turns, tool calls with their results, and the model and
tokens of each turn. With --json it prints one JSON array, one object per
model call in file order: {"trace_id","span_id","model","system","input",
"output"}, messages as {"role","parts":[{"type":"text","content":…}]};
a call that carries no input of its own shows its nearest ancestor's,
named by "inherited_from" (the ancestor's span id).

Inputs are artifacts or OTLP files, told apart by their content. Spans that
wrap other model calls are not model calls and are left out.`,
		Example: `  agenttrace messages run.jsonl
  agenttrace messages traces.pb --json`,
		Args: argsAtLeast(1, "input (a file, or - for standard input)"),
		RunE: func(_ *cobra.Command, args []string) error {
			if err := checkStdin(args); err != nil {
				return err
			}
			return e.messages(args, asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON array, one object per model call")
	e.redactFlags(cmd) // it prints content: the same secret scan as convert
	return cmd
}

// turn is one model call in messages --json.
type turn struct {
	TraceID string `json:"trace_id"`
	SpanID  string `json:"span_id"`
	// Model is the call's model, or, when it names none, its call
	// chain's (converter.InheritModels), as tokens counts it.
	Model  string            `json:"model"`
	System []semconv.Part    `json:"system"`
	Input  []semconv.Message `json:"input"`
	Output []semconv.Message `json:"output"`
	// InheritedFrom names the ancestor span whose input a call with none
	// of its own shows (converter.ModelCall.InheritedFrom).
	InheritedFrom string `json:"inherited_from,omitempty"`
}

func (e *env) messages(paths []string, asJSON bool) error {
	all, err := e.loadInputs(paths)
	if err != nil {
		return err
	}
	recs := all.records
	calls := converter.ModelCallsWithLogs(recs, all.logs)
	if asJSON {
		turns := make([]turn, 0, len(calls))
		var rd semconv.Reading
		models := converter.InheritModels(recs) // a call's chain's model, as tokens counts it
		for _, mc := range calls {
			recs[mc.Index].Read(&rd)
			sp := recs[mc.Index].Span
			c := mc.Conversation
			turns = append(turns, turn{
				TraceID: sp.TraceID().String(), SpanID: sp.SpanID().String(), Model: cmp.Or(rd.Model(), models[mc.Index].Model),
				System: c.System, Input: c.Input, Output: c.Output,
			})
			if !mc.InheritedFrom.IsEmpty() {
				turns[len(turns)-1].InheritedFrom = mc.InheritedFrom.String()
			}
		}
		if err := e.printJSON(turns); err != nil {
			return err
		}
	} else if err := writeTranscript(e.stdout, recs, calls); err != nil {
		return err
	}
	return e.noteSkipped(all)
}

// writeTranscript prints each trace as a conversation. A model call
// usually resends the whole history; only what is new since the previous
// call of the trace is printed.
func writeTranscript(out io.Writer, recs []artifact.Record, calls []converter.ModelCall) error {
	w := bufio.NewWriter(out)
	conv := make(map[int]semconv.Conversation, len(calls))
	for _, mc := range calls {
		conv[mc.Index] = mc.Conversation
	}
	type state struct {
		seen   int // input messages printed, plus the outputs that became input
		system string
	}
	states := map[string]*state{}
	var order []string
	byTrace := map[string][]int{}
	for i := range recs {
		id := recs[i].Span.TraceID().String()
		if _, ok := byTrace[id]; !ok {
			order = append(order, id)
		}
		byTrace[id] = append(byTrace[id], i)
	}
	// The one error truth over the batch, as tokens counts errors.
	failures := converter.Failures(recs)
	models := converter.InheritModels(recs) // a call's chain's model, as tokens counts it
	var rd semconv.Reading
	for n, id := range order {
		if n > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "trace %s\n", id)
		st := &state{}
		states[id] = st
		for _, i := range byTrace[id] {
			rec := &recs[i]
			rec.Read(&rd)
			sp := rec.Span
			failed := failures[i]
			switch {
			case rd.Kind == semconv.Call:
				fmt.Fprintf(w, "  tool %s", orUnknown(rd.ToolName(sp.Name())))
				if args, ok := callContent(&rd, sp, semconv.FieldArgs, semconv.LFObservationInput, semconv.GenkitInput); ok {
					fmt.Fprintf(w, " %s", oneLine(args, 200))
				}
				if res, ok := callContent(&rd, sp, semconv.FieldResult, semconv.LFObservationOutput, semconv.GenkitOutput); ok {
					fmt.Fprintf(w, " -> %s", oneLine(res, 200))
				}
				if failed {
					fmt.Fprintf(w, " [failed: %s]", oneLine(failure(sp), 120))
				}
				fmt.Fprintln(w)
			case conv[i].System != nil:
				c := conv[i]
				if sys := partsText(c.System); sys != "" && sys != st.system {
					fmt.Fprintf(w, "  system: %s\n", indent(sys))
					st.system = sys
				}
				from := st.seen
				if from > len(c.Input) {
					from = 0 // a new conversation in the same trace
				}
				for _, m := range c.Input[from:] {
					writeMessage(w, m)
				}
				u := rd.TokenUsage()
				fmt.Fprintf(w, "  -- %s: %d in", orUnknown(cmp.Or(rd.Model(), models[i].Model)), u.Input)
				if u.CacheRead > 0 || u.CacheCreation > 0 {
					fmt.Fprintf(w, " (%d cache read, %d cache write)", u.CacheRead, u.CacheCreation)
				}
				fmt.Fprintf(w, ", %d out", u.Output)
				if u.Reasoning > 0 {
					fmt.Fprintf(w, " (%d reasoning)", u.Reasoning)
				}
				if failed {
					fmt.Fprintf(w, " [failed: %s]", oneLine(failure(sp), 200))
				}
				fmt.Fprintln(w)
				for _, m := range c.Output {
					writeMessage(w, m)
				}
				st.seen = len(c.Input) + len(c.Output)
			}
		}
	}
	return w.Flush()
}

// callContent is a call's arguments or result: the record field, or, for
// dialects that keep them in their own input and output attributes
// (Langfuse, Genkit), those.
func callContent(rd *semconv.Reading, sp ptrace.Span, f semconv.Field, keys ...string) (string, bool) {
	if rd.Has(f) {
		return rd.Value(f).AsString(), true
	}
	for _, k := range keys {
		if v, ok := sp.Attributes().Get(k); ok {
			return v.AsString(), true
		}
	}
	return "", false
}

// failure says why a span failed: its status message, Langfuse's status
// message, or "error".
func failure(sp ptrace.Span) string {
	if msg := sp.Status().Message(); msg != "" {
		return msg
	}
	if v, ok := sp.Attributes().Get(semconv.LFStatusMessage); ok && v.Str() != "" {
		return v.Str()
	}
	return "error"
}

func writeMessage(w io.Writer, m semconv.Message) {
	for _, p := range m.Parts {
		switch p.Type {
		case semconv.PartText:
			fmt.Fprintf(w, "  %s: %s\n", m.Role, indent(p.Content))
		case semconv.PartReasoning:
			fmt.Fprintf(w, "  %s (reasoning): %s\n", m.Role, indent(p.Content))
		case semconv.PartToolCall:
			fmt.Fprintf(w, "  %s -> tool call %s %s", m.Role, p.Name, oneLine(jsonString(p.Arguments), 200))
			if p.ID != "" {
				fmt.Fprintf(w, " [%s]", p.ID)
			}
			fmt.Fprintln(w)
		case semconv.PartToolResponse:
			fmt.Fprintf(w, "  tool result")
			if p.ID != "" {
				fmt.Fprintf(w, " [%s]", p.ID)
			}
			fmt.Fprintf(w, ": %s\n", oneLine(jsonString(p.Response), 200))
		case semconv.PartBlob, semconv.PartURI:
			fmt.Fprintf(w, "  %s: [%s %s %s]\n", m.Role, p.Modality, p.MimeType, oneLine(p.URI, 80))
		default:
			fmt.Fprintf(w, "  %s: [%s] %s\n", m.Role, p.Type, oneLine(p.Content, 200))
		}
	}
}

func partsText(ps []semconv.Part) string {
	var b strings.Builder
	for _, p := range ps {
		if p.Type == semconv.PartText {
			if b.Len() > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(p.Content)
		}
	}
	return b.String()
}

func jsonString(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// indent continues a multi-line text under its label.
func indent(s string) string {
	return strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n    ")
}

// oneLine shortens s to n runes on one line.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

func orUnknown(s string) string {
	if s == "" {
		return "(unknown)"
	}
	return s
}
