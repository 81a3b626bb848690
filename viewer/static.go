package viewer

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"strings"
	"unicode/utf8"

	"github.com/agenttrace/agenttrace/artifact"
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
	OK            *bool           `json:"ok"`
	Code          string          `json:"code"`
	Message       string          `json:"message"`
	Agent         string          `json:"agent"`
	Tool          string          `json:"tool"`
	Provider      string          `json:"provider"`
	Model         string          `json:"model"`
	FinishReasons []string        `json:"finish_reasons"`
	Args          json.RawMessage `json:"args"`
	Result        json.RawMessage `json:"result"`
	System        json.RawMessage `json:"system"`
	Input         json.RawMessage `json:"input"`
	Output        json.RawMessage `json:"output"`

	failed bool // artifact.Failed, as the report counts errors
	text   recordText
	// wrappedBy is the span id of a wrapper folded into this model call.
	wrappedBy string
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
	Name   string
	Report *report.TokenReport
	// Text and Costs are the quantities the page shows, as Go wrote them
	// for it (viewText); Tables their breakdowns' top rows, More how many
	// rows each leaves out.
	Text     *viewText
	Costs    *viewCosts
	Tables   []viewTable
	More     []int
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
	o := outlineRun{Name: run.Name, Report: rep, Text: v.head.Text, Costs: v.head.Costs, Problems: run.Problems}
	for _, t := range o.Text.Tables {
		rows, more := top(t.Rows)
		t.Rows = rows
		o.Tables = append(o.Tables, t)
		o.More = append(o.More, int(more))
	}
	var enc artifact.Encoder
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
		r.text = textOfRecord(&v.all[i], &rd, v.costs)
		if f := v.folds; f != nil {
			// A wrapper folded into its model call is no node: the call
			// takes its place (wrapFolds), as on the page.
			if f.folded(i) {
				continue
			}
			if p := f.viewParent[i]; p != nil {
				r.ParentSpanID = *p
			}
			r.wrappedBy = f.wrappedBy(i)
		}
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
	n := &outlineNode{Rec: r, Failed: r.failed, Dur: r.text.Dur}
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
	for _, u := range r.text.Usage {
		add(u[0]+" tokens", u[1])
	}
	add("cost", r.text.Cost)
	add("estimated tokens", r.text.Est)
	add("span id", r.SpanID)
	add("wrapper folded in", r.wrappedBy)
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

// staticTmpl is the outline a reader without JavaScript gets: summary,
// token tables and the record tree as native <details>, every value escaped
// by html/template.
var staticTmpl = template.Must(template.New("static").Funcs(template.FuncMap{
	"n": report.Thousands,
}).Parse(`
<div class="static">
<p class="muted">JavaScript is off, so this is a static outline of the run. With JavaScript on, the page shows a timeline with search, filters and message views.</p>
{{range .}}{{$r := .Report}}{{$t := .Text}}{{$o := .}}
<h1>{{.Name}}</h1>
{{if $r.Dropped}}<div class="dropped"><p><b>{{n $r.Dropped}} records were dropped</b>: the file holds {{$r.Records.Total}}. Tokens and budget below are the summary trailer's.</p>{{range $r.Notes}}<p>{{.}}</p>{{end}}</div>{{else}}{{range $r.Notes}}<p class="note">{{.}}</p>{{end}}{{end}}
{{range .Problems}}<p class="problem">line {{.Line}}: {{.Message}}</p>{{end}}
<dl class="facts summary">
<dt>Records</dt><dd data-q="records">{{$t.Records}}</dd><dd class="muted">{{$r.Records.Agent}} agent, {{$r.Records.Inference}} model calls, {{$r.Records.Call}} tool calls, {{$r.Records.Span}} other spans</dd>
<dt>Errors</dt><dd data-q="errors">{{$t.Errors}}</dd>
<dt>Duration</dt><dd data-q="duration">{{$t.Duration}}</dd>
<dt>Tokens in</dt><dd data-q="tokens-in">{{$t.TokensIn}}</dd><dd class="muted">cache read {{$t.CacheRead}} · write {{$t.CacheWrite}}</dd>
<dt>Tokens out</dt><dd data-q="tokens-out">{{$t.TokensOut}}</dd><dd class="muted">reasoning {{$t.Reasoning}}</dd>
<dt>Total</dt><dd data-q="total">{{$t.Total}}</dd><dd class="muted">{{$t.TotalNote}}</dd>
<dt>Cost</dt><dd data-q="cost">{{.Costs.Run}}</dd>{{with .Costs.Note}}<dd class="muted">{{.}}</dd>{{end}}
{{with $t.Budget}}<dt>Budget</dt><dd data-q="budget" data-state="{{.State}}">{{.Text}}</dd>{{end}}
</dl>
{{if .Skipped}}<p>{{.Skipped}} lines could not be shown.</p>{{end}}
{{range $i, $tb := .Tables}}<details{{if ne .ID "largest"}} open{{end}}><summary>{{.Title}}</summary><table class="grid" data-table="{{.ID}}"><tr>{{range .Head}}<th>{{.}}</th>{{end}}</tr>
{{range .Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</table>{{with index $o.More $i}}<p class="muted">… and {{.}} more rows (the page with JavaScript on lists them all).</p>{{end}}</details>{{end}}
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
