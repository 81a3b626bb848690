package semconv

// The usage rule as semconv.Nesting applied it before its late-child
// correction was rewritten to keep one excess per recent span
// (own − children) instead of the reported and the children's usage: kept
// only as the reference the differential test and fuzz target
// (nesting_diff_test.go) hold the shipped Nesting to. Doc comments and
// behaviour are the old file's, names prefixed ref, with one addition:
// the old file's bound-less chain of late corrections recursed until the
// stack overflowed on spans whose repeated ids make their parents a cycle
// (TestNestingParentCycle); both bound it the same way (hops).

import "go.opentelemetry.io/collector/pdata/pcommon"

type refNesting struct {
	s *refNestState
}

type refNestState struct {
	recent [recentCalls]refRecentCall // ring, oldest overwritten
	next   int
	// plain holds the last spans without usage or model call below them
	// that ended, with their parents, for a child ending after them.
	plain     [recentCalls]refPlainSpan
	nextPlain int
	// under is the table of underSlots slots of spans with an inference
	// ended below them, until they end, held sparsely: the slots not
	// free, in no order (a trace mostly has one or two open at once, and
	// a state made per artifact should not be two kilobytes of fresh
	// memory; measured, that first touch was a tenth of the exporter's
	// CPU with one artifact per trace). Its first entries are inline.
	under  []refUnderEntry
	inline [2]refUnderEntry
	live   int   // len(under): entries in use
	undo   Usage // what End last took back
	hops   int   // late corrections in End's chain so far (see late)
}

// refUnderEntry is a slot of the under table that is not free: a span still
// open with usage or a model call ended below it.
type refUnderEntry struct {
	key nestKey
	sum Usage // its children's subtree usage so far
	inf bool  // a model call ended below it
}

// entry returns slot i's entry, nil when it is free.
// index returns the index of k's entry, -1 when k has none.
func (s *refNestState) index(k nestKey) int {
	for j := range s.under {
		if s.under[j].key == k {
			return j
		}
	}
	return -1
}

// entry returns k's entry, nil when k has none.
func (s *refNestState) entry(k nestKey) *refUnderEntry {
	if j := s.index(k); j >= 0 {
		return &s.under[j]
	}
	return nil
}

// add makes an entry for k, which has none, with nothing below it yet.
// When underSlots spans are open already, the first entry (one of the
// older) is forgotten to make room.
func (s *refNestState) add(k nestKey) *refUnderEntry {
	if s.under == nil {
		s.under = s.inline[:0]
	}
	if len(s.under) == underSlots {
		s.drop(0)
	}
	s.under = append(s.under, refUnderEntry{key: k})
	s.live = len(s.under)
	return &s.under[len(s.under)-1]
}

// drop forgets entry j.
func (s *refNestState) drop(j int) {
	last := len(s.under) - 1
	s.under[j] = s.under[last]
	s.under = s.under[:last]
	s.live = len(s.under)
}

// refPlainSpan is an ended span that added nothing, and its parent.
type refPlainSpan struct{ key, parent nestKey }

// refRecentCall is a span with usage or a model call that ended, kept so
// that a child ending after it can correct what it was counted for.
type refRecentCall struct {
	key, parent nestKey
	own         Usage // what it reported
	// children is its children's subtree usage, as known. What it added,
	// max(0, own − children), is worked out when needed rather than kept:
	// a state made per artifact is 4 Usages smaller.
	children Usage
	note     int64 // Note.Value
	leaf     bool  // counted as an inference
	noteTag  uint8 // Note.Tag
}

// End records that a span ended, with kind its own classification and
// usage what it reports (zero when it reports none). Call it once per
// span, in the order spans end; a span that is no model call and reports
// no usage may be left out while [refNesting.Quiet] holds.
//
// For the live budget of an SDK span processor:
//
//	e := nest.End(pcommon.TraceID(sc.TraceID()), pcommon.SpanID(sc.SpanID()),
//		pcommon.SpanID(parent.SpanID()), facts.Kind, facts.Usage)
//	spent += e.Counts.Total()
//	if e.Undo != nil { spent -= e.Undo.Total() }
func (n *refNesting) End(trace pcommon.TraceID, span, parent pcommon.SpanID, kind Kind, usage Usage) Ended {
	e := Ended{Kind: kind}
	s := n.s
	if s == nil {
		if kind != Inference && usage.IsZero() {
			return e // nothing below any span yet, and this one adds nothing
		}
		s = new(refNestState)
		n.s = s
	}
	s.hops = 0
	k := keyOf(trace, span)
	below, inf, wraps := s.takeUnder(k)
	pk := nestKey{}
	if !parent.IsEmpty() {
		pk = keyOf(trace, parent)
	}
	if !wraps && kind != Inference && usage.IsZero() {
		// Nothing to count, but a child may still end below it (a
		// model call closing after its step span): remembered, so its
		// usage reaches the parent still open above.
		if pk != (nestKey{}) {
			s.plain[s.nextPlain] = refPlainSpan{k, pk}
			s.nextPlain = (s.nextPlain + 1) % recentCalls
		}
		return e
	}
	if inf && kind == Inference {
		e.Kind = Span
	}
	sub := maxUsage(usage, below)
	e.Counts, e.Children = sub, below
	e.Counts.Sub(below)
	e.Disagrees = !below.IsZero() && disagree(usage, below)
	if pk != (nestKey{}) {
		if r := s.find(pk); r != nil {
			s.late(r, sub, kind == Inference || inf, &e)
		} else if gp, ok := s.findPlain(pk); ok {
			// Its parent, a span without usage, ended first: what it
			// would have passed up goes to its own parent.
			s.passUp(gp, sub, kind == Inference || inf, &e)
		} else if !sub.IsZero() || kind == Inference || inf {
			s.addUnder(pk, sub, kind == Inference || inf)
		}
	}
	s.remember(refRecentCall{key: k, parent: pk, own: usage, children: below, leaf: e.Kind == Inference})
	return e
}

// remember keeps r among the recently ended spans, the oldest forgotten.
func (s *refNestState) remember(r refRecentCall) {
	s.recent[s.next] = r
	s.next = (s.next + 1) % recentCalls
}

// late corrects r, a parent that ended before its child, for the child's
// subtree usage sub (inference: a model call is in it): what r added
// shrinks to max(0, own − children), the difference goes to e.Undo, and a
// grown subtree is passed on to r's own parent while it is open.
func (s *refNestState) late(r *refRecentCall, sub Usage, inference bool, e *Ended) {
	if !inference && sub.IsZero() {
		return // nothing below the late child: r's count stands
	}
	if s.hops == recentCalls {
		// A chain of corrections longer than the recent spans can only
		// come back to one of them: spans whose ids repeat so that their
		// parents form a cycle (malformed input), which would correct
		// itself forever. A trace's real ancestors are distinct.
		return
	}
	s.hops++
	before := maxUsage(r.own, r.children)
	prev := before
	prev.Sub(r.children) // what r added so far
	r.children.Add(sub)
	counted := maxUsage(r.own, r.children)
	grown := counted
	grown.Sub(before)
	counted.Sub(r.children)
	undo := prev
	undo.Sub(counted)
	if inference && r.leaf {
		r.leaf = false
		e.Unleaf = true
	}
	if !undo.IsZero() || e.Unleaf {
		if e.Undo == nil {
			s.undo = Usage{}
			e.Undo = &s.undo
		}
		s.undo.Add(undo) // a grandparent's share may join its parent's
		share := r.note
		e.UndoAll = counted.IsZero()
		if t := prev.Total(); share != 0 && !e.UndoAll && t > 0 {
			share = r.note * undo.Total() / t
		}
		e.UndoNote = Note{Value: e.UndoNote.Value + share, Tag: r.noteTag}
		r.note -= share
	}
	if !grown.IsZero() || inference {
		s.passUp(r.parent, grown, inference, e)
	}
}

// passUp adds u, grown below a span that already ended, to its parent p:
// to what p's children sum to while p is open, or, when p ended too (an
// agent closing just before its last step), as to a late child's parent
// (inference: a model call is in u).
func (s *refNestState) passUp(p nestKey, u Usage, inference bool, e *Ended) {
	if p == (nestKey{}) {
		return
	}
	if pe := s.entry(p); pe != nil {
		pe.sum.Add(u)
		pe.inf = pe.inf || inference
	} else if r := s.find(p); r != nil {
		s.late(r, u, inference, e)
	} else {
		// p is still open and knew of nothing below it.
		s.addUnder(p, u, inference)
	}
}

// findPlain returns the parent of k when k is a span without usage that
// ended recently.
func (s *refNestState) findPlain(k nestKey) (nestKey, bool) {
	for i := range s.plain {
		if s.plain[i].key == k {
			return s.plain[i].parent, true
		}
	}
	return nestKey{}, false
}

// Note attaches nt to the span End last recorded (a model call, or a
// span reporting usage), in place of the zero note it was recorded with.
// It does nothing when End has recorded no span yet.
func (n *refNesting) Note(nt Note) {
	if n.s == nil {
		return
	}
	r := &n.s.recent[(n.s.next+recentCalls-1)%recentCalls]
	r.note, r.noteTag = nt.Value, nt.Tag
}

func (s *refNestState) find(k nestKey) *refRecentCall {
	for i := range s.recent {
		if s.recent[i].key == k {
			return &s.recent[i]
		}
	}
	return nil
}

// takeUnder returns what ended below k: its children's subtree usage,
// whether a model call is among them, and whether anything is known
// below it at all; and forgets it.
func (s *refNestState) takeUnder(k nestKey) (sum Usage, inf, ok bool) {
	if s.live == 0 {
		return Usage{}, false, false
	}
	if j := s.index(k); j >= 0 {
		sum, inf = s.under[j].sum, s.under[j].inf
		s.drop(j)
		return sum, inf, true
	}
	return Usage{}, false, false
}

// addUnder adds a child's subtree usage u to k's entry, making it (in
// place of an older span in its slot) when needed; inf notes a model
// call below.
func (s *refNestState) addUnder(k nestKey, u Usage, inf bool) {
	if k == (nestKey{}) {
		return // no span: the zero key marks a free slot
	}
	e := s.entry(k)
	if e == nil {
		e = s.add(k)
	}
	e.sum.Add(u)
	e.inf = e.inf || inf
}

// Quiet reports whether a span that is no model call and reports no
// usage can be skipped: no model call or usage has been seen yet, so no
// span can be waiting to learn what is below it (once one has, every span
// is remembered, for a child that ends after it). A caller on a hot path
// may then leave out End for such spans.
func (n *refNesting) Quiet() bool { return n.s == nil }

// Reset forgets every span, as for a new run.
func (n *refNesting) Reset() { n.s = nil }
