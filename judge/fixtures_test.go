package judge_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/internal/artifacttest"
	"github.com/agenttrace/agenttrace/judge"
	"github.com/agenttrace/agenttrace/semconv"
)

var update = flag.Bool("update", false, "rewrite the fixtures in testdata/judge")

// fixtureDir holds the committed fixtures this file generates.
const fixtureDir = "../testdata/judge"

// run builds one agent run as OTLP spans, with ids derived from a seed
// and a label per span, and times as milliseconds after t0, so a fixture
// is the same every time it is generated and tests can name its spans.
type run struct {
	seed  string
	t0    time.Time
	td    ptrace.Traces
	spans ptrace.SpanSlice
	res   pcommon.Resource
}

func newRun(seed string, t0 time.Time) *run {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", "judge-fixture")
	ss := rs.ScopeSpans().AppendEmpty()
	ss.Scope().SetName("github.com/agenttrace/agenttrace/judge/fixtures")
	return &run{seed: seed, t0: t0, td: td, spans: ss.Spans(), res: rs.Resource()}
}

// traceID is the run's trace id.
func (r *run) traceID() pcommon.TraceID {
	h := sha256.Sum256([]byte(r.seed))
	var id pcommon.TraceID
	copy(id[:], h[:16])
	return id
}

// id is the span id of the span labelled label.
func (r *run) id(label string) pcommon.SpanID {
	h := sha256.Sum256([]byte(r.seed + "/" + label))
	var id pcommon.SpanID
	copy(id[:], h[:8])
	return id
}

// sid is id as hex, the way findings and reports name spans.
func (r *run) sid(label string) string { return r.id(label).String() }

// span adds a span; parent "" makes a root.
func (r *run) span(label, parent, name string, from, to int, attrs map[string]any) ptrace.Span {
	sp := r.spans.AppendEmpty()
	sp.SetTraceID(r.traceID())
	sp.SetSpanID(r.id(label))
	if parent != "" {
		sp.SetParentSpanID(r.id(parent))
	}
	sp.SetName(name)
	sp.SetKind(ptrace.SpanKindInternal)
	sp.SetFlags(0x101) // sampled, parent known to be local
	sp.SetStartTimestamp(pcommon.NewTimestampFromTime(r.t0.Add(time.Duration(from) * time.Millisecond)))
	sp.SetEndTimestamp(pcommon.NewTimestampFromTime(r.t0.Add(time.Duration(to) * time.Millisecond)))
	putSorted(sp.Attributes(), attrs)
	return sp
}

// putSorted puts attrs into m in key order, and nested maps likewise:
// pcommon's FromRaw follows Go's map order, which changes every run, and
// the fixtures must come out the same every time.
func putSorted(m pcommon.Map, attrs map[string]any) {
	for _, k := range slices.Sorted(maps.Keys(attrs)) {
		setValue(m.PutEmpty(k), attrs[k])
	}
}

func setValue(v pcommon.Value, x any) {
	switch x := x.(type) {
	case map[string]any:
		putSorted(v.SetEmptyMap(), x)
	case []any:
		s := v.SetEmptySlice()
		for _, e := range x {
			setValue(s.AppendEmpty(), e)
		}
	case string:
		v.SetStr(x)
	case int:
		v.SetInt(int64(x))
	case int64:
		v.SetInt(x)
	case float64:
		v.SetDouble(x)
	case bool:
		v.SetBool(x)
	case nil:
	default:
		panic(fmt.Sprintf("unsupported attribute value %T", x))
	}
}

// find returns the span labelled label.
func (r *run) find(label string) ptrace.Span {
	id := r.id(label)
	for _, sp := range r.spans.All() {
		if sp.SpanID() == id {
			return sp
		}
	}
	panic("no span " + label)
}

// drop removes the span labelled label.
func (r *run) drop(label string) {
	id := r.id(label)
	r.spans.RemoveIf(func(sp ptrace.Span) bool { return sp.SpanID() == id })
}

func fail(sp ptrace.Span, code, msg string) ptrace.Span {
	sp.Status().SetCode(ptrace.StatusCodeError)
	sp.Status().SetMessage(msg)
	sp.Attributes().PutStr(semconv.ErrorType, code)
	return sp
}

func (r *run) agent(label, parent, name string, from, to int, in, out int64) ptrace.Span {
	return r.span(label, parent, "invoke_agent "+name, from, to, map[string]any{
		semconv.OperationName: semconv.OpInvokeAgent, semconv.AgentName: name,
		semconv.UsageInputTokens: in, semconv.UsageOutputTokens: out,
	})
}

// chat adds an inference; input and output are JSON-valued (a string
// holding JSON, or a structured value), nil to leave them out.
func (r *run) chat(label, parent string, from, to int, in, out int64, input, output any, finish ...string) ptrace.Span {
	attrs := map[string]any{
		semconv.OperationName: semconv.OpChat, semconv.ProviderName: "openai", semconv.RequestModel: "gpt-4o",
		semconv.UsageInputTokens: in, semconv.UsageOutputTokens: out,
	}
	if input != nil {
		attrs[semconv.InputMessages] = input
	}
	if output != nil {
		attrs[semconv.OutputMessages] = output
	}
	if len(finish) > 0 {
		fr := make([]any, len(finish))
		for i, f := range finish {
			fr[i] = f
		}
		attrs[semconv.ResponseFinishReasons] = fr
	}
	sp := r.span(label, parent, "chat gpt-4o", from, to, attrs)
	sp.SetKind(ptrace.SpanKindClient)
	return sp
}

// tool adds a call record; callID "" leaves the id out, args or result
// nil leaves them out.
func (r *run) tool(label, parent, tool, callID string, from, to int, args, result any) ptrace.Span {
	attrs := map[string]any{semconv.OperationName: semconv.OpExecuteTool, semconv.ToolName: tool}
	if callID != "" {
		attrs[semconv.ToolCallID] = callID
	}
	if args != nil {
		attrs[semconv.ToolCallArguments] = args
	}
	if result != nil {
		attrs[semconv.ToolCallResult] = result
	}
	return r.span(label, parent, "execute_tool "+tool, from, to, attrs)
}

// records returns the run as records, in artifact order.
func (r *run) records() []artifact.Record { return artifact.Records(r.td) }

// jsonl writes the run as an artifact; redacted sets the header's flag.
func (r *run) jsonl(t testing.TB, redacted bool) []byte {
	t.Helper()
	recs := r.records()
	meta := artifact.MetaFor(recs)
	meta.Redacted = redacted
	var buf bytes.Buffer
	w := artifact.NewWriter(&buf, meta)
	for i := range recs {
		require.NoError(t, w.Write(&recs[i]))
	}
	require.NoError(t, w.Close())
	return buf.Bytes()
}

// js renders v as a JSON string, the way most instrumentations record
// JSON-valued attributes.
func js(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

type obj = map[string]any
type arr = []any

// The diff fixtures: a shopping agent's tool dispatches, the way the
// tool-dispatch trace records a browser-driving agent.

// diffVariant says how a run of the shopping task differs from the base.
type diffVariant struct {
	seed     string
	t0       time.Time
	jitter   int    // ms added to every call's duration
	query    string // search payload, which varies run to run
	price    float64
	refs     int64
	code3    string // the failure code of the call at position 3
	ref3     string
	extra    bool // one more call at the end
	redacted bool // named fields dropped (the search query)
}

var (
	diffBase = diffVariant{seed: "diff-base", t0: time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC),
		query: "tent 3 person", price: 189.5, refs: 12, code3: "trace.REF_STALE", ref3: "e9"}
	diffRerun = diffVariant{seed: "diff-rerun", t0: time.Date(2026, 6, 2, 14, 30, 0, 0, time.UTC), jitter: 37,
		query: "3 person tent", price: 179, refs: 14, code3: "trace.REF_STALE", ref3: "e11"}
	diffDiverged = diffVariant{seed: "diff-diverged", t0: time.Date(2026, 6, 3, 8, 15, 0, 0, time.UTC), jitter: 12,
		query: "tent 3 person", price: 189.5, refs: 12, code3: "REF_NOT_FOUND", ref3: "e12", extra: true}
	diffRedacted = diffVariant{seed: "diff-redacted", t0: time.Date(2026, 6, 4, 17, 45, 0, 0, time.UTC), jitter: 5,
		query: "tent 3 person", price: 189.5, refs: 12, code3: "REF_NOT_FOUND", ref3: "e9", redacted: true}
)

// diffRun builds the shopping run: navigate, search, click, click (fails
// with code3), snapshot, add_to_cart, and with extra a checkout.
func diffRun(v diffVariant) *run {
	r := newRun(v.seed, v.t0)
	at := 100
	n := 0
	call := func(tool string, args, result any) ptrace.Span {
		label := "call" + string(rune('0'+n))
		sp := r.tool(label, "root", tool, v.seed+"-tc"+string(rune('0'+n)), at, at+200+v.jitter*(n+1), js(args), js(result))
		at += 400 + v.jitter*(n+1)
		n++
		return sp
	}
	call("navigate", obj{"url": "https://shop.example/"}, obj{"ok": true, "title": "Shop"})
	search := obj{"query": v.query, "limit": 3}
	if v.redacted {
		delete(search, "query")
	}
	call("search", search, obj{"ok": true, "offers": arr{
		obj{"id": "o1", "price": 129.0}, obj{"id": "o2", "price": 149.0}, obj{"id": "o3", "price": v.price}}})
	call("click", obj{"ref": "e4"}, obj{"ok": true})
	fail(call("click", obj{"ref": v.ref3}, obj{"ok": false, "error": obj{"code": v.code3, "message": "ref " + v.ref3 + " cannot be used"}}),
		v.code3, "ref "+v.ref3+" cannot be used")
	call("snapshot", obj{}, obj{"ok": true, "refs": v.refs})
	call("add_to_cart", obj{"offer": "o1", "qty": 1}, obj{"ok": true, "cart_total": 129.0})
	if v.extra {
		call("checkout", obj{"cart": "c1"}, obj{"ok": true, "order": "A-1001"})
	}
	r.span("root", "", "invoke_agent shopper", 0, at+100, map[string]any{
		semconv.OperationName: semconv.OpInvokeAgent, semconv.AgentName: "shopper"})
	return r
}

// The audit fixtures: a trip planner that calls tools and delegates to a
// hotel-finder agent. auditRun builds the clean run; each defect plants
// one problem of its category into it.

// tripInput is the conversation so far, as the model sees it at step n.
func tripInput(n int) string {
	msgs := arr{obj{"role": "user", "parts": arr{obj{"type": "text", "content": "Plan 3 days in Lisbon from Berlin on 2026-06-01 for 2."}}}}
	steps := []arr{
		{obj{"role": "assistant", "parts": arr{
			obj{"type": "tool_call", "id": "call_f1", "name": "search_flights", "arguments": obj{"origin": "BER", "destination": "LIS", "date": "2026-06-01", "passengers": 2}},
			obj{"type": "tool_call", "id": "call_w1", "name": "get_weather", "arguments": obj{"city": "Lisbon", "days": 3}}}},
			obj{"role": "tool", "parts": arr{obj{"type": "tool_call_response", "id": "call_f1", "response": obj{"offers": arr{obj{"flight": "TP 571", "price": 142.0}}}}}},
			obj{"role": "tool", "parts": arr{obj{"type": "tool_call_response", "id": "call_w1", "response": "error: timed out"}}}},
		{obj{"role": "assistant", "parts": arr{obj{"type": "tool_call", "id": "call_w2", "name": "get_weather", "arguments": obj{"city": "Lisbon", "days": 3}}}},
			obj{"role": "tool", "parts": arr{obj{"type": "tool_call_response", "id": "call_w2", "response": obj{"highs": arr{24, 25, 23}}}}}},
		{obj{"role": "assistant", "parts": arr{obj{"type": "tool_call", "id": "call_h1", "name": "find_hotels", "arguments": obj{"city": "Lisbon", "nights": 3}}}},
			obj{"role": "tool", "parts": arr{obj{"type": "tool_call_response", "id": "call_h1", "response": "Casa do Largo, 165 EUR a night"}}}},
	}
	for _, s := range steps[:n] {
		msgs = append(msgs, s...)
	}
	return js(msgs)
}

func assistant(parts ...any) string {
	return js(arr{obj{"role": "assistant", "parts": arr(parts), "finish_reason": "stop"}})
}

func toolCall(id, name string, args obj) obj {
	return obj{"type": "tool_call", "id": id, "name": name, "arguments": args}
}

// auditRun builds the clean trip-planner run.
func auditRun() *run {
	r := newRun("audit", time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC))
	// The root's parent is remote (flags 0x300): not an orphan.
	root := r.agent("root", "", "trip-planner", 0, 20000, 3000, 435)
	root.SetParentSpanID(r.id("remote-caller"))
	root.SetFlags(0x301)

	// i1's output is structured (a map in OTLP), the others are strings.
	i1 := r.chat("i1", "root", 100, 1100, 300, 40, tripInput(0), nil, "tool_calls")
	setValue(i1.Attributes().PutEmpty(semconv.OutputMessages), arr{obj{"role": "assistant", "finish_reason": "tool_call", "parts": arr{
		toolCall("call_f1", "search_flights", obj{"origin": "BER", "destination": "LIS", "date": "2026-06-01", "passengers": 2}),
		toolCall("call_w1", "get_weather", obj{"city": "Lisbon", "days": 3})}}})
	// The arguments the call ran with, in another key order and with
	// 2.0 for 2: the same JSON value.
	r.tool("c1", "root", "search_flights", "call_f1", 1200, 2200,
		`{"passengers":2.0,"date":"2026-06-01","destination":"LIS","origin":"BER"}`, js(obj{"offers": arr{obj{"flight": "TP 571", "price": 142.0}}}))
	http := r.span("http1", "c1", "GET", 1250, 2150, map[string]any{"http.request.method": "GET", "url.full": "https://fares.example/v1/offers?from=BER&to=LIS"})
	http.SetKind(ptrace.SpanKindClient)
	fail(r.tool("c2", "root", "get_weather", "call_w1", 1210, 6210, js(obj{"city": "Lisbon", "days": 3}), nil), "TimeoutError", "weather provider did not answer within 5s")

	r.chat("i2", "root", 6300, 7300, 500, 30, tripInput(1),
		assistant(toolCall("call_w2", "get_weather", obj{"city": "Lisbon", "days": 3})), "tool_calls")
	r.tool("c3", "root", "get_weather", "call_w2", 7400, 7900, js(obj{"days": 3, "city": "Lisbon"}), js(obj{"highs": arr{24, 25, 23}}))

	r.chat("i3", "root", 8000, 9000, 700, 25, tripInput(2),
		assistant(toolCall("call_h1", "find_hotels", obj{"city": "Lisbon", "nights": 3})), "tool_calls")
	r.tool("c4", "root", "find_hotels", "call_h1", 9100, 15000, js(obj{"city": "Lisbon", "nights": 3}), "Casa do Largo, 165 EUR a night")

	// The hotel-finder's model answers in OpenAI's shape, and its tool
	// span records no tool call id: it is matched by name.
	r.agent("a2", "c4", "hotel-finder", 9150, 14900, 600, 140)
	r.chat("i4", "a2", 9200, 10000, 200, 20, js(arr{obj{"role": "user", "content": "Hotels in Lisbon, 3 nights, under 180 EUR."}}),
		js(arr{obj{"role": "assistant", "content": nil, "tool_calls": arr{obj{"id": "call_s1", "type": "function",
			"function": obj{"name": "search_hotels", "arguments": `{"city":"Lisbon","max_price":180}`}}}}}), "tool_calls")
	r.tool("c5", "a2", "search_hotels", "", 10100, 11000, js(obj{"city": "Lisbon", "max_price": 180}), js(arr{obj{"name": "Casa do Largo", "price": 165}}))
	r.chat("i5", "a2", 11100, 14800, 400, 120, js(arr{obj{"role": "user", "content": "Hotels in Lisbon, 3 nights, under 180 EUR."}, obj{"role": "tool", "content": "Casa do Largo 165"}}),
		assistant(obj{"type": "text", "content": "Casa do Largo, 165 EUR a night."}), "stop")

	r.chat("i6", "root", 15100, 19900, 900, 200, tripInput(3),
		assistant(obj{"type": "text", "content": "Fly TP 571 for 142 EUR, stay at Casa do Largo; expect 23-25 C."}), "stop")
	return r
}

// defect plants one problem of a category into the clean run, and says
// which spans (by label) and tool call the finding must name.
type defect struct {
	category judge.Category
	plant    func(r *run)
	spans    []string
	toolCall string
}

var defects = []defect{
	{judge.MissingCall, func(r *run) { r.drop("c3") }, []string{"i2"}, "call_w2"},
	{judge.PhantomCall, func(r *run) {
		r.tool("c7", "root", "send_email", "call_x9", 15000, 15050, js(obj{"to": "ana@example.com"}), js(obj{"sent": true}))
	}, []string{"c7"}, "call_x9"},
	{judge.ArgumentDrift, func(r *run) {
		r.find("c1").Attributes().PutStr(semconv.ToolCallArguments, `{"origin":"BER","destination":"OPO","date":"2026-06-01","passengers":2}`)
	}, []string{"i1", "c1"}, "call_f1"},
	{judge.HiddenRetry, func(r *run) {
		// A first attempt at i2 fails; the retry repeats its input.
		i2 := r.find("i2")
		i2.SetStartTimestamp(pcommon.NewTimestampFromTime(r.t0.Add(6500 * time.Millisecond)))
		fail(r.chat("i2-first", "root", 6300, 6400, 0, 0, tripInput(1), nil), "RateLimitError", "429 Too Many Requests")
	}, []string{"i2-first", "i2"}, ""},
	{judge.TokenUnderreport, func(r *run) {
		r.find("root").Attributes().PutInt(semconv.UsageInputTokens, 2000)
	}, []string{"root"}, ""},
	{judge.MissingFinishReason, func(r *run) {
		i5 := r.find("i5").Attributes()
		i5.Remove(semconv.ResponseFinishReasons)
		i5.PutStr(semconv.OutputMessages, js(arr{obj{"role": "assistant", "parts": arr{obj{"type": "text", "content": "Casa do Largo, 165 EUR a night."}}}}))
	}, []string{"i5"}, ""},
	{judge.OrphanSpan, func(r *run) {
		r.find("http1").SetParentSpanID(r.id("lost-parent"))
	}, []string{"http1"}, ""},
	{judge.SilentFailure, func(r *run) {
		// A model call that names itself and nothing else: no usage, no
		// output, status unset.
		r.span("i9", "root", "chat gpt-4o", 15000, 15100, map[string]any{
			semconv.OperationName: semconv.OpChat, semconv.ProviderName: "openai", semconv.RequestModel: "gpt-4o",
		}).SetKind(ptrace.SpanKindClient)
	}, []string{"i9"}, ""},
}

// defectRun returns the clean run with d planted.
func defectRun(d defect) *run {
	r := auditRun()
	d.plant(r)
	return r
}

// fixtures are the committed files, by name, and how to make them.
func fixtures() map[string]func(testing.TB) []byte {
	fs := map[string]func(testing.TB) []byte{
		"diff-base.jsonl":     func(t testing.TB) []byte { return diffRun(diffBase).jsonl(t, false) },
		"diff-rerun.jsonl":    func(t testing.TB) []byte { return diffRun(diffRerun).jsonl(t, false) },
		"diff-diverged.jsonl": func(t testing.TB) []byte { return diffRun(diffDiverged).jsonl(t, false) },
		"diff-redacted.jsonl": func(t testing.TB) []byte { return diffRun(diffRedacted).jsonl(t, true) },
		"audit-clean.jsonl":   func(t testing.TB) []byte { return auditRun().jsonl(t, false) },
	}
	for _, d := range defects {
		fs["audit-"+string(d.category)+".jsonl"] = func(t testing.TB) []byte { return defectRun(d).jsonl(t, false) }
	}
	maps.Copy(fs, twoLayerFixtures())
	return fs
}

// TestFixtures keeps the committed fixtures in step with the runs above,
// and checks that they read without a problem. Run with -update to
// rewrite them.
func TestFixtures(t *testing.T) {
	for name, make := range fixtures() {
		t.Run(name, func(t *testing.T) {
			got := make(t)
			path := filepath.Join(fixtureDir, name)
			if *update {
				require.NoError(t, os.MkdirAll(fixtureDir, 0o755))
				require.NoError(t, os.WriteFile(path, got, 0o644))
			}
			want, err := os.ReadFile(path)
			require.NoError(t, err, "run go test ./judge -run TestFixtures -update")
			require.Equal(t, string(want), string(got))
			artifacttest.Read(t, path) // and reads without a problem
		})
	}
}

// readFixture reads a committed fixture's records and header.
func readFixture(t testing.TB, name string) ([]artifact.Record, *artifact.Meta) {
	t.Helper()
	return artifacttest.Read(t, filepath.Join(fixtureDir, name))
}
