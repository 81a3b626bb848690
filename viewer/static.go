package viewer

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agenttrace/agenttrace/converter"
	"github.com/agenttrace/agenttrace/report"
	"github.com/agenttrace/agenttrace/semconv"
)

// staticLimit caps each value in the static outline; the embedded data
// (and the page with JavaScript on) keeps everything.
const staticLimit = 500

// staticRecord is one record line of the view model, as the outline needs
// it. The outline reads the same lines the script shows, so the two views
// never disagree about what a record holds.
type staticRecord struct {
	Kind          string          `json:"kind"`
	Name          string          `json:"name"`
	TraceID       string          `json:"trace_id"`
	SpanID        string          `json:"span_id"`
	ParentSpanID  string          `json:"parent_span_id"`
	StartedAt     string          `json:"started_at"`
	ElapsedMS     float64         `json:"elapsed_ms"`
	OK            *bool           `json:"ok"`
	Code          string          `json:"code"`
	Message       string          `json:"message"`
	Agent         string          `json:"agent"`
	Tool          string          `json:"tool"`
	Provider      string          `json:"provider"`
	Model         string          `json:"model"`
	FinishReasons []string        `json:"finish_reasons"`
	Usage         map[string]any  `json:"usage"`
	Args          json.RawMessage `json:"args"`
	Result        json.RawMessage `json:"result"`
	System        json.RawMessage `json:"system"`
	Input         json.RawMessage `json:"input"`
	Output        json.RawMessage `json:"output"`

	failed bool // converter.Failed, as the report counts errors
}

// outlineNode is a record placed in the tree, with what the template shows.
type outlineNode struct {
	Rec    *staticRecord
	Failed bool
	Dur    string
	Facts  [][2]string
	Blocks []outlineBlock
	Kids   []*outlineNode
}

type outlineBlock struct {
	Title string
	Text  string
	Full  int64 // the value's full length, when Text is cut
	Cut   int64 // where it was cut
}

type outlineRun struct {
	Name     string
	Report   *report.TokenReport
	Budget   *converter.BudgetStatus
	Models   []report.ModelUsage
	Tools    []report.ToolUsage
	Agents   []report.AgentUsage
	More     [3]int64 // rows of Models, Tools, Agents left out
	Roots    []*outlineNode
	Shown    int64 // records in Roots
	Left     int64 // records left out
	Skipped  int
	Problems []Problem
}

// The outline is a summary, not a second copy of the run (issue 24: it
// was 44% of a 100,000-record page): its tables show their top rows and
// its record tree the first records in waterfall order, each with a note
// saying how many more there are; the page with JavaScript on has all.
const (
	outlineRecords   = 100
	outlineTableRows = 20
)

func writeStatic(w *bufio.Writer, views []*runView) error {
	out := make([]outlineRun, len(views))
	for i, v := range views {
		out[i] = outline(v)
	}
	if err := staticTmpl.Execute(w, out); err != nil {
		return fmt.Errorf("viewer: static outline: %w", err)
	}
	return nil
}

// outline is what the static outline shows of v: its report, the top rows
// of its tables, and its first records in waterfall order, nested as the
// waterfall nests them (a record's parent comes before it).
func outline(v *runView) outlineRun {
	run, rep := v.run, v.report
	o := outlineRun{Name: run.Name, Report: rep, Budget: rep.Budget, Problems: run.Problems}
	o.Models, o.More[0] = top(rep.ByModel)
	o.Tools, o.More[1] = top(rep.ByTool)
	o.Agents, o.More[2] = top(rep.ByAgent)
	var enc converter.Encoder
	enc.SetDefaults(run.Meta)
	var rd semconv.Reading
	placed := make(map[[2]string]*outlineNode, outlineRecords)
	n := min(len(v.order.order), outlineRecords)
	for _, i := range v.order.order[:n] {
		r := new(staticRecord)
		line := enc.AppendRecordReading(nil, &v.all[i], &rd)
		if err := json.Unmarshal(line, r); err != nil {
			o.Skipped++ // cannot happen for lines converter wrote; counted all the same
			continue
		}
		r.failed = v.failed[i]
		nd := node(r)
		if p := placed[[2]string{r.TraceID, r.ParentSpanID}]; r.ParentSpanID != "" && p != nil {
			p.Kids = append(p.Kids, nd)
		} else {
			o.Roots = append(o.Roots, nd)
		}
		placed[[2]string{r.TraceID, r.SpanID}] = nd
		o.Shown++
	}
	o.Left = int64(len(v.order.order) - n)
	return o
}

// top is a table's first outlineTableRows rows and how many are left out.
func top[T any](rows []T) ([]T, int64) {
	n := min(len(rows), outlineTableRows)
	return rows[:n], int64(len(rows) - n)
}

// node is what the outline shows of r, without its children.
func node(r *staticRecord) *outlineNode {
	n := &outlineNode{Rec: r, Failed: r.failed, Dur: durText(r.ElapsedMS)}
	add := func(k, v string) {
		if v != "" {
			n.Facts = append(n.Facts, [2]string{k, v})
		}
	}
	add("started", r.StartedAt)
	add("agent", r.Agent)
	add("tool", r.Tool)
	add("provider", r.Provider)
	add("model", r.Model)
	add("finish reasons", strings.Join(r.FinishReasons, ", "))
	if len(r.Usage) > 0 {
		var parts []string
		for _, k := range []string{"input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens", "reasoning_output_tokens"} {
			if v, ok := r.Usage[k]; ok {
				parts = append(parts, fmt.Sprintf("%s %v", strings.TrimSuffix(k, "_tokens"), v))
			}
		}
		add("usage", strings.Join(parts, ", "))
	}
	add("span id", r.SpanID)
	if n.Failed {
		add("error", strings.TrimSpace(r.Code+" "+r.Message))
	}
	for _, b := range []struct {
		title string
		v     json.RawMessage
	}{{"arguments", r.Args}, {"result", r.Result}, {"system instructions", r.System}, {"input messages", r.Input}, {"output messages", r.Output}} {
		if len(b.v) > 0 {
			n.Blocks = append(n.Blocks, block(b.title, b.v))
		}
	}
	return n
}

// block shows a JSON value: a string as its text, anything else indented.
// The line was validated when it was decoded, so a value too long to show
// whole is cut as it is, not indented first (indenting megabytes to show
// 500 characters was most of the outline's cost).
func block(title string, v json.RawMessage) outlineBlock {
	var text string
	switch {
	case v[0] == '"':
		var s string
		if json.Unmarshal(v, &s) != nil {
			s = string(v)
		}
		text = s
	case len(v) <= 4*staticLimit:
		var buf bytes.Buffer
		if json.Indent(&buf, v, "", "  ") == nil {
			text = buf.String()
		} else {
			text = string(v)
		}
	default:
		text = string(v[:staticLimit+utf8.UTFMax])
	}
	full := int64(len(text))
	if len(text) > staticLimit || len(v) > 4*staticLimit {
		full = max(full, int64(len(v)))
	}
	b := outlineBlock{Title: title, Text: text}
	if len(text) > staticLimit {
		cut := staticLimit
		for cut > 0 && !utf8Start(text[cut]) {
			cut--
		}
		b.Text, b.Full, b.Cut = text[:cut], full, int64(cut)
	}
	return b
}

func utf8Start(c byte) bool { return c&0xC0 != 0x80 }

func durText(ms float64) string {
	return time.Duration(ms * float64(time.Millisecond)).Round(time.Microsecond).String()
}

// staticTmpl is the outline a reader without JavaScript gets: summary,
// token tables and the record tree as native <details>, every value escaped
// by html/template.
var staticTmpl = template.Must(template.New("static").Funcs(template.FuncMap{
	"n": report.Thousands,
	"pct": func(b *converter.BudgetStatus) string {
		return fmt.Sprintf("%.1f%%", 100*float64(b.Spent)/float64(max(b.BudgetTokens, 1)))
	},
}).Parse(`
<div class="static">
<p class="muted">JavaScript is off, so this is a static outline of the run. With JavaScript on, the page shows a timeline with search, filters and message views.</p>
{{range .}}{{$r := .Report}}{{$o := .}}
<h1>{{.Name}}</h1>
{{if $r.Dropped}}<div class="dropped"><p><b>{{n $r.Dropped}} records were dropped</b>: the file holds {{$r.Records.Total}}. Tokens and budget below are the summary trailer's.</p>{{range $r.Notes}}<p>{{.}}</p>{{end}}</div>{{else}}{{range $r.Notes}}<p class="note">{{.}}</p>{{end}}{{end}}
{{range .Problems}}<p class="problem">line {{.Line}}: {{.Message}}</p>{{end}}
<p>{{$r.Records.Total}} records ({{$r.Records.Agent}} agent, {{$r.Records.Inference}} model calls, {{$r.Records.Call}} tool calls, {{$r.Records.Span}} other spans), {{$r.Errors}} errors.
Tokens: {{n $r.Tokens.Input}} in, {{n $r.Tokens.Output}} out, {{n $r.Tokens.CacheRead}} cache read, {{n $r.Tokens.CacheCreation}} cache write, {{n $r.Tokens.Reasoning}} reasoning; {{n $r.Tokens.Total}} in all.</p>
{{with .Budget}}<p>Budget: <meter min="0" max="{{.BudgetTokens}}" high="{{.BudgetTokens}}" value="{{.Spent}}">{{n .Spent}}</meter> {{n .Spent}} of {{n .BudgetTokens}} tokens ({{pct .}}){{if .OverBudget}}, over budget{{else if .NearBudget}}, near the budget{{end}}.</p>{{end}}
{{if .Skipped}}<p>{{.Skipped}} lines could not be shown.</p>{{end}}
{{with .Models}}<details open><summary>By model</summary><table class="grid"><tr><th>model</th><th>provider</th><th>calls</th><th>input</th><th>output</th><th>cache read</th><th>reasoning</th><th>total</th></tr>
{{range .}}<tr><td>{{.Model}}</td><td>{{.Provider}}</td><td>{{.Count}}</td><td>{{n .Input}}</td><td>{{n .Output}}</td><td>{{n .CacheRead}}</td><td>{{n .Reasoning}}</td><td>{{n .Total}}</td></tr>
{{end}}</table>{{with index $o.More 0}}<p class="muted">… and {{n .}} more models (the page with JavaScript on lists them all).</p>{{end}}</details>{{end}}
{{with .Tools}}<details open><summary>By tool</summary><table class="grid"><tr><th>tool</th><th>calls</th><th>errors</th><th>result tokens (est.)</th></tr>
{{range .}}<tr><td>{{.Tool}}</td><td>{{.Calls}}</td><td>{{.Errors}}</td><td>{{n .EstimatedTokens}}</td></tr>
{{end}}</table>{{with index $o.More 1}}<p class="muted">… and {{n .}} more tools (the page with JavaScript on lists them all).</p>{{end}}</details>{{end}}
{{with .Agents}}<details open><summary>By agent</summary><table class="grid"><tr><th>agent</th><th>runs</th><th>model calls</th><th>total</th></tr>
{{range .}}<tr><td>{{.Agent}}</td><td>{{.Runs}}</td><td>{{.Inferences}}</td><td>{{n .Total}}</td></tr>
{{end}}</table>{{with index $o.More 2}}<p class="muted">… and {{n .}} more agents (the page with JavaScript on lists them all).</p>{{end}}</details>{{end}}
{{with $r.Largest}}<details><summary>Largest responses</summary><table class="grid"><tr><th>record</th><th>kind</th><th>bytes</th><th>tokens</th></tr>
{{range .}}<tr><td>{{.Name}}</td><td>{{.Kind}}</td><td>{{n .Bytes}}</td><td>{{n .Tokens}}</td></tr>
{{end}}</table></details>{{end}}
<h2>Records</h2>
{{if .Left}}<p class="note">The first {{n .Shown}} records of {{n $r.Records.Total}}, in the order of the timeline; {{n .Left}} more are in the page with JavaScript on.</p>{{end}}
{{range .Roots}}{{template "node" .}}{{end}}
{{end}}
</div>
{{define "node"}}<details class="rec{{if .Failed}} err{{end}}" data-span-id="{{.Rec.SpanID}}"><summary>[{{.Rec.Kind}}] <span class="name">{{.Rec.Name}}</span> <span class="muted">{{.Dur}}</span>{{if .Failed}} <b>error{{with .Rec.Code}}: {{.}}{{end}}</b>{{end}}</summary>
<dl class="facts">{{range .Facts}}<dt>{{index . 0}}</dt><dd>{{index . 1}}</dd>{{end}}</dl>
{{range .Blocks}}<h3>{{.Title}}</h3><pre class="val">{{.Text}}</pre>{{if .Full}}<p class="muted">… cut at {{n .Cut}} of {{n .Full}} characters (the page with JavaScript on shows it all)</p>{{end}}{{end}}
{{range .Kids}}{{template "node" .}}{{end}}</details>
{{end}}`))
