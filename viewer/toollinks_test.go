package viewer_test

import (
	"bytes"
	"cmp"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/semconv"
	"github.com/agenttrace/agenttrace/viewer"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// viewLink is one tool part of a run's view model and where Go linked it.
type viewLink struct {
	rec      string // the record's span id
	list     string // "input" or "output"
	msg, idx int    // the message and the part in it
	typ      string // tool_call or tool_call_response
	name, id string // the part's tool name (calls) and tool call id
	span     string // tool_span: the linked span id, "" when none
}

// viewLinks reads the tool parts of run's view model, as the page gets it.
func viewLinks(t *testing.T, run viewer.Run) (links []viewLink, records map[string]map[string]any) {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, viewer.WriteRunJSON(&buf, run))
	type part struct {
		Type     string `json:"type"`
		Name     string `json:"name"`
		ID       string `json:"id"`
		ToolSpan string `json:"tool_span"`
	}
	type msg struct {
		Parts []part `json:"parts"`
	}
	var v struct {
		Records []json.RawMessage `json:"records"`
	}
	require.NoError(t, json.Unmarshal(buf.Bytes(), &v))
	records = map[string]map[string]any{}
	for _, raw := range v.Records {
		var r struct {
			SpanID       string `json:"span_id"`
			Conversation struct {
				Input  []msg `json:"input"`
				Output []msg `json:"output"`
			} `json:"conversation"`
		}
		require.NoError(t, json.Unmarshal(raw, &r))
		var all map[string]any
		require.NoError(t, json.Unmarshal(raw, &all))
		records[r.SpanID] = all
		for _, l := range []struct {
			name string
			ms   []msg
		}{{"input", r.Conversation.Input}, {"output", r.Conversation.Output}} {
			for mi, m := range l.ms {
				for pi, p := range m.Parts {
					if p.Type != semconv.PartToolCall && p.Type != semconv.PartToolResponse {
						assert.Empty(t, p.ToolSpan, "a %s part has no tool span", p.Type)
						continue
					}
					links = append(links, viewLink{rec: r.SpanID, list: l.name, msg: mi, idx: pi, typ: p.Type, name: p.Name, id: p.ID, span: p.ToolSpan})
				}
			}
		}
	}
	return links, records
}

// span is a hand-made span of a test run.
type span struct {
	name          string // span name, unique in the run: the tests name spans by it
	trace, parent string // trace (default "t") and parent span name
	start         int    // ms into the run
	op            string // gen_ai.operation.name
	tool, callID  string // gen_ai.tool.name, gen_ai.tool.call.id
	in, out       string // gen_ai.input.messages, gen_ai.output.messages
}

// handRun builds a run from spans; span ids follow the spans' order.
func handRun(spans []span) (viewer.Run, map[string]string) {
	td := ptrace.NewTraces()
	ss := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty()
	ids := map[string]pcommon.SpanID{}
	names := map[string]string{}
	for i, s := range spans {
		var id pcommon.SpanID
		id[7] = byte(i + 1)
		ids[s.name] = id
		names[id.String()] = s.name
	}
	t0 := time.Date(2026, 5, 4, 14, 0, 0, 0, time.UTC)
	for _, s := range spans {
		sp := ss.Spans().AppendEmpty()
		var tid pcommon.TraceID
		copy(tid[:], cmp.Or(s.trace, "t"))
		sp.SetTraceID(tid)
		sp.SetSpanID(ids[s.name])
		if s.parent != "" {
			sp.SetParentSpanID(ids[s.parent])
		}
		sp.SetName(s.name)
		sp.SetStartTimestamp(pcommon.NewTimestampFromTime(t0.Add(time.Duration(s.start) * time.Millisecond)))
		sp.SetEndTimestamp(pcommon.NewTimestampFromTime(t0.Add(time.Duration(s.start+5) * time.Millisecond)))
		a := sp.Attributes()
		for _, kv := range [][2]string{
			{semconv.OperationName, s.op}, {semconv.ToolName, s.tool}, {semconv.ToolCallID, s.callID},
			{semconv.InputMessages, s.in}, {semconv.OutputMessages, s.out},
		} {
			if kv[1] != "" {
				a.PutStr(kv[0], kv[1])
			}
		}
		if s.op == "chat" {
			a.PutStr(semconv.ProviderName, "openai")
			a.PutStr(semconv.RequestModel, "m")
		}
	}
	recs := artifact.Records(td)
	artifact.SortRecords(recs)
	return viewer.Run{Name: "hand", Records: recs}, names
}

// Message JSON for the hand-made spans.
func call(id, name string) string {
	return fmt.Sprintf(`{"type":"tool_call","id":%q,"name":%q,"arguments":{}}`, id, name)
}
func result(id string) string {
	return fmt.Sprintf(`{"type":"tool_call_response","id":%q,"response":"ok"}`, id)
}
func text(s string) string { return fmt.Sprintf(`{"type":"text","content":%q}`, s) }
func msg(role string, parts ...string) string {
	return fmt.Sprintf(`{"role":%q,"parts":[%s]}`, role, strings.Join(parts, ","))
}
func msgs(m ...string) string { return "[" + strings.Join(m, ",") + "]" }

// TestToolLinks: each tool call and tool result part of a run's messages
// links to the tool span that ran it, by tool call id, else by its place
// among the calls of its tool name; want lists every tool part of the run
// as "record list message.part" and the tool span it links to ("" none).
func TestToolLinks(t *testing.T) {
	user := msg("user", text("weather in Paris and Rome?"))
	cases := []struct {
		name  string
		spans []span
		want  map[string]string
	}{{
		name: "ids present",
		spans: []span{
			{name: "chat1", start: 0, op: "chat", in: msgs(user), out: msgs(msg("assistant", call("c1", "weather")))},
			{name: "tool1", start: 10, op: "execute_tool", tool: "weather", callID: "c1"},
			{name: "chat2", start: 20, op: "chat", in: msgs(user, msg("assistant", call("c1", "weather")), msg("tool", result("c1"))), out: msgs(msg("assistant", text("sunny")))},
		},
		want: map[string]string{"chat1 output 0.0": "tool1", "chat2 input 1.0": "tool1", "chat2 input 2.0": "tool1"},
	}, {
		name: "ids missing",
		spans: []span{
			{name: "chat1", start: 0, op: "chat", in: msgs(user), out: msgs(msg("assistant", call("", "weather")))},
			{name: "tool1", start: 10, op: "execute_tool", tool: "weather"},
			{name: "chat2", start: 20, op: "chat", in: msgs(user, msg("assistant", call("", "weather")), msg("tool", result(""))), out: msgs(msg("assistant", text("sunny")))},
		},
		want: map[string]string{"chat1 output 0.0": "tool1", "chat2 input 1.0": "tool1", "chat2 input 2.0": "tool1"},
	}, {
		name: "ids on the parts only: by place",
		spans: []span{
			{name: "chat1", start: 0, op: "chat", in: msgs(user), out: msgs(msg("assistant", call("c1", "weather"), call("c2", "weather")))},
			{name: "toolA", start: 10, op: "execute_tool", tool: "weather"},
			{name: "toolB", start: 11, op: "execute_tool", tool: "weather"},
			// The results come back in the other order: each takes its call's place by id.
			{name: "chat2", start: 20, op: "chat", in: msgs(user, msg("assistant", call("c1", "weather"), call("c2", "weather")), msg("tool", result("c2")), msg("tool", result("c1")))},
		},
		want: map[string]string{
			"chat1 output 0.0": "toolA", "chat1 output 0.1": "toolB",
			"chat2 input 1.0": "toolA", "chat2 input 1.1": "toolB", "chat2 input 2.0": "toolB", "chat2 input 3.0": "toolA",
		},
	}, {
		// The ids decide even where the places would say otherwise.
		name: "ids on the parts and the tool spans: by id",
		spans: []span{
			{name: "chat1", start: 0, op: "chat", in: msgs(user), out: msgs(msg("assistant", call("c1", "weather"), call("c2", "weather")))},
			{name: "toolA", start: 10, op: "execute_tool", tool: "weather", callID: "c2"},
			{name: "toolB", start: 11, op: "execute_tool", tool: "weather", callID: "c1"},
			{name: "chat2", start: 20, op: "chat", in: msgs(user, msg("assistant", call("c1", "weather"), call("c2", "weather")), msg("tool", result("c1")), msg("tool", result("c2")))},
		},
		want: map[string]string{
			"chat1 output 0.0": "toolB", "chat1 output 0.1": "toolA",
			"chat2 input 1.0": "toolB", "chat2 input 1.1": "toolA", "chat2 input 2.0": "toolB", "chat2 input 3.0": "toolA",
		},
	}, {
		name: "two calls of one tool in parallel, results without ids",
		spans: []span{
			{name: "chat1", start: 0, op: "chat", in: msgs(user), out: msgs(msg("assistant", call("", "weather"), call("", "weather")))},
			{name: "toolB", start: 12, op: "execute_tool", tool: "weather"},
			{name: "toolA", start: 11, op: "execute_tool", tool: "weather"}, // starts first: the first call's
			{name: "chat2", start: 20, op: "chat", in: msgs(user, msg("assistant", call("", "weather"), call("", "weather")), msg("tool", result("")), msg("tool", result("")))},
		},
		want: map[string]string{
			"chat1 output 0.0": "toolA", "chat1 output 0.1": "toolB",
			"chat2 input 1.0": "toolA", "chat2 input 1.1": "toolB", "chat2 input 2.0": "toolA", "chat2 input 3.0": "toolB",
		},
	}, {
		name: "parallel calls of two tools: by name",
		spans: []span{
			{name: "chat1", start: 0, op: "chat", in: msgs(user), out: msgs(msg("assistant", call("", "weather"), call("", "time")))},
			{name: "toolTime", start: 10, op: "execute_tool", tool: "time"},
			{name: "toolWeather", start: 11, op: "execute_tool", tool: "weather"},
			{name: "chat2", start: 20, op: "chat", in: msgs(user, msg("assistant", call("", "weather"), call("", "time")), msg("tool", result(""), result("")))},
		},
		want: map[string]string{
			"chat1 output 0.0": "toolWeather", "chat1 output 0.1": "toolTime",
			"chat2 input 1.0": "toolWeather", "chat2 input 1.1": "toolTime", "chat2 input 2.0": "toolWeather", "chat2 input 2.1": "toolTime",
		},
	}, {
		name: "calls asked for by earlier model calls",
		spans: []span{
			{name: "chat1", start: 0, op: "chat", in: msgs(user), out: msgs(msg("assistant", call("", "weather")))},
			{name: "tool1", start: 10, op: "execute_tool", tool: "weather"},
			{name: "chat2", start: 20, op: "chat", in: msgs(user, msg("assistant", call("", "weather")), msg("tool", result(""))), out: msgs(msg("assistant", call("", "weather")))},
			{name: "tool2", start: 30, op: "execute_tool", tool: "weather"},
			{name: "chat3", start: 40, op: "chat", in: msgs(user, msg("assistant", call("", "weather")), msg("tool", result("")), msg("assistant", call("", "weather")), msg("tool", result(""))), out: msgs(msg("assistant", text("done")))},
		},
		want: map[string]string{
			"chat1 output 0.0": "tool1",
			"chat2 input 1.0":  "tool1", "chat2 input 2.0": "tool1", "chat2 output 0.0": "tool2",
			"chat3 input 1.0": "tool1", "chat3 input 2.0": "tool1", "chat3 input 3.0": "tool2", "chat3 input 4.0": "tool2",
		},
	}, {
		name: "the conventions' span name names the tool",
		spans: []span{
			{name: "chat1", start: 0, op: "chat", in: msgs(user), out: msgs(msg("assistant", call("", "weather")))},
			{name: "execute_tool weather", start: 10, op: "execute_tool"},
		},
		want: map[string]string{"chat1 output 0.0": "execute_tool weather"},
	}, {
		name: "an id no tool span has, more calls than tool spans",
		spans: []span{
			{name: "chat1", start: 0, op: "chat", in: msgs(user), out: msgs(msg("assistant", call("", "weather"), call("", "weather")))},
			{name: "tool1", start: 10, op: "execute_tool", tool: "weather"},
			{name: "chat2", start: 20, op: "chat", in: msgs(user, msg("tool", result("c9"))), out: msgs(msg("assistant", text("?")))},
		},
		want: map[string]string{"chat1 output 0.0": "tool1", "chat1 output 0.1": "", "chat2 input 1.0": ""},
	}, {
		name: "no tool span traced",
		spans: []span{
			{name: "chat1", start: 0, op: "chat", in: msgs(user), out: msgs(msg("assistant", call("c1", "weather")))},
			{name: "chat2", start: 20, op: "chat", in: msgs(user, msg("assistant", call("c1", "weather")), msg("tool", result("c1"))), out: msgs(msg("assistant", text("sunny")))},
		},
		want: map[string]string{"chat1 output 0.0": "", "chat2 input 1.0": "", "chat2 input 2.0": ""},
	}, {
		name: "a tool span of another trace",
		spans: []span{
			{name: "chat1", start: 0, op: "chat", in: msgs(user), out: msgs(msg("assistant", call("c1", "weather")))},
			{name: "tool1", trace: "u", start: 10, op: "execute_tool", tool: "weather", callID: "c1"},
		},
		want: map[string]string{"chat1 output 0.0": ""},
	}, {
		// OpenLLMetry's chat span around the Anthropic SDK's own: the
		// content is on the wrapper, the leaf shows it too, and each
		// call is counted once, not once per span that shows it.
		name: "double instrumentation",
		spans: []span{
			{name: "wrap1", start: 0, op: "chat", in: msgs(user), out: msgs(msg("assistant", call("", "weather")))},
			{name: "leaf1", parent: "wrap1", start: 1, op: "chat"},
			{name: "tool1", start: 10, op: "execute_tool", tool: "weather"},
			{name: "wrap2", start: 20, op: "chat", in: msgs(user, msg("assistant", call("", "weather")), msg("tool", result(""))), out: msgs(msg("assistant", call("", "weather")))},
			{name: "leaf2", parent: "wrap2", start: 21, op: "chat"},
			{name: "tool2", start: 30, op: "execute_tool", tool: "weather"},
		},
		want: map[string]string{
			"wrap1 output 0.0": "tool1", "leaf1 output 0.0": "tool1",
			"wrap2 input 1.0": "tool1", "wrap2 input 2.0": "tool1", "wrap2 output 0.0": "tool2",
			"leaf2 input 1.0": "tool1", "leaf2 input 2.0": "tool1", "leaf2 output 0.0": "tool2",
		},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			run, names := handRun(c.spans)
			links, _ := viewLinks(t, run)
			got := map[string]string{}
			for _, l := range links {
				got[fmt.Sprintf("%s %s %d.%d", names[l.rec], l.list, l.msg, l.idx)] = names[l.span]
			}
			assert.Equal(t, c.want, got)
		})
	}
}

// TestToolLinksReal: on every payload captured from the real libraries,
// the links are those of testdata/toollinks.golden (go test -update
// rewrites it), and every link goes to a tool span of the part's trace
// that ran the part's tool, with the part's tool call id when both have
// one; a part whose trace holds exactly one tool span of its call's tool
// name is linked.
func TestToolLinksReal(t *testing.T) {
	traces, err := filepath.Glob(filepath.Join(realDir, "*", "payloads", "*.traces.pb"))
	require.NoError(t, err)
	require.NotEmpty(t, traces)
	var golden bytes.Buffer
	golden.WriteString("# The tool links Go computes for every payload captured from the real libraries\n")
	golden.WriteString("# (testdata/real/<library>/payloads/<scenario>.traces.pb, with its .logs.pb when there is one;\n")
	golden.WriteString("# how they were captured: testdata/real/README.md). Written by TestToolLinksReal with -update.\n")
	golden.WriteString("# payload: record [span id] list message.part type tool (id) -> tool span [span id]\n")
	linked := 0
	for _, tp := range traces {
		lib := filepath.Base(filepath.Dir(filepath.Dir(tp)))
		scenario := strings.TrimSuffix(filepath.Base(tp), ".traces.pb")
		_, err := os.Stat(filepath.Join(filepath.Dir(tp), scenario+".logs.pb"))
		run := realRun(t, lib, scenario, err == nil)
		links, recs := viewLinks(t, run)
		if len(links) == 0 {
			continue
		}
		str := func(r map[string]any, k string) string { s, _ := r[k].(string); return s }
		// The tool spans per trace and tool name.
		var rd semconv.Reading
		byName := map[string]int{}
		for i := range run.Records {
			run.Records[i].Read(&rd)
			if rd.Kind == semconv.Call {
				byName[run.Records[i].Span.TraceID().String()+"/"+rd.ToolName(run.Records[i].Span.Name())]++
			}
		}
		t.Run(lib+"/"+scenario, func(t *testing.T) {
			callName := map[string]string{} // a call's tool name by record and id, for results
			for _, l := range links {
				if l.typ == semconv.PartToolCall && l.id != "" {
					callName[l.rec+"/"+l.id] = l.name
				}
			}
			for _, l := range links {
				from := recs[l.rec]
				name := l.name
				if l.typ == semconv.PartToolResponse {
					name = callName[l.rec+"/"+l.id]
				}
				where := fmt.Sprintf("%s %s %d.%d", str(from, "name"), l.list, l.msg, l.idx)
				if l.span == "" {
					if name != "" {
						assert.NotEqual(t, 1, byName[str(from, "trace_id")+"/"+name], "%s: the one %s tool span of its trace is not linked", where, name)
					}
					continue
				}
				to := recs[l.span]
				require.NotNil(t, to, "%s links to %s, no record of the run", where, l.span)
				assert.Equal(t, "call", to["kind"], where)
				assert.Equal(t, str(from, "trace_id"), str(to, "trace_id"), where)
				if name != "" {
					assert.Contains(t, []string{str(to, "tool"), str(to, "name"), "execute_tool " + str(to, "tool")}, name, "%s: a %s part links to a tool span of another tool", where, name)
				}
				if l.id != "" && str(to, "tool_call_id") != "" {
					assert.Equal(t, l.id, str(to, "tool_call_id"), where)
				}
			}
		})
		for _, l := range links {
			to, via := "-", ""
			if l.span != "" {
				linked++
				to = fmt.Sprintf("%s [%s]", recs[l.span]["name"], l.span)
				if id := str(recs[l.span], "tool_call_id"); id != "" {
					via = " (" + id + ")"
				}
			}
			fmt.Fprintf(&golden, "%s/%s: %s [%s] %s %d.%d %s %s (%s) -> %s%s\n", lib, scenario, recs[l.rec]["name"], l.rec, l.list, l.msg, l.idx, l.typ, l.name, l.id, to, via)
		}
	}
	assert.Positive(t, linked, "no payload has a linked tool part")
	path := filepath.Join("testdata", "toollinks.golden")
	if *update {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(path, golden.Bytes(), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "go test -run TestToolLinksReal -update ./viewer/ writes it")
	assert.Equal(t, string(want), golden.String())
}

// FuzzToolLinks: whatever messages and tool spans a run holds, its view
// model is JSON, and every link goes to a tool span of the part's trace.
func FuzzToolLinks(f *testing.F) {
	f.Add(msgs(msg("assistant", call("c1", "weather"), call("", "weather"))), msgs(msg("tool", result("c1"), result(""))), "weather", "c1", "")
	f.Add(`[{"role":"assistant","parts":[{"type":"tool_call","name":"x"}]}]`, `not json`, "", "", "u")
	f.Add(`[{"role":"user","content":"hi","tool_calls":[{"id":"a","function":{"name":"w"}}]}]`, `[]`, "w", "a", "")
	f.Fuzz(func(t *testing.T, out, in, tool, callID, trace string) {
		run, _ := handRun([]span{
			{name: "chat1", start: 0, op: "chat", out: out},
			{name: "tool1", start: 5, op: "execute_tool", tool: tool, callID: callID},
			{name: "tool2", trace: trace, start: 6, op: "execute_tool", tool: tool},
			{name: "chat2", start: 10, op: "chat", in: in, out: out},
			{name: "wrap", start: 20, op: "chat", in: in, out: out},
			{name: "leaf", parent: "wrap", start: 21, op: "chat"},
		})
		links, recs := viewLinks(t, run)
		for _, l := range links {
			if l.span == "" {
				continue
			}
			to := recs[l.span]
			require.NotNil(t, to, "a link to %s, no record of the run", l.span)
			require.Equal(t, "call", to["kind"])
			require.Equal(t, recs[l.rec]["trace_id"], to["trace_id"])
		}
	})
}
