package redact

import (
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"go.opentelemetry.io/collector/pdata/ptrace"
)

// chatSpan is a GenAI chat span as instrumentations write it: a dozen
// attributes, and input and output messages of about 2 KB as JSON.
func chatSpan(tb testing.TB, secret string) ptrace.Span {
	tb.Helper()
	text := "Summarize the following meeting notes for the team. " +
		strings.Repeat("We discussed the roadmap for Q3: the ingestion pipeline, the new viewer, "+
			"and how budgets are counted per conversation.\n", 8)
	input, err := json.Marshal([]any{
		map[string]any{"role": "system", "parts": []any{map[string]any{"type": "text", "content": "You are a helpful assistant."}}},
		map[string]any{"role": "user", "parts": []any{map[string]any{"type": "text", "content": text + secret}}},
		map[string]any{"role": "assistant", "parts": []any{map[string]any{
			"type": "tool_call", "id": "call_1", "name": "search_docs",
			"arguments": `{"query":"roadmap Q3","limit":5,"filters":{"team":"platform","year":2026}}`,
		}}},
		map[string]any{"role": "tool", "parts": []any{map[string]any{
			"type": "tool_call_response", "id": "call_1",
			"response": `[{"title":"Roadmap","snippet":"Ingestion, viewer, budgets"},{"title":"Q3 plan","snippet":"Dates and owners"}]`,
		}}},
	})
	if err != nil {
		tb.Fatal(err)
	}
	output := `[{"role":"assistant","parts":[{"type":"text","content":"The team agreed on three priorities for Q3: ` +
		`the ingestion pipeline, the new viewer and per-conversation budgets. Owners and dates follow in the plan."}],` +
		`"finish_reason":"stop"}]`

	sp := ptrace.NewSpan()
	sp.SetName("chat gpt-4o")
	a := sp.Attributes()
	a.PutStr("gen_ai.operation.name", "chat")
	a.PutStr("gen_ai.provider.name", "openai")
	a.PutStr("gen_ai.request.model", "gpt-4o")
	a.PutStr("gen_ai.response.model", "gpt-4o-2024-08-06")
	a.PutStr("gen_ai.response.id", "chatcmpl-9x8Yz7AbCdEfGhIjKlMnOpQr")
	a.PutStr("gen_ai.conversation.id", "conv_5f1d2c3b")
	a.PutInt("gen_ai.usage.input_tokens", 512)
	a.PutInt("gen_ai.usage.output_tokens", 48)
	a.PutDouble("gen_ai.request.temperature", 0.2)
	a.PutEmptySlice("gen_ai.response.finish_reasons").AppendEmpty().SetStr("stop")
	a.PutStr("server.address", "api.openai.com")
	a.PutStr("gen_ai.system_instructions", `[{"type":"text","content":"You are a helpful assistant."}]`)
	a.PutStr("gen_ai.input.messages", string(input))
	a.PutStr("gen_ai.output.messages", output)
	return sp
}

// BenchmarkSpan measures the common case, a chat span with nothing to
// redact, which every span pays; and a span with one secret to compare.
func BenchmarkSpan(b *testing.B) {
	r := New([]string{"password", "api_key"}, true)
	b.Run("clean", func(b *testing.B) {
		benchClean(b, r, chatSpan(b, ""))
	})
	// The collector exporter's default: the secret scan and no named keys.
	b.Run("clean-no-keys", func(b *testing.B) {
		r := New(nil, true)
		benchClean(b, r, chatSpan(b, ""))
	})
	// Spans whose messages differ from one to the next, as most input
	// messages do: no string is seen twice before it is forgotten, so
	// this is the scan itself (on memory the cache does not hold, as a
	// batch's spans are), with whatever remembering strings costs.
	b.Run("clean-unique", func(b *testing.B) {
		r := New(nil, true)
		spans := make([]ptrace.Span, 4*verdictSlotsUsed)
		for i := range spans {
			spans[i] = chatSpan(b, fmt.Sprintf(" Meeting %d.", i))
		}
		benchClean(b, r, spans...)
	})
	// clean-unique with the ids real spans have: a new response id and
	// conversation id on every span, which no table of verdicts helps
	// with.
	b.Run("clean-unique-ids", func(b *testing.B) {
		r := New(nil, true)
		spans := make([]ptrace.Span, 4*verdictSlotsUsed)
		for i := range spans {
			spans[i] = chatSpan(b, fmt.Sprintf(" Meeting %d.", i))
			spans[i].Attributes().PutStr("gen_ai.response.id", fmt.Sprintf("chatcmpl-%024d", i))
			spans[i].Attributes().PutStr("gen_ai.conversation.id", fmt.Sprintf("conv_%08x", i))
		}
		benchClean(b, r, spans...)
	})
	// The spans of bench/exporter's batches, one op per span: an agent
	// run of seven (the agent, three chat calls, three tool calls) whose
	// messages and names repeat from run to run and whose ids do not.
	b.Run("agent-batch", func(b *testing.B) {
		r := New(nil, true)
		benchClean(b, r, agentBatch(100)...)
	})
	b.Run("secret", func(b *testing.B) {
		src := chatSpan(b, " key "+fakeOpenAI)
		sp := ptrace.NewSpan()
		b.ReportAllocs()
		for b.Loop() {
			b.StopTimer()
			src.CopyTo(sp)
			b.StartTimer()
			if !r.Span(sp) {
				b.Fatal("secret not found")
			}
		}
	})
}

// benchClean measures r.Span on spans, one op per span in turn, after a
// first pass that finds each clean (and leaves the table of verdicts as
// it would be after one batch). One span is redacted without the index,
// so that the common case measures nothing else.
func benchClean(b *testing.B, r *Redactor, spans ...ptrace.Span) {
	for _, sp := range spans {
		if r.Span(sp) {
			b.Fatal("clean span changed")
		}
	}
	b.ReportAllocs()
	if len(spans) == 1 {
		sp := spans[0]
		loop(b, func() { r.Span(sp) })
		return
	}
	i := 0
	loop(b, func() {
		r.Span(spans[i%len(spans)])
		i++
	})
}

// agentBatch returns the spans of n agent runs as bench/exporter's
// batches hold them.
func agentBatch(n int) []ptrace.Span {
	para := strings.Repeat("Lisbon in March: mild days, showers likely; pack layers and a light rain jacket. ", 10)
	var spans []ptrace.Span
	for t := range n {
		sp := ptrace.NewSpan()
		sp.SetName("invoke_agent travel-planner")
		a := sp.Attributes()
		a.PutStr("gen_ai.operation.name", "invoke_agent")
		a.PutStr("gen_ai.agent.name", "travel-planner")
		a.PutStr("gen_ai.conversation.id", fmt.Sprintf("conv-%d", t))
		a.PutInt("gen_ai.usage.input_tokens", 4200)
		a.PutInt("gen_ai.usage.output_tokens", 600)
		spans = append(spans, sp)
		for c := range 3 {
			sp := ptrace.NewSpan()
			sp.SetName("chat gpt-4o")
			a := sp.Attributes()
			a.PutStr("gen_ai.operation.name", "chat")
			a.PutStr("gen_ai.provider.name", "openai")
			a.PutStr("gen_ai.request.model", "gpt-4o")
			a.PutStr("gen_ai.response.model", "gpt-4o-2024-08-06")
			a.PutStr("gen_ai.response.id", fmt.Sprintf("chatcmpl-%d-%d", t, c))
			a.PutEmptySlice("gen_ai.response.finish_reasons").AppendEmpty().SetStr("tool_calls")
			a.PutInt("gen_ai.usage.input_tokens", 1400)
			a.PutInt("gen_ai.usage.output_tokens", 200)
			a.PutInt("gen_ai.usage.cache_read.input_tokens", 512)
			a.PutDouble("gen_ai.request.temperature", 0.2)
			a.PutStr("gen_ai.input.messages", `[{"role":"user","parts":[{"type":"text","content":"Plan a 5-day trip to Lisbon in March for two, budget 2000 EUR. `+
				para[:700]+`"}]},{"role":"assistant","parts":[{"type":"tool_call","id":"call_1","name":"search_flights",`+
				`"arguments":{"origin":"BER","destination":"LIS","depart_date":"2026-03-14"}}]}]`)
			a.PutStr("gen_ai.output.messages", `[{"role":"assistant","parts":[{"type":"text","content":"`+para+`"}],"finish_reason":"tool_call"}]`)
			spans = append(spans, sp)
		}
		for c := range 3 {
			sp := ptrace.NewSpan()
			sp.SetName("execute_tool search_flights")
			a := sp.Attributes()
			a.PutStr("gen_ai.operation.name", "execute_tool")
			a.PutStr("gen_ai.tool.name", "search_flights")
			a.PutStr("gen_ai.tool.call.id", fmt.Sprintf("call_%d", c))
			a.PutStr("gen_ai.tool.call.arguments", `{"origin":"BER","destination":"LIS","depart_date":"2026-03-14","passengers":2}`)
			a.PutStr("gen_ai.tool.call.result", `{"offers":[{"carrier":"TP","price":247.8,"stops":0},{"carrier":"FR","price":168.4,"stops":0}]}`)
			spans = append(spans, sp)
		}
	}
	return spans
}

// BenchmarkSecrets measures the text scan on 100 KB, a long tool result:
// clean, with near misses that pass the pre-check (each costs one anchored
// match), and with a secret.
func BenchmarkSecrets(b *testing.B) {
	for _, c := range []struct{ name, s string }{
		{"clean", longProse("", "")},
		{"near-miss", longProse("sk-learn, bearer of news, ", " -----BEGIN CERTIFICATE----- token: abcdefg")},
		{"secret", longProse("", " "+fakeOpenAI)},
		// Prose as agents write it holds keywords of the rules (they, key,
		// task, a URL, basic): each is found and rejected.
		{"prose", strings.Repeat("They asked the agent to rotate the key for this task; "+
			"see https://docs.example.com/guide for the basic setup, then curl it.\n", 800)},
	} {
		b.Run(c.name, func(b *testing.B) {
			in := []byte(c.s)
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			loop(b, func() { secretsIn(in) })
		})
	}
}

// verdictSlotsUsed bounds how many strings a Redactor remembers as clean
// (see verdict.go); the base of a before/after comparison may have none.
const verdictSlotsUsed = 1024

// loop runs f as the benchmark's loop and reports, beside the wall time,
// the CPU time of the goroutine's thread per op (cpu-ns/op, where the
// system can tell it: threadCPU): on a shared, loaded machine the wall
// time counts the time other processes ran, the CPU time much less so,
// and benchstat compares it like any metric.
func loop(b *testing.B, f func()) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	start, ok := threadCPU()
	n := 0
	for b.Loop() {
		f()
		n++
	}
	if end, ok2 := threadCPU(); ok && ok2 {
		b.ReportMetric(float64(end-start)/float64(n), "cpu-ns/op")
	}
}
