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
// once. A model call may also end just after the model call it runs in
// (a streamed call whose SDK span closes when the stream does, as
// testdata/real/openllmetry-anthropic/payloads/stream.traces.json shows):
// End then hands back what the parent was counted for, to take back. It
// looks for such a parent among the last [recentCalls] model calls that
// ended, and only as the direct parent. Readers that hold a whole batch
// use converter.Wrappers, which needs no order at all.
//
// A Nesting costs one pointer until its first model call, and a few
// hundred bytes after: tallies keep one per open artifact. The zero value
// is ready to use; a Nesting is not safe for concurrent use.
type Nesting struct {
	s *nestState
}

// recentCalls is how many ended model calls Nesting keeps to find the
// parent of a late child; underSlots how many spans with a model call
// below them it keeps before it needs a map.
const (
	recentCalls = 4
	underSlots  = 4
)

type nestState struct {
	recent   [recentCalls]recentCall // ring, oldest overwritten
	next     int
	under    [underSlots]nestKey // spans with an inference ended below them, until they end; zero = free
	overflow map[nestKey]struct{}
}

type recentCall struct {
	key    nestKey
	parent pcommon.SpanID
	leaf   bool  // counted as an inference
	usage  Usage // what it was counted for
}

type nestKey struct {
	trace pcommon.TraceID
	span  pcommon.SpanID
}

// maxOverflow bounds the spans Nesting remembers beyond underSlots. Only
// spans whose parent never ends (it was dropped, or lives in another
// process) stay behind; past the bound they are forgotten, which at worst
// lets one wrapper count.
const maxOverflow = 1 << 16

// Ended is what [Nesting.End] decides about a span that ended.
type Ended struct {
	// Kind is the kind to count the span as: [Span] for an inference that
	// has an inference below it, its own kind otherwise.
	Kind Kind
	// Undone counts a parent that ended earlier, was counted as an
	// inference, and turns out to wrap this span; Undo is the usage it
	// was counted with. A tally moves it from inferences to spans and
	// subtracts Undo.
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
	e := Ended{Kind: kind}
	s := n.s
	if s == nil {
		if kind != Inference {
			return e // nothing below any span yet, and this is no model call
		}
		s = new(nestState)
		n.s = s
	}
	k := nestKey{trace, span}
	wraps := s.takeUnder(k)
	if !wraps && kind != Inference {
		return e
	}
	if wraps && kind == Inference {
		e.Kind = Span
	}
	if !parent.IsEmpty() {
		pk := nestKey{trace, parent}
		if r := s.find(pk); r != nil {
			// The parent, a model call, ended first.
			if r.leaf {
				r.leaf = false
				e.Undone, e.Undo = 1, r.usage
			}
		} else {
			s.putUnder(pk)
		}
	}
	if kind == Inference {
		s.recent[s.next] = recentCall{key: k, parent: parent, leaf: e.Kind == Inference, usage: usage}
		s.next = (s.next + 1) % recentCalls
	}
	return e
}

func (s *nestState) find(k nestKey) *recentCall {
	for i := range s.recent {
		if s.recent[i].key == k {
			return &s.recent[i]
		}
	}
	return nil
}

// takeUnder reports whether k has an inference below it, and forgets it.
func (s *nestState) takeUnder(k nestKey) bool {
	for i := range s.under {
		if s.under[i] == k {
			s.under[i] = nestKey{}
			return true
		}
	}
	if _, ok := s.overflow[k]; ok {
		delete(s.overflow, k)
		return true
	}
	return false
}

func (s *nestState) putUnder(k nestKey) {
	free := -1
	for i := range s.under {
		switch s.under[i] {
		case k:
			return
		case nestKey{}:
			if free < 0 {
				free = i
			}
		}
	}
	if free >= 0 {
		s.under[free] = k
		return
	}
	if s.overflow == nil {
		s.overflow = make(map[nestKey]struct{})
	} else if len(s.overflow) >= maxOverflow {
		clear(s.overflow)
	}
	s.overflow[k] = struct{}{}
}

// Reset forgets every span, as for a new run.
func (n *Nesting) Reset() { n.s = nil }
