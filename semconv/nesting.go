package semconv

import "go.opentelemetry.io/collector/pdata/pcommon"

// Nesting tells leaf model calls from wrappers as spans end. A span that
// classifies as an inference but has an inference below it wraps model
// calls rather than making one: an embeddings batch around per-chunk
// calls, a framework's chat span around the provider SDK's own chat span
// when two instrumentations are installed at once. Its usage repeats its
// children's, so it counts as a plain span: kept with its attributes,
// never added to totals or budgets.
//
// Spans usually end after their descendants, and then End decides at
// once. A child may also end just after its parent (a streamed call whose
// SDK span closes when the stream does, as
// testdata/real/openllmetry-anthropic/payloads/stream.traces.json shows):
// End then hands back what the parent was counted for, to take back. It
// remembers the last [recentSpans] ended spans for that, in a fixed
// array. Readers that hold a whole batch use converter.Wrappers, which
// needs no order at all. The zero value is ready to use; a Nesting is not
// safe for concurrent use.
type Nesting struct {
	under  map[nestKey]struct{} // spans with an inference ended below them, until they end
	recent [recentSpans]recentSpan
	next   int
}

// recentSpans is how many ended spans Nesting looks back through for the
// parent of a late child.
const recentSpans = 64

type recentSpan struct {
	key    nestKey
	parent pcommon.SpanID
	leaf   bool  // counted as an inference
	usage  Usage // what it was counted for
}

type nestKey struct {
	trace pcommon.TraceID
	span  pcommon.SpanID
}

// maxNesting bounds the spans Nesting remembers. Only spans whose parent
// never ends (it was dropped, or lives in another process) stay behind;
// past the bound they are forgotten, which at worst lets one wrapper count.
const maxNesting = 1 << 16

// Ended is what [Nesting.End] decides about a span that ended.
type Ended struct {
	// Kind is the kind to count the span as: [Span] for an inference that
	// has an inference below it, its own kind otherwise.
	Kind Kind
	// Undone counts ancestors that ended earlier, were counted as
	// inferences, and turn out to be wrappers of this span; Undo is the
	// usage they were counted with. A tally moves them from inferences to
	// spans and subtracts Undo.
	Undone int64
	Undo   Usage
}

// End records that a span ended, with kind its own classification and
// usage what it would count for as an inference. Call it once per span,
// in the order spans end.
//
// For the live budget of an SDK span processor:
//
//	e := nest.End(pcommon.TraceID(sc.TraceID()), pcommon.SpanID(sc.SpanID()),
//		pcommon.SpanID(parent.SpanID()), facts.Kind, facts.Usage)
//	if e.Kind == semconv.Inference { spent += facts.Usage.Total() }
//	spent -= e.Undo.Total()
func (n *Nesting) End(trace pcommon.TraceID, span, parent pcommon.SpanID, kind Kind, usage Usage) Ended {
	k := nestKey{trace, span}
	_, wraps := n.under[k]
	if wraps {
		delete(n.under, k)
	}
	e := Ended{Kind: kind}
	if wraps && kind == Inference {
		e.Kind = Span
	}
	if (kind == Inference || wraps) && !parent.IsEmpty() {
		if !n.takeBack(trace, parent, &e) {
			if n.under == nil {
				n.under = make(map[nestKey]struct{})
			} else if len(n.under) >= maxNesting {
				clear(n.under)
			}
			n.under[nestKey{trace, parent}] = struct{}{}
		}
	}
	n.recent[n.next] = recentSpan{key: k, parent: parent, leaf: e.Kind == Inference, usage: usage}
	n.next = (n.next + 1) % recentSpans
	return e
}

// takeBack walks up from parent through spans that already ended,
// undoing the count of every ancestor inference found. It reports whether
// parent had ended.
func (n *Nesting) takeBack(trace pcommon.TraceID, parent pcommon.SpanID, e *Ended) bool {
	found := false
	p := parent
	for range recentSpans { // a bound, against parents that form a cycle
		r := n.find(nestKey{trace, p})
		if r == nil {
			return found
		}
		found = true
		if r.leaf {
			r.leaf = false
			e.Undone++
			e.Undo.Add(r.usage)
		}
		if r.parent.IsEmpty() {
			return found
		}
		p = r.parent
	}
	return found
}

func (n *Nesting) find(k nestKey) *recentSpan {
	for i := range n.recent {
		if n.recent[i].key == k {
			return &n.recent[i]
		}
	}
	return nil
}

// Reset forgets every span, as for a new run.
func (n *Nesting) Reset() {
	clear(n.under)
	n.recent = [recentSpans]recentSpan{}
}
