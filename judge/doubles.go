package judge

import (
	"slices"
	"strings"

	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/semconv"
)

// doubleInstrumentation flags model calls recorded twice. Nested, the
// outer record is a wrapper (converter.Wrappers, the rule the totals
// use): flagged when an inference directly under it has the same request,
// or when its usage is the sum of the leaf model calls under it, which it
// then only repeats. Unnested (two instrumentations that share no context
// write each call as the root of its own trace), two root inferences of
// different traces with the same model and request that overlap in time
// are flagged too; nothing links them, so the totals count both.
func (a *auditor) doubleInstrumentation() {
	children := map[int][]int{}
	leafSum := map[int]semconv.Usage{}
	seen := make([]int, len(a.nodes))
	for i := range a.nodes {
		n := &a.nodes[i]
		if n.kind != semconv.Inference {
			continue
		}
		if p := a.parentOf(i); p >= 0 && a.wrapper[p] {
			children[p] = append(children[p], i)
		}
		if a.wrapper[i] {
			continue
		}
		a.ancestors(i, func(p int) bool {
			if seen[p] == i+1 {
				return false
			}
			seen[p] = i + 1
			if a.wrapper[p] {
				u := leafSum[p]
				u.Add(n.usage)
				leafSum[p] = u
			}
			return true
		})
	}
	for w := range a.nodes {
		if !a.wrapper[w] || a.nodes[w].kind != semconv.Inference {
			continue
		}
		n := &a.nodes[w]
		var same, other []*node
		for _, c := range children[w] {
			cn := &a.nodes[c]
			if n.hasInput && cn.hasInput && cn.input == n.input {
				same = append(same, cn)
			} else if cn.scope != n.scope && n.model != "" && sameModel(cn.model, n.model) {
				other = append(other, cn)
			}
		}
		switch sum := leafSum[w]; {
		case len(same) > 0:
			a.find(DoubleInstrumentation, n, "", "inference %q and the inference under it record the same request: one model call recorded twice (counted once)", n.name)
			a.also(same...)
		case len(other) == 1 && len(children[w]) == 1:
			// A failed call has no usage to compare, and an SDK's own span
			// may record no content: one model call of the same model
			// directly under it, from another instrumentation, is the same
			// call seen twice.
			a.find(DoubleInstrumentation, n, "", "inference %q (%s) has one inference of the same model directly under it, recorded by another instrumentation (%s): one model call recorded twice (counted once)",
				n.name, n.scope, other[0].scope)
			a.also(other...)
		case !n.usage.IsZero() && sum.Input == n.usage.Input && sum.Output == n.usage.Output:
			a.find(DoubleInstrumentation, n, "", "inference %q reports %d tokens (input + output), the sum of the %d model calls under it: their usage recorded twice (counted once)",
				n.name, n.usage.Total(), len(children[w]))
			for _, c := range children[w] {
				a.also(&a.nodes[c])
			}
		}
	}
	a.unnestedDoubles()
}

// unnestedDoubles flags root inferences of different traces that record
// the same call: written by two instrumentation scopes, with the same
// input messages (roles, text and tool names: two libraries spell the
// rest differently), compatible models (gpt-4o-mini and the dated
// gpt-4o-mini-2024-07-18 a response names) and overlapping times.
func (a *auditor) unnestedDoubles() {
	roots := map[string][]int{}
	for i := range a.nodes {
		n := &a.nodes[i]
		if n.kind == semconv.Inference && n.parent.IsEmpty() && n.rootInput != "" {
			roots[n.rootInput] = append(roots[n.rootInput], i)
		}
	}
	keys := make([]string, 0, len(roots))
	for k := range roots {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		idx := roots[k]
		used := map[int]bool{}
		for x, i := range idx {
			for _, j := range idx[x+1:] {
				ni, nj := &a.nodes[i], &a.nodes[j]
				if used[i] || used[j] || ni.trace == nj.trace || ni.scope == nj.scope || ni.end < nj.start || nj.end < ni.start ||
					!sameModel(ni.model, nj.model) {
					continue
				}
				used[i], used[j] = true, true
				first, second := ni, nj
				if nj.start < ni.start || (nj.start == ni.start && nj.span.String() < ni.span.String()) {
					first, second = nj, ni
				}
				a.find(DoubleInstrumentation, first, "", "inference %q (%s) and inference %q (%s, trace %s) record the same request at the same time in unrelated traces: one model call recorded twice by two instrumentations (counted twice: nothing links them)",
					first.name, first.scope, second.name, second.scope, second.trace)
				a.also(second)
			}
		}
	}
}

// sameModel reports whether two model names may name one model: equal,
// one unknown, or one the other with a suffix (a dated version).
func sameModel(a, b string) bool {
	return a == "" || b == "" || strings.HasPrefix(a, b) || strings.HasPrefix(b, a)
}

// normalizedInput is a span's input messages reduced to what every
// instrumentation records alike: each message's role, text and tool call
// names; "" when it has none.
func normalizedInput(sp ptrace.Span) string {
	conv := semconv.Messages(sp)
	var b strings.Builder
	for _, m := range conv.Input {
		b.WriteString(m.Role)
		b.WriteByte(0)
		for _, p := range m.Parts {
			switch p.Type {
			case semconv.PartText:
				b.WriteString(p.Content)
			case semconv.PartToolCall:
				b.WriteString("\x01" + p.Name)
			}
			b.WriteByte(0)
		}
		b.WriteByte(3)
	}
	return b.String()
}
