package server

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"html"
	"html/template"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/agenttrace/agenttrace/pricing"
	"github.com/agenttrace/agenttrace/report"
	"github.com/agenttrace/agenttrace/viewer"
)

// listStyle is the list page's only style sheet. The page's policy allows
// it by its hash, and nothing else: the page has no script.
const listStyle = `
:root{color-scheme:light dark;--fg:#1d2330;--mute:#667085;--line:#e4e7ec;--head:#f5f7fa;--bad:#b42318;--warn:#b54708;--ok:#067647;--link:#175cd3}
@media (prefers-color-scheme:dark){:root{--fg:#e4e7ec;--mute:#98a2b3;--line:#344054;--head:#1d2939;--bad:#f97066;--warn:#fdb022;--ok:#47cd89;--link:#84caff}}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--fg);margin:16px}
h1{font-size:18px;margin:0 0 4px}
code,td.run{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:13px}
p.sub{color:var(--mute);margin:0 0 16px}
table{border-collapse:collapse;width:100%}
th,td{padding:5px 5px;border-bottom:1px solid var(--line);text-align:left;white-space:nowrap}
#runs{font-size:13px}
#runs th{white-space:normal;vertical-align:bottom}
#runs th button{font-size:12px;padding:2px 4px}
td[data-col=started]{white-space:normal;min-width:10ch;max-width:11ch}
td[data-col=service]{white-space:normal;overflow-wrap:anywhere;max-width:12ch}
td[data-col=budget]{white-space:normal;min-width:13ch;max-width:16ch}
td[data-col=state]{white-space:normal;max-width:16ch}
th{background:var(--head);font-weight:600;position:sticky;top:0}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
td.run{white-space:normal;word-break:break-all}
a{color:var(--link);text-decoration:none}
a:hover{text-decoration:underline}
.bad{color:var(--bad)}.warn{color:var(--warn)}.ok{color:var(--ok)}.mute{color:var(--mute)}
.budget-over{color:var(--bad)}.budget-near{color:var(--warn)}
form.filters{display:flex;flex-wrap:wrap;gap:8px;align-items:center;margin:0 0 12px}
form.filters input[type=search]{min-width:260px}
input,select,button{font:inherit;padding:3px 6px}
th a{color:inherit}
td.names{white-space:normal;overflow-wrap:anywhere;max-width:150px;color:var(--mute);font-size:12px}
td.run{min-width:18ch;max-width:24ch}
td.run .prompt{color:var(--fg);font-size:12px;max-width:24ch;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
td.run .id{font-size:11px}
td.run .id a{color:var(--mute)}
.running{color:var(--ok);font-weight:600}
`

// listScript reloads the list when the folder changes (a new run, a run
// that grew), unless the user is typing in a filter or has picked runs
// to compare. The page's policy allows it by its hash and lets it fetch
// only from this server.
const listScript = `(function(){var v=document.body.getAttribute('data-version');setInterval(function(){var a=document.activeElement;if(a&&(a.tagName==='INPUT'||a.tagName==='SELECT'))return;if(document.querySelector('input[name=c]:checked'))return;fetch('/version',{credentials:'same-origin'}).then(function(r){return r.ok?r.text():''}).then(function(t){if(t&&t!==v)location.reload()}).catch(function(){})},1500)})();`

// listScriptHash is listScript's CSP source expression.
var listScriptHash = cspHash(listScript)

// listCSP is the list page's policy: its style, its one script, fetches
// to this server (the version it polls) and forms submitted here (the
// filters, the comparison).
var listCSP = "default-src 'none'; style-src " + listStyleHash + "; script-src " + listScriptHash +
	"; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// listStyleHash is listStyle's CSP source expression.
var listStyleHash = cspHash(listStyle)

func cspHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}

// pageCSP is the Content-Security-Policy of the list page (its meta
// element and its header) and the header of every other response but the
// viewer page: nothing may load but the one style sheet above.
var pageCSP = "default-src 'none'; style-src " + listStyleHash +
	"; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// listPage is parsed from literal text around listStyle, which
// html/template copies as it is: the bytes hashed are the bytes sent.
var listPage = template.Must(template.New("list").Funcs(template.FuncMap{
	"num":      report.Thousands,
	"duration": report.Duration,
	"started":  started,
	"budget":   viewer.BudgetText,
	"state":    viewer.BudgetState,
	"escape":   escapeRel,
	"names":    runNames,
}).Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="` + template.HTMLEscapeString(cspMeta()) + `">
<meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>agenttrace runs · {{.Dir}}</title>
<style>` + listStyle + `</style>
</head>
<body data-version="{{.Version}}">
<h1>Runs in <code>{{.Dir}}</code></h1>
<p class="sub">{{if .Query.Filtering}}{{num .Matched}} of {{num .Total}} artifact{{if ne .Total 1}}s{{end}} match{{else}}{{num .Total}} artifact{{if ne .Total 1}}s{{end}}{{end}}{{if gt .Matched (len .Runs)}}; rows {{num .From}}–{{num .To}}{{end}}. Listed at {{.Now}}; {{if .Bucket}}from the bucket's run catalog (reload to read it again; <code>agenttrace catalog build</code> adds the runs uploaded since it was built). Run pages show a run as uploaded: no live tail for a bucket.{{else}}the list follows the folder.{{end}}</p>
<form class="filters" method="get" action="/" role="search">
<input type="search" name="q" value="{{.Query.Q}}" placeholder="Search runs: tools, models, messages…" aria-label="Search runs">
<select name="service" aria-label="Service"><option value="">any service</option>{{range .Choices.Services}}<option{{if eq . $.Query.Service}} selected{{end}}>{{.}}</option>{{end}}</select>
<select name="agent" aria-label="Agent"><option value="">any agent</option>{{range .Choices.Agents}}<option{{if eq . $.Query.Agent}} selected{{end}}>{{.}}</option>{{end}}</select>
<select name="model" aria-label="Model"><option value="">any model</option>{{range .Choices.Models}}<option{{if eq . $.Query.Model}} selected{{end}}>{{.}}</option>{{end}}</select>
<select name="status" aria-label="Status"><option value="">any status</option>{{range $k, $v := .Statuses}}<option value="{{$k}}"{{if eq $k $.Query.Status}} selected{{end}}>{{$v}}</option>{{end}}</select>
<select name="since" aria-label="Time"><option value="">any time</option><option value="1h"{{if eq .Query.Since "1h"}} selected{{end}}>last hour</option><option value="24h"{{if eq .Query.Since "24h"}} selected{{end}}>last 24 hours</option><option value="7d"{{if eq .Query.Since "7d"}} selected{{end}}>last 7 days</option></select>
<input type="text" name="min_tokens" value="{{.Query.MinTokens}}" placeholder="≥ tokens" size="8" aria-label="At least this many tokens">
<input type="text" name="min_duration" value="{{.Query.MinDuration}}" placeholder="≥ duration (30s)" size="12" aria-label="At least this long">
<input type="text" name="min_cost" value="{{.Query.MinCost}}" placeholder="≥ $" size="6" aria-label="Costs at least this many dollars">
<input type="text" name="max_cost" value="{{.Query.MaxCost}}" placeholder="≤ $" size="6" aria-label="Costs at most this many dollars">
<input type="hidden" name="sort" value="{{.Query.Sort}}">
<button type="submit">Filter</button>{{if .Query.Filtering}} <a href="/">clear</a>{{end}}
</form>
<form id="cmp" method="get" action="/compare"></form>
{{- if .Runs}}
<table id="runs">
<thead><tr><th title="pick two to compare"><button type="submit" form="cmp">Compare</button></th><th><a href="{{.Query.SortURL "run"}}">Run{{.Query.Arrow "run"}}</a></th><th><a href="{{.Query.SortURL "started"}}">Started{{.Query.Arrow "started"}}</a></th><th><a href="{{.Query.SortURL "service"}}">Service{{.Query.Arrow "service"}}</a></th><th>Agents · models · tools</th><th class="n"><a href="{{.Query.SortURL "records"}}">Records{{.Query.Arrow "records"}}</a></th><th class="n">Tokens in</th><th class="n">Tokens out</th><th class="n"><a href="{{.Query.SortURL "tokens"}}">Total{{.Query.Arrow "tokens"}}</a></th><th class="n"><a href="{{.Query.SortURL "cost"}}">Cost{{.Query.Arrow "cost"}}</a></th><th class="n"><a href="{{.Query.SortURL "errors"}}">Errors{{.Query.Arrow "errors"}}</a></th><th class="n"><a href="{{.Query.SortURL "duration"}}">Duration{{.Query.Arrow "duration"}}</a></th><th>Budget</th><th>State</th></tr></thead>
<tbody>
{{- range $r := .Runs}}
<tr data-path="{{.Rel}}">
<td><input type="checkbox" name="c" value="{{.Rel}}" form="cmp" aria-label="compare {{.Rel}}"></td>
<td class="run">{{with .Name}}<a href="/run/{{escape $r.Rel}}">{{.}}</a>{{with $r.Prompt}}<div class="prompt">{{.}}</div>{{end}}<div class="id"><a href="/run/{{escape $r.Rel}}">{{$r.Rel}}</a> · <a class="raw" href="/raw/{{escape $r.Rel}}" download>raw</a></div>{{else}}<a href="/run/{{escape .Rel}}">{{.Rel}}</a>{{with .Prompt}}<div class="prompt">{{.}}</div>{{end}}<div class="id"><a class="raw" href="/raw/{{escape .Rel}}" download>raw</a></div>{{end}}</td>
{{- if .Err}}
<td data-col="error" colspan="11" class="bad">cannot read: {{.Err}}</td>
{{- else}}
<td data-col="started">{{started .Started}}</td>
<td data-col="service">{{or .Service "—"}}</td>
<td data-col="names" class="names">{{names .}}</td>
<td data-col="records" class="n">{{num .Records}}</td>
<td data-col="in" class="n">{{num .Tokens.Input}}</td>
<td data-col="out" class="n">{{num .Tokens.Output}}</td>
<td data-col="total" class="n">{{num .Tokens.Total}}</td>
{{with .CostCell}}{{.}}{{else}}<td data-col="cost" class="n mute">—</td>{{end}}
<td data-col="errors" class="n{{if .Errors}} bad{{end}}">{{num .Errors}}</td>
<td data-col="duration" class="n">{{duration .Duration}}</td>
{{- with .Budget}}
<td data-col="budget" class="budget-{{state .}}">{{budget .}}</td>
{{- else}}
<td data-col="budget" class="mute">—</td>
{{- end}}
<td data-col="state">{{$st := $.Clock.State .}}{{if eq $st "running"}}<span class="running">{{$.Clock.Text .}}</span>{{else if eq $st "stopped"}}<span class="warn stopped">{{$.Clock.Text .}}</span>{{else if .Complete}}<span class="ok">complete</span>{{else}}<span class="warn">open</span>{{end}}{{if .Problems}} <span class="bad">{{num .Problems}} bad line{{if ne .Problems 1}}s{{end}}</span>{{end}}{{if .Dropped}} <span class="bad" title="records the trailer counts that are not in the file; tokens and budget are the trailer's">{{num .Dropped}} dropped</span>{{end}}</td>
{{- end}}
</tr>
{{- end}}
</tbody>
</table>
{{- if or .Prev .Next}}
<nav class="pager" aria-label="pages">{{if .Prev}}<a rel="prev" href="{{.Query.PageURL .Prev}}">← newer page</a>{{end}} page {{.Query.Page}} of {{.Pages}} {{if .Next}}<a rel="next" href="{{.Query.PageURL .Next}}">next page →</a>{{end}}</nav>
{{- end}}
{{- else if .NoCatalog}}
<p class="nocatalog">No run catalog in <code>{{.Dir}}</code>: a bucket is listed from its catalog only, never by listing its objects. Build it with <code>agenttrace catalog build {{.Dir}}</code> (the URL with its query), then reload.</p>
{{- else if .Query.Filtering}}
<p>No run matches. <a href="/">Show all runs</a>.</p>
{{- else if .Indexing}}
<p class="indexing">Reading the folder's runs: this page reloads when they are read.</p>
{{- else}}
<p>No artifacts (<code>*.jsonl</code>) here yet. Record one with <code>agenttrace demo --out {{.Dir}}</code>, or send OTLP to <code>agenttrace serve {{.Dir}} --otlp</code>.</p>
{{- end}}
<script>` + listScript + `</script>
</body>
</html>
`))

// setCost sets ri's cost, with its cell: written once per change of the
// file, like the rest of the row's numbers, not at every listing.
func (ri *runInfo) setCost(c report.Cost) {
	ri.Cost = c
	var b strings.Builder
	b.WriteString(`<td data-col="cost" class="n`)
	if c.CostUSD == nil {
		b.WriteString(` mute`)
	}
	b.WriteString(`"`)
	if note := costNote(ri, c); note != "" {
		b.WriteString(` title="` + html.EscapeString(note) + `"`)
	}
	b.WriteString(`>` + html.EscapeString(viewer.CostText(c)) + `</td>`)
	ri.CostCell = template.HTML(b.String()) //nolint:gosec // every text in it is escaped above
}

// costNote says how a run's cost was found, in the cost cell's title: the
// price data, the calls that reported their own cost, the unpriced ones.
func costNote(ri *runInfo, c report.Cost) string {
	var how []string
	if c.CostUSD != nil {
		if t, err := pricing.Default(); err == nil {
			how = append(how, "priced with genai-prices "+t.Version)
		}
	}
	if c.CostFromSpans > 0 {
		how = append(how, report.Thousands(c.CostFromSpans)+" reported by the spans")
	}
	if c.CostUnknown > 0 {
		how = append(how, report.Thousands(c.CostUnknown)+" model calls unpriced: no price or no usage")
	}
	if ri.Dropped > 0 {
		how = append(how, "for the records in the file")
	}
	return strings.Join(how, " · ")
}

// runNames is a run's agents, models and tools, each list comma-separated,
// the lists separated by " · ".
func runNames(ri *runInfo) string {
	var parts []string
	for _, l := range [][]string{ri.Agents, ri.Models, ri.Tools} {
		if len(l) > 0 {
			parts = append(parts, strings.Join(l, ", "))
		}
	}
	return strings.Join(parts, " · ")
}

// cspMeta is the policy the list page carries in a meta element, where
// frame-ancestors is not allowed (the header says it).
func cspMeta() string {
	return "default-src 'none'; style-src " + listStyleHash + "; script-src " + listScriptHash + "; connect-src 'self'; base-uri 'none'; form-action 'self'"
}

// listData is what the list page shows.
type listData struct {
	Dir     string
	Now     string
	Version string
	// Total counts the folder's artifacts, Matched those that pass the
	// filters; Runs are the page's rows, From to To (from 1) of those.
	Total, Matched, From, To int64
	// Prev and Next are the neighbouring pages, 0 when there is none;
	// Pages counts them.
	Prev, Next, Pages int
	Runs              []*runInfo
	Query             listQuery
	Choices           listChoices
	Statuses          map[string]string
	// Clock decides each row's state when the page is made.
	Clock stateClock
	// Indexing: the folder's first walk is still under way (a large
	// folder); the page polls /version and reloads when it ends.
	Indexing bool
	// Bucket: the runs of a bucket, listed from its catalog;
	// NoCatalog: it has none yet.
	Bucket, NoCatalog bool
}

func (s *Server) serveList(w http.ResponseWriter, r *http.Request) {
	now := time.Now()
	q := parseListQuery(r.URL.Query())
	l, err := s.listPage(r.Context(), q, now)
	if err != nil {
		s.cfg.log.Error("cannot list the runs", "err", err)
		http.Error(w, "cannot list the runs: "+err.Error(), http.StatusInternalServerError)
		return
	}
	matched := l.matched
	data := listData{
		Dir: s.dir, Now: now.Format("2006-01-02 15:04:05 MST"), Version: l.snap.version, Total: int64(l.total),
		Matched: int64(matched), Runs: l.rows, Query: q, Choices: l.choices,
		Clock:    stateClock{now: now, idle: s.cfg.idle},
		Statuses: map[string]string{"running": "running", "stopped": "stopped without an end", "done": "done", "error": "with errors", "over": "over budget", "open": "not closed"},
		Indexing: l.snap.indexing, Bucket: s.bkt != nil, NoCatalog: l.noCatalog,
	}
	data.Pages = max(1, (matched+q.Per-1)/q.Per)
	if len(l.rows) > 0 {
		data.From = int64((q.Page-1)*q.Per + 1)
		data.To = data.From + int64(len(l.rows)) - 1
	}
	if q.Page > 1 {
		data.Prev = min(q.Page-1, data.Pages)
	}
	if q.Page < data.Pages {
		data.Next = q.Page + 1
	}
	var page bytes.Buffer
	if err := listPage.Execute(&page, data); err != nil {
		s.cfg.log.Error("cannot render the list", "err", err)
		http.Error(w, "cannot render the list", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Security-Policy", listCSP)
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(page.Len()))
	_, _ = page.WriteTo(w)
}

// stateClock decides the state of the list's rows at one time, with the
// server's idle time: viewer.StateOf, as the run page decides it.
type stateClock struct {
	now  time.Time
	idle time.Duration
}

// State is ri's state: running, stopped or done.
func (c stateClock) State(ri *runInfo) string { return ri.state(c.now, c.idle) }

// Text is what ri's state says (viewer.StateText): a stopped run's with
// the time of its last record.
func (c stateClock) Text(ri *runInfo) string { return viewer.StateText(c.State(ri), ri.Last) }

// started writes a run's start in UTC: runs come from anywhere, and UTC
// is what their artifacts say.
func started(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.UTC().Format("2006-01-02 15:04:05Z")
}
