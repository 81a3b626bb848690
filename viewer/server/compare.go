package server

import (
	"bytes"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"slices"
	"strconv"

	"github.com/agenttrace/agenttrace/judge"
	"github.com/agenttrace/agenttrace/report"
	"github.com/agenttrace/agenttrace/viewer"
)

// comparePage shows two runs side by side: their totals and cost, tools
// and models from report.Tokens, and where their tool calls diverge, from
// judge.Diff (what `agenttrace diff` prints), each call linked to its
// span on its run's page. It has no script; the list page's style.
var comparePage = template.Must(template.New("compare").Funcs(template.FuncMap{
	"num":    report.Thousands,
	"escape": escapeRel,
	"ms":     func(v int64) string { return viewer.DurationMS(float64(v)) },
	"inc":    func(i int) int { return i + 1 },
	"cost":   viewer.CostText,
}).Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="` + template.HTMLEscapeString(cspMeta()) + `">
<meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>agenttrace · {{.A.Name}} vs {{.B.Name}}</title>
<style>` + listStyle + `</style>
</head>
<body>
<p class="sub"><a href="/">← all runs</a></p>
<h1>{{.A.Name}} <span class="mute">vs</span> {{.B.Name}}</h1>
<p class="sub" id="verdict">{{if .Diff.Diverged}}<span class="bad">The tool calls diverge</span>{{if ge .Diff.FirstDivergence 0}}, first at A's call {{inc .Diff.FirstDivergence}}{{end}}.{{else if ne .A.Report.Errors .B.Report.Errors}}<span class="bad">Same tool calls, other errors</span>: A has {{.A.Report.Errors}}, B {{.B.Report.Errors}} (model calls or agents failed where the tool calls did not){{if .Diff.Counts.ArgsChanged}}, {{.Diff.Counts.ArgsChanged}} calls with other arguments{{end}}.{{else}}<span class="ok">Same tool calls, same outcomes</span>{{if .Diff.Counts.ArgsChanged}} ({{.Diff.Counts.ArgsChanged}} with other arguments){{end}}.{{end}}
{{.Diff.Counts.Matched}} matched, {{.Diff.Counts.Diverged}} diverged, {{.Diff.Counts.Inserted}} only in B, {{.Diff.Counts.Removed}} only in A, {{.Diff.Counts.Reordered}} reordered.</p>
<table id="side">
<thead><tr><th></th><th><a href="/run/{{escape .A.Name}}">A · {{.A.Name}}</a></th><th><a href="/run/{{escape .B.Name}}">B · {{.B.Name}}</a></th></tr></thead>
<tbody>
<tr><th>Service</th><td>{{.A.Service}}</td><td>{{.B.Service}}</td></tr>
<tr><th>Duration</th><td class="n">{{ms .Diff.Runs.A.DurationMS}}</td><td class="n">{{ms .Diff.Runs.B.DurationMS}}</td></tr>
<tr><th>Model calls</th><td class="n">{{.Diff.Runs.A.ModelCalls}}</td><td class="n">{{.Diff.Runs.B.ModelCalls}}</td></tr>
<tr><th>Tool calls</th><td class="n">{{.Diff.Runs.A.Calls}}</td><td class="n">{{.Diff.Runs.B.Calls}}</td></tr>
<tr><th>Errors</th><td class="n">{{.A.Report.Errors}}</td><td class="n">{{.B.Report.Errors}}</td></tr>
<tr><th>Tokens in</th><td class="n">{{num .Diff.Runs.A.Tokens.Input}}</td><td class="n">{{num .Diff.Runs.B.Tokens.Input}}</td></tr>
<tr><th>Tokens out</th><td class="n">{{num .Diff.Runs.A.Tokens.Output}}</td><td class="n">{{num .Diff.Runs.B.Tokens.Output}}</td></tr>
<tr><th>Tokens total</th><td class="n">{{num .Diff.Runs.A.Tokens.Total}}</td><td class="n">{{num .Diff.Runs.B.Tokens.Total}}</td></tr>
<tr id="cost"><th>Cost</th><td class="n">{{cost .A.Report.Cost}}</td><td class="n">{{cost .B.Report.Cost}}</td></tr>
{{- range .Tools}}
<tr data-tool="{{.Name}}"><th>tool {{.Name}}</th><td class="n">{{.A}} call{{if ne .A 1}}s{{end}}{{if .AErr}}, <span class="bad">{{.AErr}} failed</span>{{end}}</td><td class="n">{{.B}} call{{if ne .B 1}}s{{end}}{{if .BErr}}, <span class="bad">{{.BErr}} failed</span>{{end}}</td></tr>
{{- end}}
{{- range .Models}}
<tr data-model="{{.Name}}"><th>model {{.Name}}</th><td class="n">{{.A}} call{{if ne .A 1}}s{{end}} · {{num .ATok}} tokens{{if .A}} · {{cost .ACost}}{{end}}</td><td class="n">{{.B}} call{{if ne .B 1}}s{{end}} · {{num .BTok}} tokens{{if .B}} · {{cost .BCost}}{{end}}</td></tr>
{{- end}}
</tbody>
</table>
<h2>Where the calls diverge</h2>
{{- if .Diff.Divergences}}
<table id="divergences">
<thead><tr><th>#</th><th>What</th><th>A</th><th>B</th><th>Arguments changed</th></tr></thead>
<tbody>
{{- range .Diff.Divergences}}
<tr data-kind="{{.Kind}}"><td class="n">{{inc .Index}}</td><td class="{{if .Kind.Diverges}}bad{{else}}warn{{end}}">{{.Kind}}</td>
<td>{{with .A}}<a href="/run/{{escape $.A.Name}}#span={{.SpanID}}">{{.Tool}}</a> {{if .OK}}<span class="ok">ok</span>{{else}}<span class="bad">failed {{.Code}}</span>{{end}}{{else}}<span class="mute">—</span>{{end}}</td>
<td>{{with .B}}<a href="/run/{{escape $.B.Name}}#span={{.SpanID}}">{{.Tool}}</a> {{if .OK}}<span class="ok">ok</span>{{else}}<span class="bad">failed {{.Code}}</span>{{end}}{{else}}<span class="mute">—</span>{{end}}</td>
<td class="names">{{range $i, $c := .Changes}}{{if $i}}; {{end}}{{$c.Path}}: {{$c.A}} → {{$c.B}}{{end}}</td></tr>
{{- end}}
</tbody>
</table>
{{- else}}
<p>None: every tool call matched.</p>
{{- end}}
</body>
</html>
`))

// compareSide is one run of the comparison.
type compareSide struct {
	Name    string
	Service string
	Report  *report.TokenReport
}

// compareRow is one tool or model, in both runs.
type compareRow struct {
	Name       string
	A, B       int64
	AErr, BErr int64
	ATok, BTok int64
	// ACost and BCost are a model's cost in each run (its calls under
	// every provider that names it).
	ACost, BCost report.Cost
}

// addCost is the cost of the model calls of a and b together: unknown
// only when neither has a known cost.
func addCost(a, b report.Cost) report.Cost {
	out := report.Cost{CostUnknown: a.CostUnknown + b.CostUnknown, CostFromSpans: a.CostFromSpans + b.CostFromSpans}
	if a.CostUSD != nil || b.CostUSD != nil {
		var usd float64
		for _, c := range []*float64{a.CostUSD, b.CostUSD} {
			if c != nil {
				usd += *c
			}
		}
		out.CostUSD = &usd
	}
	return out
}

type compareData struct {
	A, B   compareSide
	Diff   *judge.DiffReport
	Tools  []compareRow
	Models []compareRow
}

// serveCompare shows the two runs named by ?c=<path>&c=<path> (or
// ?a=&b=) side by side.
func (s *Server) serveCompare(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	names := q["c"]
	if len(names) == 0 {
		names = []string{q.Get("a"), q.Get("b")}
	}
	if len(names) != 2 || names[0] == "" || names[1] == "" {
		http.Error(w, "bad request: pick two runs to compare (two ?c=<path>)", http.StatusBadRequest)
		return
	}
	var runs [2]viewer.Run
	for i, name := range names {
		lr, err := s.compared(r, name)
		if errors.Is(err, errBadPath) {
			http.Error(w, "bad request: not an artifact path", http.StatusBadRequest)
			return
		}
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, errNotArtifact) {
			http.NotFound(w, r)
			return
		}
		if errors.Is(err, errRunTooLarge) {
			http.Error(w, name+": too large to compare here (see serve --cache-size)", http.StatusUnprocessableEntity)
			return
		}
		if err == nil {
			runs[i] = lr.run
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusUnprocessableEntity)
			return
		}
	}
	data := compareData{Diff: judge.Diff(runs[0].Records, runs[1].Records, judge.WithTrailers(runs[0].Summary, runs[1].Summary))}
	sides := []*compareSide{&data.A, &data.B}
	tools, models := map[string]*compareRow{}, map[string]*compareRow{}
	row := func(m map[string]*compareRow, k string) *compareRow {
		if m[k] == nil {
			m[k] = &compareRow{Name: k}
		}
		return m[k]
	}
	for i, run := range runs {
		rep := report.Tokens(run.Records, run.Meta, report.WithTop(0), report.WithTrailer(run.Summary, run.Records))
		*sides[i] = compareSide{Name: run.Name, Report: rep}
		if run.Meta != nil {
			sides[i].Service = run.Meta.Service
		}
		for _, t := range rep.ByTool {
			c := row(tools, t.Tool)
			if i == 0 {
				c.A, c.AErr = t.Calls, t.Errors
			} else {
				c.B, c.BErr = t.Calls, t.Errors
			}
		}
		for _, m := range rep.ByModel {
			c := row(models, m.Model)
			if i == 0 {
				c.A, c.ATok, c.ACost = c.A+m.Count, c.ATok+m.Total, addCost(c.ACost, m.Cost)
			} else {
				c.B, c.BTok, c.BCost = c.B+m.Count, c.BTok+m.Total, addCost(c.BCost, m.Cost)
			}
		}
	}
	sorted := func(m map[string]*compareRow) []compareRow {
		out := make([]compareRow, 0, len(m))
		for _, v := range m {
			out = append(out, *v)
		}
		slices.SortFunc(out, func(a, b compareRow) int {
			if a.Name < b.Name {
				return -1
			}
			if a.Name > b.Name {
				return 1
			}
			return 0
		})
		return out
	}
	data.Tools, data.Models = sorted(tools), sorted(models)
	var page bytes.Buffer
	if err := comparePage.Execute(&page, data); err != nil {
		s.cfg.log.Error("cannot render the comparison", "err", err)
		http.Error(w, fmt.Sprintf("cannot render the comparison: %v", err), http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(page.Len()))
	_, _ = page.WriteTo(w)
}

// compared loads the run name (a path, or a bucket's key) for /compare:
// cached, redacted, bounded, as its page loads it.
func (s *Server) compared(r *http.Request, name string) (*loadedRun, error) {
	if s.bkt != nil {
		key, err := bucketKey(escapeRel(name))
		if err != nil {
			return nil, err
		}
		_, lr, err := s.bucketRun(r.Context(), key)
		return lr, err
	}
	rel, err := cleanRel(escapeRel(name))
	if err != nil {
		return nil, err
	}
	a, err := s.openRun(rel)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", fs.ErrNotExist, err)
	}
	defer a.f.Close()
	return s.run(a)
}
