package viewer

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/converter"
	"github.com/agenttrace/agenttrace/importer"
	"github.com/agenttrace/agenttrace/internal/browsertest"
	"github.com/agenttrace/agenttrace/internal/dialecttest"
	"github.com/agenttrace/agenttrace/semconv"
)

// These tests run assets/ingest.js in a real Chromium and hold it to what
// Go does with the same input: the converter for OTLP and artifacts, the
// importer for Jaeger JSON. Each test starts one browser and parses all its
// inputs in one page.

const repoTestdata = "../testdata"

// ingestCase is one input for ATIngest.parse.
type ingestCase struct {
	File string `json:"file"`
	Text string `json:"text"`
}

// ingestOut is what ATIngest.parse returned, or what it threw.
type ingestOut struct {
	Threw    string          `json:"threw"`
	Format   string          `json:"format"`
	Runs     []ingestRun     `json:"runs"`
	Problems []ingestProblem `json:"problems"`
}

type ingestRun struct {
	Name    string           `json:"name"`
	Meta    map[string]any   `json:"meta"`
	Records []map[string]any `json:"records"`
	Summary map[string]any   `json:"summary"`
}

type ingestProblem struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Message string `json:"message"`
}

// ingestPage is the test page: the dialect table and the cases as JSON data
// blocks, then ingest.js. The policy allows inline script but not eval, so
// a parser that needs eval or new Function fails here as on the real page.
func ingestPage(t *testing.T, cases []ingestCase) string {
	t.Helper()
	js, err := os.ReadFile("assets/ingest.js")
	require.NoError(t, err)
	require.NotContains(t, strings.ToLower(string(js)), "</script", "ingest.js must not end its element")
	data, err := json.Marshal(cases) // escapes "<", so no input ends its block
	require.NoError(t, err)
	var p bytes.Buffer
	p.WriteString(`<!doctype html><meta charset="utf-8">`)
	p.WriteString(`<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'">`)
	p.WriteString(`<script type="application/json" id="at-dialects">`)
	p.Write(dialectsJSON())
	p.WriteString(`</script><script type="application/json" id="cases">`)
	p.Write(data)
	p.WriteString("</script>\n<script>window.globalsBefore = Object.getOwnPropertyNames(window);</script>\n<script>")
	p.Write(js)
	p.WriteString("</script>\n")
	path := filepath.Join(t.TempDir(), "ingest.html")
	require.NoError(t, os.WriteFile(path, p.Bytes(), 0o644))
	return path
}

// parseAll is run in the page: every case through ATIngest.parse, with
// exceptions caught so that a throw is a failure of its case, not of the
// whole evaluation.
const parseAll = `(() => {
  const dialects = JSON.parse(document.getElementById('at-dialects').textContent);
  const cases = JSON.parse(document.getElementById('cases').textContent);
  return JSON.stringify(cases.map((c) => {
    try { return ATIngest.parse(c.text, c.file, dialects); }
    catch (e) { return { threw: String((e && e.stack) || e) }; }
  }));
})()`

// parseInBrowser parses every case in one fresh Chromium and returns the
// results in order. It also checks that ingest.js defines no global but
// ATIngest, which is a const and so not a property of window.
func parseInBrowser(t *testing.T, cases []ingestCase) []ingestOut {
	t.Helper()
	page := ingestPage(t, cases)
	ctx := browsertest.New(t, browsertest.WithTimeout(5*time.Minute))
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(browsertest.FileURL(t, page))))
	globals, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](
		`Object.getOwnPropertyNames(window).filter((k) => !window.globalsBefore.includes(k) && k !== 'globalsBefore')`))
	require.NoError(t, err)
	require.Empty(t, globals, "ingest.js leaks globals")
	api, err := chromedp.Run(ctx, chromedp.Evaluate[string](`typeof ATIngest.parse + ' ' + ATIngest.version + ' ' + Object.isFrozen(ATIngest)`))
	require.NoError(t, err)
	require.Equal(t, "function 1 true", api)
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[string](parseAll))
	require.NoError(t, err)
	var outs []ingestOut
	require.NoError(t, json.Unmarshal([]byte(raw), &outs))
	require.Len(t, outs, len(cases))
	for i, o := range outs {
		require.Empty(t, o.Threw, "%s threw", cases[i].File)
	}
	return outs
}

// goRun is a run as Go writes it, decoded the way ingest.js reads it: the
// artifact's text, its header, its records by span id (each with its line,
// JSON-valued fields as §5 says, and the resource and scope resolved
// against the header) and its trailer.
type goRun struct {
	text    string
	meta    map[string]any
	records map[string]map[string]any
	lines   map[string]int
	summary map[string]any
	// spans are the records as Go reads them from the spans themselves,
	// before any header: each with its own resource and scope. They differ
	// from records only where reading a header adds to a resource (a
	// budget's default warn threshold, §3).
	spans map[string]map[string]any
}

// goRuns writes recs as `agenttrace convert --split` does: one artifact per
// trace, each with MetaFor's header and the Writer's trailer.
func goRuns(t *testing.T, recs []converter.Record) map[string]*goRun {
	t.Helper()
	converter.SortRecords(recs)
	runs := map[string]*goRun{}
	for _, g := range converter.Split(recs, converter.ByTrace) {
		var buf bytes.Buffer
		w := converter.NewWriter(&buf, converter.MetaFor(g.Records))
		for i := range g.Records {
			require.NoError(t, w.Write(&g.Records[i]))
		}
		require.NoError(t, w.Close())
		run := decodeGoArtifact(t, buf.String())
		run.spans = map[string]map[string]any{}
		var enc converter.Encoder // no defaults: every record says its resource and scope
		for i := range g.Records {
			rec := decodeGoRecord(t, string(enc.AppendRecord(nil, &g.Records[i])), nil)
			run.spans[rec["span_id"].(string)] = rec
		}
		runs[g.Key] = run
	}
	return runs
}

func decodeGoArtifact(t *testing.T, text string) *goRun {
	t.Helper()
	run := &goRun{text: text, records: map[string]map[string]any{}, lines: map[string]int{}}
	for i, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		var head struct {
			Kind string `json:"kind"`
		}
		require.NoError(t, json.Unmarshal([]byte(line), &head))
		switch head.Kind {
		case "meta":
			require.NoError(t, json.Unmarshal([]byte(line), &run.meta))
		case "summary":
			require.NoError(t, json.Unmarshal([]byte(line), &run.summary))
		default:
			rec := decodeGoRecord(t, line, run.meta)
			id := rec["span_id"].(string)
			run.records[id] = rec
			run.lines[id] = i + 1
		}
	}
	return run
}

var jsonValuedFields = []string{"args", "result", "system", "tools", "input", "output"}

// decodeGoRecord decodes a record line into the shape ATIngest gives it.
func decodeGoRecord(t *testing.T, line string, header map[string]any) map[string]any {
	t.Helper()
	var raw map[string]json.RawMessage
	require.NoError(t, json.Unmarshal([]byte(line), &raw))
	var structured []string
	if s, ok := raw["structured"]; ok {
		require.NoError(t, json.Unmarshal(s, &structured))
	}
	rec := map[string]any{}
	for k, v := range raw {
		var x any
		switch {
		case k == "structured":
			continue // a JS record says it by the value's type
		case slices.Contains(jsonValuedFields, k) && !slices.Contains(structured, k) && v[0] != '"':
			x = string(v) // embedded JSON: the attribute's string, byte for byte
		default:
			require.NoError(t, json.Unmarshal(v, &x))
		}
		rec[k] = x
	}
	if _, ok := rec["resource"]; !ok {
		res := map[string]any{}
		if h, ok := header["resource"].(map[string]any); ok {
			for k, v := range h {
				res[k] = v
			}
		}
		// The header's budget and redaction are resource attributes (§3).
		if b, ok := header["budget"].(map[string]any); ok {
			putMissing(res, semconv.BudgetTokens, b["budget_tokens"])
			putMissing(res, semconv.BudgetWarnThreshold, b["warn_threshold"])
		}
		if header["redacted"] == true {
			putMissing(res, semconv.Redacted, true)
		}
		rec["resource"] = res
		for _, k := range []string{"resource_dropped", "resource_schema_url"} {
			if v, ok := header[k]; ok {
				rec[k] = v
			}
		}
	}
	if _, ok := rec["scope"]; !ok {
		sc, ok := header["scope"]
		if !ok {
			sc = map[string]any{}
		}
		rec["scope"] = sc
	}
	if _, ok := rec["attrs"]; !ok {
		rec["attrs"] = map[string]any{}
	}
	if _, ok := rec["events"]; !ok {
		rec["events"] = []any{}
	}
	for _, list := range []string{"events", "links"} {
		items, _ := rec[list].([]any)
		for _, it := range items {
			m := it.(map[string]any)
			if _, ok := m["attrs"]; !ok {
				m["attrs"] = map[string]any{}
			}
		}
	}
	return rec
}

func putMissing(m map[string]any, k string, v any) {
	if _, ok := m[k]; !ok {
		m[k] = v
	}
}

// wantMs is t0/t1 as ingest.js computes them from a record's time.
func wantMs(t *testing.T, s any) float64 {
	t.Helper()
	tm, err := time.Parse(time.RFC3339Nano, s.(string))
	require.NoError(t, err)
	ns := tm.UnixNano()
	return float64(ns/1e6) + float64(ns%1e6)/1e6
}

// jsRecord checks what a JS record adds to the artifact's shape (t0, t1,
// an event's t) and returns the record without it, to compare with Go's.
func jsRecord(t *testing.T, label string, r map[string]any) map[string]any {
	t.Helper()
	out := map[string]any{}
	for k, v := range r {
		out[k] = v
	}
	require.Equal(t, wantMs(t, r["started_at"]), r["t0"], "%s: t0", label)
	require.Equal(t, wantMs(t, r["finished_at"]), r["t1"], "%s: t1", label)
	delete(out, "t0")
	delete(out, "t1")
	delete(out, "line")
	evs, _ := r["events"].([]any)
	plain := make([]any, len(evs))
	for i, e := range evs {
		ev := map[string]any{}
		for k, v := range e.(map[string]any) {
			ev[k] = v
		}
		require.Equal(t, wantMs(t, ev["time"]), ev["t"], "%s: event t", label)
		delete(ev, "t")
		plain[i] = ev
	}
	if evs != nil {
		out["events"] = plain
	}
	return out
}

// metaKeys are the header fields a JS meta must agree on with Go's header.
var metaKeys = []string{"v", "kind", "started_at", "producer", "core_version", "trace_id", "conversation_id", "service", "budget", "redacted"}

func requireSameMeta(t *testing.T, label string, want, got map[string]any, skip ...string) {
	t.Helper()
	require.NotNil(t, got, "%s: meta", label)
	for _, k := range metaKeys {
		if !slices.Contains(skip, k) {
			require.Equal(t, want[k], got[k], "%s: meta %s", label, k)
		}
	}
	require.Equal(t, wantMs(t, want["started_at"]), got["t0"], "%s: meta t0", label)
}

// requireAgrees holds a JS run to the Go run of the same trace, record by
// record and field by field.
func requireAgrees(t *testing.T, label string, want map[string]map[string]any, got ingestRun) {
	t.Helper()
	gotByID := map[string]map[string]any{}
	for _, r := range got.Records {
		gotByID[r["span_id"].(string)] = r
	}
	require.ElementsMatch(t, mapKeys(want), mapKeys(gotByID), "%s: span ids", label)
	for id, w := range want {
		require.Equal(t, w, jsRecord(t, label+" "+id, gotByID[id]), "%s: span %s", label, id)
	}
}

func mapKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// payload is one input file and the Go runs it makes.
type payload struct {
	name   string
	text   string
	format string
	runs   map[string]*goRun
}

func otlpPayload(t *testing.T, path string) payload {
	t.Helper()
	text, err := os.ReadFile(path)
	require.NoError(t, err)
	f := converter.Detect(text)
	td, err := converter.ReadOTLP(bytes.NewReader(text), f, path)
	require.NoError(t, err)
	format := map[converter.Format]string{converter.FormatOTLPJSON: "otlp-json", converter.FormatOTLPJSONLines: "otlp-jsonl"}[f]
	if bytes.Count(bytes.TrimSpace(text), []byte("\n")) == 0 {
		format = "otlp-json" // one line: one document, however it ends
	}
	return payload{name: filepath.Base(path), text: string(text), format: format, runs: goRuns(t, converter.Records(td))}
}

func jaegerPayload(t *testing.T, name string, text []byte) payload {
	t.Helper()
	var recs []converter.Record
	st, err := importer.ReadJaeger(bytes.NewReader(text), name, func(r *converter.Record) error {
		recs = append(recs, *r)
		return nil
	})
	require.NoError(t, err)
	require.Empty(t, st.Problems)
	require.NotEmpty(t, recs)
	return payload{name: name, text: string(text), format: "jaeger", runs: goRuns(t, recs)}
}

// jaegerPayloads are the Jaeger fixture in each shape Jaeger writes or
// the Jaeger UI opens: the query API's answer, {"data": trace}, an array
// of traces, one bare trace, and traces one per line.
func jaegerPayloads(t *testing.T) []payload {
	t.Helper()
	text, err := os.ReadFile(filepath.Join(repoTestdata, "shapes", "jaeger.json"))
	require.NoError(t, err)
	var doc struct {
		Data []json.RawMessage `json:"data"`
	}
	require.NoError(t, json.Unmarshal(text, &doc))
	require.Len(t, doc.Data, 2)
	compact := func(b []byte) string {
		var buf bytes.Buffer
		require.NoError(t, json.Compact(&buf, b))
		return buf.String()
	}
	a, b := compact(doc.Data[0]), compact(doc.Data[1])
	return []payload{
		jaegerPayload(t, "jaeger.json", text),
		jaegerPayload(t, "jaeger-data-object.json", []byte(`{"data":`+a+`,"total":0,"limit":0,"offset":0,"errors":null}`)),
		jaegerPayload(t, "jaeger-array.json", []byte("["+a+","+b+"]")),
		jaegerPayload(t, "jaeger-trace.json", []byte(a)),
		jaegerPayload(t, "jaeger-lines.jsonl", []byte(a+"\n"+b+"\n")),
	}
}

// requireSpanLines checks the line of every record of a pretty-printed
// document: the line that opens the span's object, whose own id key comes
// before any other.
func requireSpanLines(t *testing.T, label, text, idKey string, run ingestRun) {
	t.Helper()
	lines := strings.Split(text, "\n")
	for _, r := range run.Records {
		n := int(r["line"].(float64))
		require.Equal(t, "{", strings.TrimSpace(lines[n-1]), "%s: line %d opens span %s", label, n, r["span_id"])
		for _, l := range lines[n:] {
			if i := strings.Index(l, `"`+idKey+`"`); i >= 0 {
				require.Contains(t, strings.ToLower(l[i:]), r["span_id"], "%s: span at line %d", label, n)
				break
			}
		}
	}
}

// OTLP and Jaeger files read in the browser as Go reads them, and so do
// the artifacts Go writes for them: one parsing path, one answer.
func TestIngestAgreesWithGo(t *testing.T) {
	var payloads []payload
	otlpFiles, err := filepath.Glob(filepath.Join(repoTestdata, "otlp", "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, otlpFiles)
	for _, f := range otlpFiles {
		payloads = append(payloads, otlpPayload(t, f))
	}
	for _, c := range dialecttest.Cases(t, repoTestdata) {
		payloads = append(payloads, otlpPayload(t, c.Payload))
	}
	payloads = append(payloads, jaegerPayloads(t)...)
	payloads = append(payloads, matrixPayload(t))

	var cases []ingestCase
	for _, p := range payloads {
		cases = append(cases, ingestCase{File: p.name, Text: p.text})
		for _, id := range mapKeys(p.runs) {
			cases = append(cases, ingestCase{File: p.name + "." + id + ".jsonl", Text: p.runs[id].text})
		}
	}
	outs := parseInBrowser(t, cases)

	next := 0
	for _, p := range payloads {
		i := next // this payload's case, then one per run
		next += 1 + len(p.runs)
		t.Run(p.name, func(t *testing.T) {
			out := outs[i]
			require.Empty(t, out.Problems)
			require.Equal(t, p.format, out.Format)
			require.Len(t, out.Runs, len(p.runs))
			var lastStart string
			for _, run := range out.Runs {
				id, _ := run.Meta["trace_id"].(string)
				want := p.runs[id]
				require.NotNil(t, want, "a run for trace %s", id)
				requireSameMeta(t, p.name, want.meta, run.Meta, "producer")
				require.Equal(t, want.summary, run.Summary, "the trailer Go writes")
				requireAgrees(t, p.name, want.spans, run)
				if len(p.runs) == 1 {
					require.Equal(t, p.name, run.Name)
				} else {
					require.Equal(t, p.name+" ["+id[:8]+"]", run.Name)
				}
				require.LessOrEqual(t, lastStart, run.Meta["started_at"], "runs in start order")
				lastStart = run.Meta["started_at"].(string)
				switch {
				case p.format == "otlp-jsonl":
					// TestIngestOTLPLines checks the lines of batches.
				case strings.Count(p.text, "\n") > 2:
					idKey := map[bool]string{true: "spanID", false: "spanId"}[p.format == "jaeger"]
					requireSpanLines(t, p.name, p.text, idKey, run)
				default: // one value per line: a span is on the line that has it
					lines := strings.Split(p.text, "\n")
					for _, r := range run.Records {
						n := slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, r["span_id"].(string)) })
						require.EqualValues(t, n+1, r["line"], "%s: span %s", p.name, r["span_id"])
					}
				}
			}
			for j, id := range mapKeys(p.runs) {
				out := outs[i+1+j]
				want := p.runs[id]
				label := p.name + " artifact " + id
				require.Empty(t, out.Problems, label)
				require.Equal(t, "artifact", out.Format)
				require.Len(t, out.Runs, 1)
				run := out.Runs[0]
				requireSameMeta(t, label, want.meta, run.Meta)
				require.Equal(t, want.summary, run.Summary)
				requireAgrees(t, label, want.records, run) // the artifact holds what Go read
				for _, r := range run.Records {
					require.EqualValues(t, want.lines[r["span_id"].(string)], r["line"], label)
				}
			}
		})
	}
}

// OTLP/JSON lines: each batch's spans have their batch's line.
func TestIngestOTLPLines(t *testing.T) {
	text, err := os.ReadFile(filepath.Join(repoTestdata, "otlp", "conversation.lines.json"))
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSuffix(string(text), "\n"), "\n")
	require.Len(t, lines, 2)
	// Blank lines and CRLF endings between batches change nothing but line numbers.
	spaced := "\r\n" + lines[0] + "\r\n\n" + lines[1] + "\r\n"
	outs := parseInBrowser(t, []ingestCase{{File: "lines.json", Text: spaced}})
	out := outs[0]
	require.Empty(t, out.Problems)
	require.Equal(t, "otlp-jsonl", out.Format)
	batch := map[float64]string{2: lines[0], 4: lines[1]} // by the line each is on now
	seen := map[float64]int{}
	for _, run := range out.Runs {
		for _, r := range run.Records {
			n := r["line"].(float64)
			seen[n]++
			require.Contains(t, batch, n)
			require.Contains(t, batch[n], r["span_id"])
		}
	}
	require.Len(t, seen, 2, "spans from both batches: %v", seen)
}

// Records without OTel identity (§13) get converter's ids, names, times
// and synthesized root, so a tool-dispatch file shows the same spans in
// the viewer as after `agenttrace convert`.
func TestIngestToolDispatch(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(repoTestdata, "legacy", "*.jsonl"))
	require.NoError(t, err)
	mine, err := filepath.Glob(filepath.Join("testdata", "ingest", "*.jsonl"))
	require.NoError(t, err)
	files = append(files, mine...)
	require.GreaterOrEqual(t, len(files), 3)

	type expect struct {
		run      *goRun
		problems []int // lines Go reports
	}
	var cases []ingestCase
	var wants []expect
	for _, f := range files {
		text, err := os.ReadFile(f)
		require.NoError(t, err)
		rd := converter.NewReader(bytes.NewReader(text))
		var enc converter.Encoder
		var lines []string
		recLines := map[string]int{}
		for {
			rec, err := rd.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			require.NoError(t, err)
			if len(lines) == 0 {
				enc.SetDefaults(rd.Meta())
			}
			line := string(enc.AppendRecord(nil, rec))
			lines = append(lines, line)
			recLines[rec.Span.SpanID().String()] = rd.Line()
		}
		run := decodeGoArtifact(t, string(converter.AppendMeta(nil, rd.Meta()))+strings.Join(lines, ""))
		run.lines = recLines
		var probs []int
		for _, p := range rd.Problems() {
			probs = append(probs, p.Line)
		}
		cases = append(cases, ingestCase{File: filepath.Base(f), Text: string(text)})
		wants = append(wants, expect{run: run, problems: probs})
	}
	outs := parseInBrowser(t, cases)
	for i, c := range cases {
		t.Run(c.File, func(t *testing.T) {
			out, want := outs[i], wants[i]
			require.Equal(t, "artifact", out.Format)
			require.Len(t, out.Runs, 1)
			run := out.Runs[0]
			requireSameMeta(t, c.File, want.run.meta, run.Meta)
			requireAgrees(t, c.File, want.run.records, run)
			for _, r := range run.Records {
				line, _ := r["line"].(float64)
				require.EqualValues(t, want.run.lines[r["span_id"].(string)], line, "%s: line of %s", c.File, r["span_id"])
			}
			var got []int
			for _, p := range out.Problems {
				if !strings.Contains(p.Message, "unknown kind") { // Go counts these in Stats, not Problems
					got = append(got, p.Line)
				}
			}
			require.Equal(t, want.problems, got, "problem lines: %v", out.Problems)
		})
	}
}

// Hostile and broken input gives problems with their lines, never an
// exception, and never touches anything but the data it returns.
func TestIngestHostileInput(t *testing.T) {
	deep := func(n int, leaf string) string {
		return strings.Repeat(`{"arrayValue":{"values":[`, n) + leaf + strings.Repeat(`]}}`, n)
	}
	otlp := func(attrs string) string {
		return `{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"svc"}}]},"scopeSpans":[{"scope":{"name":"s"},"spans":[` +
			`{"traceId":"0af7651916cd43dd8448eb211c80319c","spanId":"b7ad6b7169203331","name":"chat","startTimeUnixNano":"1777903389443123456","endTimeUnixNano":"1777903390443123456",` +
			`"attributes":[` + attrs + `]}]}]}]}`
	}
	const head = `{"v":1,"kind":"meta","started_at":"2026-05-04T14:03:07.25Z"}` + "\n"
	rec := func(id, extra string) string {
		return `{"kind":"inference","name":"chat","trace_id":"0af7651916cd43dd8448eb211c80319c","span_id":"` + id +
			`","started_at":"2026-05-04T14:03:09.443123456Z","finished_at":"2026-05-04T14:03:10Z","ok":true` + extra + "}"
	}
	tests := []struct {
		name     string
		text     string
		format   string
		records  int    // records over all runs
		line     int    // the line of the problem
		problem  string // what it says; "" for no problem
		noRuns   bool
		contains []string // what the output holds, as JSON text
	}{
		{name: "empty", text: "", format: "unknown", line: 1, problem: "empty file", noRuns: true},
		{name: "blank", text: "\n \r\n\t\n", format: "unknown", line: 1, problem: "empty file", noRuns: true},
		{name: "not JSON", text: "\n\nhello world", format: "unknown", line: 3, problem: "not a JSON object or array", noRuns: true},
		{name: "broken JSON", text: "{hello", format: "unknown", line: 1, problem: "not JSON: ", noRuns: true},
		{name: "binary", text: "\x0a\x07\x00\xff\xfe", format: "unknown", problem: "not a JSON object or array", line: 2, noRuns: true},
		{name: "torn JSON document", text: "{\n  \"resourceSpans\": [\n    {\"resource\": {}", format: "otlp-json", line: 3, problem: "OTLP/JSON", noRuns: true},
		{name: "unknown object", text: `{"hello":"world"}`, format: "unknown", line: 1, problem: "none of the keys", noRuns: true},
		{name: "JSON scalar", text: `42`, format: "unknown", line: 1, problem: "not a JSON object or array", noRuns: true},
		{name: "resourceSpans not an array", text: `{"resourceSpans":"x"}`, format: "otlp-json", line: 1, problem: "not an array", noRuns: true},
		{name: "spans not an array", text: `{"resourceSpans":[{"scopeSpans":[{"spans":{"a":1}}]}]}`, format: "otlp-json", line: 1, problem: "spans is not an array", noRuns: true},
		{name: "bad span id", text: strings.Replace(otlp(""), "b7ad6b7169203331", "xyz", 1), format: "otlp-json", line: 1, problem: "not hex", noRuns: true},
		{name: "bad times", text: strings.Replace(otlp(""), `"1777903389443123456"`, `"-5"`, 1), format: "otlp-json", line: 1, problem: "uint64", noRuns: true},
		{
			name: "proto keys", text: otlp(`{"key":"__proto__","value":{"kvlistValue":{"values":[{"key":"polluted","value":{"boolValue":true}}]}}},` +
				`{"key":"constructor","value":{"stringValue":"c"}},{"key":"toString","value":{"intValue":"1"}},{"key":"hasOwnProperty","value":{"stringValue":"h"}}`),
			format: "otlp-json", records: 1,
			contains: []string{`"__proto__":{"polluted":true}`, `"constructor":"c"`, `"toString":1`, `"hasOwnProperty":"h"`},
		},
		{name: "1e308 int", text: otlp(`{"key":"gen_ai.usage.input_tokens","value":{"intValue":1e308}}`), format: "otlp-json", records: 1, line: 1, problem: "not a 64-bit integer", contains: []string{`"gen_ai.usage.input_tokens":"1e+308"`}},
		{name: "int too big", text: otlp(`{"key":"n","value":{"intValue":"9223372036854775808"}}`), format: "otlp-json", records: 1, line: 1, problem: "not a 64-bit integer"},
		{name: "huge double", text: otlp(`{"key":"gen_ai.usage.cost","value":{"doubleValue":1e308}},{"key":"d","value":{"doubleValue":"Infinity"}}`), format: "otlp-json", records: 1, contains: []string{`"cost":1e+308`, `"d":{"@double":"+Inf"}`}},
		{name: "deep array value", text: otlp(`{"key":"deep","value":` + deep(100000, `{"stringValue":"x"}`) + `}`), format: "otlp-json", records: 1, line: 1, problem: "nested deeper than 256"},
		{name: "bad base64", text: otlp(`{"key":"b","value":{"bytesValue":"!!!"}}`), format: "otlp-json", records: 1, line: 1, problem: "not base64"},
		{name: "attribute not an object", text: otlp(`5,{"key":"k","value":"v"}`), format: "otlp-json", records: 1, line: 1, problem: "attribute"},
		{name: "artifact torn last line", text: head + rec("b7ad6b7169203331", "") + "\n" + `{"kind":"call","name":"execute_to`, format: "artifact", records: 1, line: 3, problem: "torn last line"},
		{name: "artifact torn but whole", text: head + rec("b7ad6b7169203331", ""), format: "artifact", records: 1},
		{name: "artifact invalid line", text: head + "{not json}\n" + rec("b7ad6b7169203331", "") + "\n", format: "artifact", records: 1, line: 2, problem: "invalid record"},
		{name: "artifact v2", text: `{"v":2,"kind":"meta","started_at":"2026-05-04T14:03:07Z"}` + "\n" + rec("b7ad6b7169203331", "") + "\n", format: "artifact", line: 1, problem: "unsupported artifact version: v=2", noRuns: true},
		{name: "artifact v2 later", text: head + rec("b7ad6b7169203331", "") + "\n" + `{"v":2,"kind":"meta","started_at":"2026-05-04T14:03:07Z"}` + "\n" + rec("c7ad6b7169203331", "") + "\n", format: "artifact", records: 1, line: 3, problem: "unsupported artifact version"},
		{name: "artifact no header", text: rec("b7ad6b7169203331", "") + "\n", format: "artifact", records: 1, line: 1, problem: "first line is not a meta header"},
		{name: "artifact header without start", text: `{"v":1,"kind":"meta"}` + "\n" + rec("b7ad6b7169203331", "") + "\n", format: "artifact", records: 1, line: 1, problem: `no "started_at"`},
		{name: "artifact unknown kind", text: head + `{"kind":"note"}` + "\n" + `{"kind":"note"}` + "\n", format: "artifact", line: 2, problem: `2 lines of unknown kind "note"`},
		{name: "artifact 1e308 usage", text: head + rec("b7ad6b7169203331", `,"usage":{"input_tokens":1e308}`) + "\n", format: "artifact", line: 2, problem: "usage.input_tokens is not a 64-bit integer"},
		{name: "artifact bad id", text: head + rec("b7ad6b71692033", "") + "\n", format: "artifact", line: 2, problem: "want 16 hex digits"},
		{name: "artifact bad time", text: head + rec("b7ad6b7169203331", `,"started_at":"yesterday"`) + "\n", format: "artifact", line: 2, problem: "want RFC 3339"},
		{name: "artifact before 1970", text: head + rec("b7ad6b7169203331", `,"started_at":"1969-12-31T23:59:59Z"`) + "\n", format: "artifact", line: 2, problem: "before 1970"},
		{name: "artifact deep attrs", text: head + rec("b7ad6b7169203331", `,"attrs":{"a":`+strings.Repeat("[", 100000)+strings.Repeat("]", 100000)+`}`) + "\n", format: "artifact", line: 2, problem: "nesting deeper than 256"},
		{
			name: "artifact proto keys", text: head + rec("b7ad6b7169203331", `,"attrs":{"__proto__":{"polluted":true},"constructor":1}`) + "\n",
			format: "artifact", records: 1, contains: []string{`"__proto__":{"polluted":true}`, `"constructor":1`},
		},
		{
			// Milliseconds with a fraction are a float64, as in Go: .5 ms is 499968 ns here.
			name: "artifact times", text: head + rec("b7ad6b7169203331", `,"started_at":"2026-05-04T16:03:09.443123456789+02:00","finished_at":1777903390000.5`) + "\n",
			format: "artifact", records: 1,
			contains: []string{`"started_at":"2026-05-04T14:03:09.443123456Z"`, `"finished_at":"2026-05-04T14:03:10.000499968Z"`, `"t0":1777903389443.1235`, `"elapsed_ms":557.376`},
		},
		{name: "artifact zone-less time", text: head + rec("b7ad6b7169203331", `,"started_at":"2026-05-04T14:03:09.5"`) + "\n", format: "artifact", records: 1, contains: []string{`"started_at":"2026-05-04T14:03:09.500000000Z"`}},
		{name: "jaeger bad span", text: `{"data":[{"traceID":"4bf92f3577b34da6","spans":[{"spanID":"zz","startTime":1},{"spanID":"00f067aa0ba902b7","operationName":"ok","startTime":1777888800000000,"duration":5}],"processes":{}}]}`, format: "jaeger", records: 1, line: 1, problem: "not hex"},
		{name: "jaeger nested too deep", text: `{"data":[[[[[[{"traceID":"1"}]]]]]]}`, format: "jaeger", line: 1, problem: "nested too deep", noRuns: true},
		{name: "jaeger not traces", text: `{"data":5}`, format: "jaeger", line: 1, problem: "not Jaeger JSON", noRuns: true},
		{name: "jaeger query error", text: `{"data":null,"errors":[{"code":404,"msg":"trace not found","traceID":"abc"}]}`, format: "jaeger", line: 1, problem: "trace not found", noRuns: true},
		{name: "jaeger lines", text: `{"traceID":"1","spans":[{"spanID":"2","startTime":1000,"duration":1}]}` + "\n" + `{"traceID":"1","spans":[{"spanID":"3","startTime":1000,"duration":1}]}` + "\n" + "{oops\n", format: "jaeger", records: 2, line: 3, problem: "Jaeger JSON"},
		{name: "jaeger array", text: `[{"traceID":"1","spans":[{"spanID":"2","startTime":1000,"duration":1,"tags":[{"key":"n","type":"int64","value":"x"}]}]}]`, format: "jaeger", records: 1, line: 1, problem: "int64 tag"},
	}
	var cases []ingestCase
	for _, tt := range tests {
		cases = append(cases, ingestCase{File: tt.name + ".in", Text: tt.text})
	}
	outs := parseInBrowser(t, cases)
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := outs[i]
			require.Equal(t, tt.format, out.Format)
			n := 0
			for _, r := range out.Runs {
				n += len(r.Records)
			}
			require.Equal(t, tt.records, n, "records; problems: %v", out.Problems)
			if tt.noRuns {
				require.Empty(t, out.Runs)
			}
			if tt.problem == "" {
				require.Empty(t, out.Problems)
			} else {
				require.NotEmpty(t, out.Problems)
				p := out.Problems[0]
				require.Equal(t, cases[i].File, p.File)
				require.Equal(t, tt.line, p.Line, "%v", out.Problems)
				require.Contains(t, p.Message, tt.problem)
			}
			js, err := json.Marshal(out)
			require.NoError(t, err)
			for _, s := range tt.contains {
				require.Contains(t, string(js), s)
			}
		})
	}
}

// A page whose dialect table is missing still reads: records keep their
// attributes, and the problem says why no field was lifted.
func TestIngestWithoutDialects(t *testing.T) {
	text, err := os.ReadFile(filepath.Join(repoTestdata, "dialects", "genai-v141.json"))
	require.NoError(t, err)
	page := ingestPage(t, nil)
	ctx := browsertest.New(t)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(browsertest.FileURL(t, page))))
	arg, err := json.Marshal(string(text))
	require.NoError(t, err)
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[string](`JSON.stringify([null, {}, {version: 9, fields: [{name: 'x'}, {name: 'model', type: 'string', sources: [{key: 'k', type: 'string', condition: 'if_moon'}]}]}].map((d) => ATIngest.parse(`+string(arg)+`, 'v141.json', d)))`))
	require.NoError(t, err)
	var outs []ingestOut
	require.NoError(t, json.Unmarshal([]byte(raw), &outs))
	for _, out := range outs[:2] {
		require.Len(t, out.Runs, 1)
		require.Contains(t, out.Problems[0].Message, "no dialect table")
		for _, r := range out.Runs[0].Records {
			require.NotContains(t, r, "model")
			require.NotEmpty(t, r["attrs"])
			require.Contains(t, []string{"inference", "call", "agent", "span"}, r["kind"])
		}
	}
	var msgs []string
	for _, p := range outs[2].Problems {
		msgs = append(msgs, p.Message)
	}
	require.Equal(t, []string{
		"dialect table version 9; this page knows version 1",
		`dialect table: field "x" is not understood; not lifted`,
		`dialect table: source "k" of model is not understood; never used`,
	}, msgs)
}

// ingest.js leaves the page alone: its only output is what parse returns.
func TestIngestTouchesNoDOM(t *testing.T) {
	js, err := os.ReadFile("assets/ingest.js")
	require.NoError(t, err)
	for _, re := range []string{`\bdocument\.`, `\bwindow\.`, `innerHTML`, `\beval\(`, `\bFunction\(`, `\bfetch\(`,
		`XMLHttpRequest`, `\blocalStorage\b`, `\bimportScripts\b`, `\bsetTimeout\(`} {
		require.False(t, regexp.MustCompile(re).Match(js), "ingest.js uses %s", re)
	}
}

// The dialect table the page embeds is semconv's, in a form a script
// element holds as it is.
func TestDialectsJSON(t *testing.T) {
	b := dialectsJSON()
	require.NotContains(t, string(b), "<")
	var got dialectTable
	require.NoError(t, json.Unmarshal(b, &got))
	require.Equal(t, dialectTable{Version: 1, Fields: semconv.Table()}, got)
	require.Equal(t, &b[0], &dialectsJSON()[0], "computed once")
}

// matrixPayload is a trace of spans that try the classification rules,
// the conditions and the lossless-promotion rules in many combinations,
// with attribute values of every type: a deterministic random sample, so
// that ingest.js agrees with semconv.Read beyond the fixtures.
func matrixPayload(t *testing.T) payload {
	t.Helper()
	td := matrixTraces()
	text, err := (&ptrace.JSONMarshaler{}).MarshalTraces(td)
	require.NoError(t, err)
	back, err := (&ptrace.JSONUnmarshaler{}).UnmarshalTraces(text)
	require.NoError(t, err)
	p := payload{name: "matrix.json", text: string(text), format: "otlp-json", runs: goRuns(t, converter.Records(back))}

	// The sample must reach what it is for: every kind, every field, every
	// source key of the table, and the rules around them.
	kinds, fields, keys := map[any]bool{}, map[string]bool{}, map[string]bool{}
	for _, run := range p.runs {
		for _, r := range run.spans {
			kinds[r["kind"]] = true
			for k, v := range r {
				fields[k] = true
				if m, ok := v.(map[string]any); ok && k == "usage" {
					for u := range m {
						fields["usage."+u] = true
					}
				}
			}
			if al, ok := r["aliases"].(map[string]any); ok {
				for f, k := range al {
					keys[f+" "+k.(string)] = true
				}
			}
		}
	}
	require.Len(t, kinds, 4)
	for _, fi := range semconv.Table() {
		require.True(t, fields[fi.Name], "no record has %s", fi.Name)
		for _, s := range fi.Sources[1:] {
			require.True(t, keys[fi.Name+" "+s.Key], "no record has %s from %s", fi.Name, s.Key)
		}
	}
	for _, f := range []string{"status_code", "message", "status", "links", "trace_state", "dropped", "estimated_tokens"} {
		require.True(t, fields[f], "no record has %s", f)
	}
	return p
}

func matrixTraces() ptrace.Traces {
	r := rand.New(rand.NewPCG(41, 7))
	td := ptrace.NewTraces()
	for ri := range 2 {
		rs := td.ResourceSpans().AppendEmpty()
		ra := rs.Resource().Attributes()
		ra.PutStr("service.name", fmt.Sprintf("matrix-%d", ri))
		ra.PutInt(semconv.BudgetTokens, 100000)
		if ri == 1 {
			ra.PutDouble(semconv.BudgetWarnThreshold, 0.5)
			ra.PutBool(semconv.Redacted, true)
			rs.SetSchemaUrl("https://opentelemetry.io/schemas/1.41.0")
			rs.Resource().SetDroppedAttributesCount(2)
		}
		for si := range 2 {
			ss := rs.ScopeSpans().AppendEmpty()
			ss.Scope().SetName(fmt.Sprintf("scope-%d", si))
			if si == 1 {
				ss.Scope().SetVersion("1.0")
				ss.Scope().Attributes().PutStr("k", "v")
				ss.SetSchemaUrl("https://example.com/schema")
			}
			for i := range 150 {
				matrixSpan(r, ss.Spans().AppendEmpty(), ri*1000+si*400+i)
			}
		}
	}
	return td
}

func matrixSpan(r *rand.Rand, sp ptrace.Span, i int) {
	var tid pcommon.TraceID
	copy(tid[:], "matrix-trace-id!")
	if i%7 == 3 {
		copy(tid[:], "other-trace-id!!")
	}
	sid := func(n int) pcommon.SpanID {
		var s pcommon.SpanID
		binary.BigEndian.PutUint64(s[:], uint64(n)+1)
		return s
	}
	sp.SetTraceID(tid)
	sp.SetSpanID(sid(i))
	if i%5 != 0 {
		sp.SetParentSpanID(sid(i / 5 * 5))
	}
	base := time.Date(2026, 5, 4, 14, 0, 0, 123456789, time.UTC)
	start := base.Add(time.Duration(r.Int64N(3e12))) // nanoseconds apart
	sp.SetStartTimestamp(pcommon.NewTimestampFromTime(start))
	sp.SetEndTimestamp(pcommon.NewTimestampFromTime(start.Add(time.Duration(r.IntN(5e9)))))
	sp.SetName(matrixPick(r, "step", "ai.toolCall", "ai.embed", "ai.streamText.doStream", "ai.other", "chat gpt-4o", ""))
	sp.SetKind(ptrace.SpanKind(r.IntN(7)))
	switch r.IntN(5) {
	case 1:
		sp.Status().SetCode(ptrace.StatusCodeOk)
	case 2, 3:
		sp.Status().SetCode(ptrace.StatusCodeError)
		sp.Status().SetMessage(matrixPick(r, "", "boom", "timeout <script>alert(1)</script>"))
	case 4:
		sp.Status().SetCode(ptrace.StatusCode(7))
	}
	if r.IntN(4) == 0 {
		sp.TraceState().FromRaw("rojo=00f067aa0ba902b7")
		sp.SetFlags(257)
		sp.SetDroppedAttributesCount(1)
		sp.SetDroppedEventsCount(2)
		ev := sp.Events().AppendEmpty()
		ev.SetName("gen_ai.choice")
		ev.SetTimestamp(sp.EndTimestamp())
		ev.Attributes().PutInt("index", 0)
		ev.SetDroppedAttributesCount(3)
		sp.Events().AppendEmpty().SetName("bare")
		l := sp.Links().AppendEmpty()
		l.SetTraceID(tid)
		l.SetSpanID(sid(i + 1))
		l.Attributes().PutStr("opentracing.ref_type", "follows_from")
		l.SetFlags(1)
	}
	a := sp.Attributes()
	maybe := func(put func()) {
		if r.IntN(3) == 0 {
			put()
		}
	}
	// Classification.
	maybe(func() {
		if r.IntN(6) == 0 {
			a.PutInt(semconv.OperationName, 5)
		} else {
			a.PutStr(semconv.OperationName, matrixPick(r, "chat", "Chat", " execute_tool ", "invoke_agent", "create_agent", "embeddings",
				"retrieval", "generate", "completion", "invoke_workflow", "foo", "EXECUTE_TOOL"))
		}
	})
	maybe(func() {
		if r.IntN(6) == 0 {
			a.PutInt(semconv.OISpanKind, 1)
		} else {
			a.PutStr(semconv.OISpanKind, matrixPick(r, "LLM", "tool", "AGENT", "CHAIN", "RERANKER", "embedding", "retriever"))
		}
	})
	maybe(func() { a.PutStr(semconv.TLSpanKind, matrixPick(r, "workflow", "TOOL", "task", "Agent", "x")) })
	maybe(func() {
		a.PutStr(semconv.AIOperationID, matrixPick(r, "", "ai.toolCall", "ai.streamText", "ai.streamText.doStream", "ai.embedMany", "x.doEmbed", "ai.generateObject", "ai.nope"))
	})
	maybe(func() { a.PutStr(semconv.TLRequestType, matrixPick(r, "chat", "")) })
	maybe(func() {
		if r.IntN(3) == 0 {
			a.PutInt(semconv.ToolName, 3)
		} else {
			a.PutStr(semconv.ToolName, matrixPick(r, "search", "get_weather"))
		}
	})
	maybe(func() { a.PutStr(semconv.System, matrixPick(r, "openai", "anthropic")) })
	maybe(func() { a.PutStr(semconv.RequestModel, matrixPick(r, "gpt-4o", "gpt-4o-mini")) })
	maybe(func() { a.PutStr(semconv.ResponseModel, matrixPick(r, "gpt-4o", "gpt-4o-2024-08-06")) })
	// Every source key of the dialect table, now and then, mostly with the
	// type it needs.
	for _, fi := range semconv.Table() {
		for _, src := range fi.Sources {
			if r.IntN(6) == 0 {
				matrixValue(r, a, src.Key, src.Type)
			}
		}
	}
	// Values that test the rules: lossless promotion, conditions, sizes.
	maybe(func() { a.PutStr(semconv.OIModelName, "oi-model") })
	maybe(func() { a.PutStr(semconv.AIModelID, "vercel-model") })
	maybe(func() { a.PutStr(semconv.OIRequestModelName, matrixPick(r, "oi-req", "oi-model")) })
	maybe(func() { a.PutStr(semconv.OIInputValue, matrixPick(r, `{"q": 1}`, "plain text", " [1]")) })
	maybe(func() { a.PutStr(semconv.OIOutputValue, matrixPick(r, "[1,2]", "line1\nline2", "{bad json}")) })
	maybe(func() { a.PutStr(semconv.TLEntityName, "entity") })
	maybe(func() { a.PutStr(semconv.TLEntityInput, "{}") })
	maybe(func() { a.PutStr(semconv.TLEntityOutput, "out") })
	maybe(func() { a.PutStr(semconv.OIToolName, "oi-tool") })
	maybe(func() { a.PutStr(semconv.OIToolID, "oi-id") })
	maybe(func() { a.PutStr(semconv.AIToolCallName, "ai-tool") })
	maybe(func() { a.PutStr(semconv.AIToolCallID, "ai-id") })
	maybe(func() { a.PutStr(semconv.AIToolCallArgs, `{"a":[1,2,{"b":null}]}`) })
	maybe(func() {
		switch r.IntN(3) {
		case 0:
			a.PutStr(semconv.ErrorType, "TimeoutError")
		case 1:
			a.PutStr(semconv.ErrorType, "error")
		default:
			a.PutInt(semconv.ErrorType, 504)
		}
	})
	maybe(func() {
		s := a.PutEmptySlice(semconv.ResponseFinishReasons)
		switch r.IntN(3) {
		case 0:
			s.AppendEmpty().SetStr("stop")
		case 1:
			s.AppendEmpty().SetStr("stop")
			s.AppendEmpty().SetInt(3)
		}
	})
	maybe(func() { a.PutStr(semconv.AIFinishReason, "tool-calls") })
	maybe(func() { a.PutStr(semconv.TLFinishReason, "length") })
	maybe(func() { a.PutStr(semconv.OIFinishReason, "stop") })
	for _, k := range []string{semconv.UsageInputTokens, semconv.UsagePromptTokens, semconv.OITokensPrompt, semconv.AIUsageInputTokens,
		semconv.UsageOutputTokens, semconv.UsageCompletionTokens, semconv.AIUsageCompletion,
		semconv.UsageCacheReadInput, semconv.TLCacheReadInput, semconv.UsageCacheCreationInput, semconv.UsageCacheWriteInputGenAI,
		semconv.UsageReasoningOutput, semconv.AIUsageReasoningV7} {
		maybe(func() {
			if r.IntN(4) == 0 {
				a.PutDouble(k, 12.0)
			} else {
				a.PutInt(k, int64(r.IntN(5000)))
			}
		})
	}
	maybe(func() {
		switch r.IntN(4) {
		case 0:
			a.PutDouble(semconv.UsageCost, 0.00123)
		case 1:
			a.PutInt(semconv.UsageCost, 1)
		case 2:
			a.PutDouble(semconv.UsageCost, math.NaN())
		default:
			a.PutDouble(semconv.UsageCost, math.Inf(-1))
		}
	})
	maybe(func() { a.PutDouble(semconv.OperationCost, 2.5e-7) })
	maybe(func() {
		if r.IntN(2) == 0 {
			res := a.PutEmptyMap(semconv.ToolCallResult)
			res.PutDouble("f", 1.5)
			res.PutDouble("big", 1234567.0)
			res.PutDouble("tiny", 0.0001)
			res.PutDouble("huge", 1e21)
			res.PutDouble("whole", 300)
			res.PutDouble("neg", -0.5)
			res.PutEmptyBytes("raw").FromRaw([]byte("\x00\x01binary"))
			res.PutEmptyMap("tagged").PutInt("@x", 1)
			res.PutStr("text", "résumé ☃ \u2028 \"q\"\t\x01 <b>")
			l := res.PutEmptySlice("list")
			l.AppendEmpty().SetInt(-7)
			l.AppendEmpty().SetBool(false)
			l.AppendEmpty()
			l.AppendEmpty().SetDouble(math.Inf(1))
		} else {
			a.PutStr(semconv.ToolCallResult, matrixPick(r, "résumé ☃ ok", `{"ok": true}`, "multi\nline"))
		}
	})
	maybe(func() {
		a.PutStr(semconv.ToolCallArguments, matrixPick(r, `{"x": 1}`, ` {"x":1}`, `[1,2`, `"just a string"`))
	})
	maybe(func() {
		msgs := a.PutEmptySlice(semconv.InputMessages)
		m := msgs.AppendEmpty().SetEmptyMap()
		m.PutStr("role", "user")
		m.PutEmptySlice("parts").AppendEmpty().SetEmptyMap().PutStr("content", "hi")
	})
	maybe(func() { a.PutStr(semconv.Prompt, `[{"role":"user","content":"hello"}]`) })
	maybe(func() { a.PutStr(semconv.SystemInstructions, "Be brief.") })
	maybe(func() {
		if r.IntN(2) == 0 {
			a.PutInt(semconv.EstimatedTokens, 42)
		} else {
			a.PutDouble(semconv.EstimatedTokens, 4.2)
		}
	})
	maybe(func() { a.PutStr(semconv.OISessionID, "sess-1") })
	maybe(func() { a.PutStr(semconv.ConversationID, matrixPick(r, "conv-1", "conv-2")) })
	maybe(func() { a.PutStr(semconv.AgentName, "planner") })
	maybe(func() { a.PutStr(semconv.OIAgentName, "oi-agent") })
	maybe(func() { a.PutStr(semconv.AgentID, "agent-7") })
	maybe(func() { a.PutStr(semconv.ResponseID, "resp-1") })
	maybe(func() { a.PutStr(semconv.AIResponseID, "ai-resp") })
	// Attributes that stay attributes, of every type and some hostile keys.
	maybe(func() { a.PutEmptyMap("__proto__").PutBool("polluted", true) })
	maybe(func() { a.PutStr("constructor", "c") })
	maybe(func() { a.PutEmptyBytes("bytes.attr").FromRaw([]byte{0xff, 0, 1}) })
	maybe(func() { a.PutEmpty("empty.attr") })
	maybe(func() { a.PutDouble("dbl.attr", 300) })
	maybe(func() { a.PutInt("int.attr", -9007199254740991) })
	maybe(func() { a.PutEmptyMap("one.tag").PutStr("@bytes", "not bytes") })
}

func matrixPick(r *rand.Rand, opts ...string) string { return opts[r.IntN(len(opts))] }

// matrixValue puts a value for key that has the type typ (a type name of
// semconv.Table) five times in six, and one of another type otherwise.
func matrixValue(r *rand.Rand, a pcommon.Map, key, typ string) {
	if r.IntN(6) == 0 {
		typ = matrixPick(r, "string", "int", "double", "strings", "bool")
	}
	switch typ {
	case "string":
		a.PutStr(key, matrixPick(r, "gpt-4o", "gpt-4o-mini", "Chat", "chat", "execute_tool", "error", "x y"))
	case "int":
		a.PutInt(key, int64(r.IntN(100000))-10)
	case "double":
		a.PutDouble(key, r.Float64()*matrixPick2(r, 1e-6, 1, 1e7))
	case "strings":
		s := a.PutEmptySlice(key)
		for range r.IntN(3) {
			s.AppendEmpty().SetStr(matrixPick(r, "stop", "length", "tool_calls"))
		}
	case "json":
		switch r.IntN(3) {
		case 0:
			a.PutStr(key, matrixPick(r, `{"a": 1}`, `[1,"two"]`, "plain", "{\"multi\":\n1}"))
		case 1:
			m := a.PutEmptyMap(key)
			m.PutDouble("d", 1e-7)
			m.PutStr("s", "ünïcode ✓")
		default:
			l := a.PutEmptySlice(key)
			l.AppendEmpty().SetEmptyMap().PutInt("n", 1)
		}
	default:
		a.PutBool(key, true)
	}
}

func matrixPick2(r *rand.Rand, opts ...float64) float64 { return opts[r.IntN(len(opts))] }

// followAll is run in the page: every case read whole with parse and line
// by line with follow, as the live page reads a growing file. It returns,
// per case, whether the two gave the same records (the synthesized root of
// a tool-dispatch file comes only at the end of a whole read) and the
// record counts.
const followAll = `(() => {
  const dialects = JSON.parse(document.getElementById('at-dialects').textContent);
  const cases = JSON.parse(document.getElementById('cases').textContent);
  return JSON.stringify(cases.map((c) => {
    const whole = ATIngest.parse(c.text, c.file, dialects).runs[0].records;
    const f = ATIngest.follow(c.file, dialects);
    const live = [];
    c.text.split('\n').forEach((line, i) => { if (line) live.push(...f.push(line, i + 1).records); });
    const ids = new Set(live.map((r) => r.span_id));
    const want = whole.filter((r) => ids.has(r.span_id) || r.line);
    return { same: JSON.stringify(want) === JSON.stringify(live), whole: whole.length, live: live.length };
  }));
})()`

// The live page's reader (follow) makes of each line what parse makes of
// the whole file: the same records, with their line numbers.
func TestIngestFollowAgreesWithParse(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join(repoTestdata, "golden", "*.jsonl"))
	require.NoError(t, err)
	legacy, err := filepath.Glob(filepath.Join(repoTestdata, "legacy", "*.jsonl"))
	require.NoError(t, err)
	paths = append(paths, legacy...)
	require.NotEmpty(t, legacy)
	var cases []ingestCase
	for _, p := range paths {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		cases = append(cases, ingestCase{File: filepath.Base(p), Text: string(b)})
	}
	page := ingestPage(t, cases)
	ctx := browsertest.New(t)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(browsertest.FileURL(t, page))))
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[string](followAll))
	require.NoError(t, err)
	var got []struct {
		Same        bool
		Whole, Live int
	}
	require.NoError(t, json.Unmarshal([]byte(raw), &got))
	require.Len(t, got, len(cases))
	for i, g := range got {
		require.True(t, g.Same, "%s: follow and parse disagree", cases[i].File)
		require.Positive(t, g.Live, cases[i].File)
	}
}
