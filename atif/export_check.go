package atif

import (
	"bytes"
	"encoding/json"
	"slices"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/semconv"
)

// check reads the steps back as the importer does ([History],
// [StepOutput]) and, where that does not give a model call's input,
// system instructions or output exactly, keeps them in the step's extra:
// an exported trajectory imports back to the same conversation.
func check(t *Trajectory, calls map[int]semconv.Conversation) {
	var h History
	for i := range t.Steps {
		s := &t.Steps[i]
		conv, ok := calls[i]
		if !ok {
			h.Add(s)
			continue
		}
		old, _ := s.AgentExtra()
		x := StepExtra{Evaluations: old.Evaluations}
		if len(conv.Output) > 0 {
			x.FinishReason = conv.Output[0].FinishReason
		}
		if !sameMessages(h.Messages, conv.Input) {
			x.Input, x.NoInput = conv.Input, len(withParts(conv.Input)) == 0
		}
		if !sameParts(h.System, conv.System) {
			x.System, x.NoSystem = conv.System, len(conv.System) == 0
		}
		setExtra(s, x)
		if !sameMessages(StepOutput(s), conv.Output) {
			x.Output = nonNil(conv.Output)
			setExtra(s, x)
		}
		h.Add(s)
	}
}

func nonNil(ms []semconv.Message) []semconv.Message {
	if ms == nil {
		return []semconv.Message{}
	}
	return ms
}

// setExtra puts x under ExtraKey in s's extra (removing it when x says
// nothing).
func setExtra(s *Step, x StepExtra) {
	m := map[string]json.RawMessage{}
	if len(s.Extra) > 0 {
		_ = json.Unmarshal(s.Extra, &m)
	}
	delete(m, ExtraKey)
	if x.Input != nil || x.Output != nil || x.System != nil || x.FinishReason != "" || x.NoInput || x.NoSystem ||
		len(x.Evaluations) > 0 {
		b, err := marshal(x)
		if err == nil && string(b) != "{}" {
			m[ExtraKey] = b
		}
	}
	if len(m) == 0 {
		s.Extra = nil
		return
	}
	s.Extra, _ = marshal(m)
}

// sameMessages compares messages as their JSON (the conventions' shape),
// messages without parts left out: a call that answered nothing.
func sameMessages(a, b []semconv.Message) bool {
	a, b = withParts(a), withParts(b)
	if len(a) == 0 && len(b) == 0 {
		return true
	}
	x, err1 := marshal(a)
	y, err2 := marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}

func withParts(ms []semconv.Message) []semconv.Message {
	return slices.DeleteFunc(slices.Clone(ms), func(m semconv.Message) bool { return len(m.Parts) == 0 })
}

func sameParts(a, b []semconv.Part) bool {
	if len(a) == 0 && len(b) == 0 {
		return true
	}
	x, err1 := marshal(a)
	y, err2 := marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}

// finalMetrics are the tally's totals of a's agent span and everything
// under it (the whole trace for the trace's own trajectory).
func (e *exporter) finalMetrics(a *agentTraj) *FinalMetrics {
	var tally artifact.Tally
	for i := range e.recs {
		if a.rec < 0 || e.under(i, a.rec) {
			tally.Add(&e.recs[i])
		}
	}
	sum := tally.Summary(nil)
	fm := &FinalMetrics{TotalSteps: ptr(int64(len(a.t.Steps)))}
	if sum.Tokens.Total > 0 || sum.Tokens.Input > 0 {
		fm.TotalPromptTokens, fm.TotalCompletionTokens = ptr(sum.Tokens.Input), ptr(sum.Tokens.Output)
		fm.TotalCachedTokens = ptr(sum.Tokens.CacheRead)
	}
	if c := tally.Cost(); c.Unknown == 0 && c.Known > 0 {
		usd := float64(c.Nanos) / 1e9
		fm.TotalCostUSD = &usd
	}
	return fm
}

// under reports whether record i is record anc or below it.
func (e *exporter) under(i, anc int) bool {
	for hops := 0; hops <= len(e.recs); hops++ {
		if i == anc {
			return true
		}
		p := e.recs[i].Span.ParentSpanID()
		j, ok := e.index[p]
		if p.IsEmpty() || !ok {
			return false
		}
		i = j
	}
	return false
}

// sumFinal adds trajectories' final metrics, with their steps and n more.
func sumFinal(ts []*Trajectory, n int64) *FinalMetrics {
	out := &FinalMetrics{TotalSteps: ptr(n)}
	known := true
	var usd float64
	for _, t := range ts {
		fm := t.FinalMetrics
		if fm == nil {
			known = false
			continue
		}
		out.TotalPromptTokens = addPtr(out.TotalPromptTokens, fm.TotalPromptTokens)
		out.TotalCompletionTokens = addPtr(out.TotalCompletionTokens, fm.TotalCompletionTokens)
		out.TotalCachedTokens = addPtr(out.TotalCachedTokens, fm.TotalCachedTokens)
		if fm.TotalCostUSD == nil {
			known = false
		} else {
			usd += *fm.TotalCostUSD
		}
	}
	if known && len(ts) > 0 {
		out.TotalCostUSD = &usd
	}
	return out
}

func addPtr(a, b *int64) *int64 {
	if b == nil {
		return a
	}
	if a == nil {
		return ptr(*b)
	}
	return ptr(*a + *b)
}
