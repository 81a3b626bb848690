package semconv

import (
	"encoding/binary"

	"go.opentelemetry.io/collector/pdata/pcommon"
)

// Nesting applies the usage rule and tells leaf model calls from
// wrappers as spans end. It is the one place the rule lives: the tally
// behind trailers and `tokens`, the bridge's live budget and the
// exporter's all count through it.
//
// The usage rule: a subtree's usage is, per token class, the larger of
// what its root reports and the sum of its children's subtree usage, so
// nothing is ever counted twice, whichever level reports it (a wrapper
// reporting its last step only, an agent holding the sum of a multi-step
// call whose model span reports its last step, an invoke_agent repeating
// the total under the same keys, an embeddings batch equal to its
// children). Spans end children first, so the rule is applied
// incrementally: when a span ends it adds max(0, own − children) per class
// ([Ended.Counts]) and passes max(own, children) up to its parent.
//
// A span that classifies as an inference but has an inference below it
// wraps model calls rather than making one; it counts as a plain span
// ([Ended.Kind]), whatever usage it adds.
//
// A model call may also end just after the span it runs in (a streamed
// call whose SDK span closes when the stream does, as
// testdata/real/openllmetry-anthropic/payloads/stream.traces.json shows):
// End then hands back what the parent was counted for beyond what the rule
// now gives it, to take back ([Ended.Undo]). It looks for such a parent
// among the last [recentCalls] spans with usage or a model call that
// ended, and the last [recentCalls] that added nothing, as the direct
// parent; a parent found so passes the grown usage on to its own parent
// if open.
//
// A Nesting costs one pointer until its first span with usage or model
// call, and a few hundred bytes after (small tables, no map, so every End
// is a few compares): tallies keep one per open artifact. A span with
// usage or a model call below it is remembered, by its id, until it ends;
// only when more than underSlots such spans are open at once is an older
// one forgotten (its parent may then count usage its children already
// counted). The zero value is ready to use; a Nesting is not safe for
// concurrent use.
type Nesting struct {
	s *nestState
}

// recentCalls is how many ended spans Nesting keeps to find the parent of
// a late child (a power of two); underSlots how many open spans with a
// model call below them it can hold.
const (
	recentCalls = 4
	underSlots  = 64
)

type nestState struct {
	recent [recentCalls]recentCall // ring, oldest overwritten
	next   int
	// plain holds the last spans without usage or model call below them
	// that ended, with their parents, for a child ending after them.
	plain     [recentCalls]plainSpan
	nextPlain int
	// under holds the open spans (at most underSlots) with an inference
	// ended below them, until they end, found by their keys, in no order:
	// a trace mostly has one or two open at once, and a state made per
	// artifact should not be kilobytes of fresh memory (measured, that
	// first touch was a tenth of the exporter's CPU with one artifact per
	// trace). Its first entries are inline.
	under  []underEntry
	inline [2]underEntry
	live   int   // len(under): entries in use
	undo   Usage // what End last took back
	hops   int   // late corrections in End's chain so far (see late)
}

// underEntry is an open span with usage or a model call ended below it.
type underEntry struct {
	key nestKey
	sum Usage // its children's subtree usage so far
	inf bool  // a model call ended below it
}

// index returns the index of k's entry, -1 when k has none.
func (s *nestState) index(k nestKey) int {
	for j := range s.under {
		if s.under[j].key == k {
			return j
		}
	}
	return -1
}

// entry returns k's entry, nil when k has none.
func (s *nestState) entry(k nestKey) *underEntry {
	if j := s.index(k); j >= 0 {
		return &s.under[j]
	}
	return nil
}

// add makes an entry for k, which has none, with nothing below it yet.
// When underSlots spans are open already, the first entry (one of the
// older) is forgotten to make room.
func (s *nestState) add(k nestKey) *underEntry {
	if s.under == nil {
		s.under = s.inline[:0]
	}
	if len(s.under) == underSlots {
		s.drop(0)
	}
	s.under = append(s.under, underEntry{key: k})
	s.live = len(s.under)
	return &s.under[len(s.under)-1]
}

// drop forgets entry j.
func (s *nestState) drop(j int) {
	last := len(s.under) - 1
	s.under[j] = s.under[last]
	s.under = s.under[:last]
	s.live = len(s.under)
}

// plainSpan is an ended span that added nothing, and its parent.
type plainSpan struct{ key, parent nestKey }

// recentCall is a span with usage or a model call that ended, kept so
// that a child ending after it can correct what it was counted for.
type recentCall struct {
	key, parent nestKey
	// excess is, per class, what it reported less its children's subtree
	// usage as known (negative where the children hold more). It is all a
	// late child needs: what the span adds is max(0, excess), its subtree
	// max(own, children) is children + max(0, excess), and a late child's
	// usage is taken off it. One Usage, not the reported and the
	// children's two: a state made per artifact stays small, and a late
	// child's correction is one pass over the classes.
	excess  Usage
	note    int64 // Note.Value
	leaf    bool  // counted as an inference
	noteTag uint8 // Note.Tag
}

// A Note is what a caller counted a model call for besides its usage,
// kept with the call ([Nesting.Note]) and handed back with it when the
// call turns out to be a wrapper ([Ended.UndoNote]): a tally notes the
// call's cost, so that a wrapper found late gives back its dollars as it
// gives back its tokens, and the tally keeps no list of its own calls
// beside Nesting's.
type Note struct {
	// Value and Tag are the caller's; a tally keeps nano-dollars and
	// where the cost came from.
	Value int64
	Tag   uint8
}

// nestKey is a span's trace and span id as words, so that comparing two
// is three word compares; the span id first, since the spans a Nesting
// holds mostly share their trace.
type nestKey struct{ span, trace0, trace1 uint64 }

func keyOf(trace pcommon.TraceID, span pcommon.SpanID) nestKey {
	return nestKey{binary.LittleEndian.Uint64(span[:]), binary.LittleEndian.Uint64(trace[:8]), binary.LittleEndian.Uint64(trace[8:])}
}

// Ended is what [Nesting.End] decides about a span that ended.
type Ended struct {
	// Kind is the kind to count the span as: [Span] for an inference that
	// has an inference below it, its own kind otherwise.
	Kind Kind
	// Counts is the usage the span adds to totals, per class
	// max(0, own − children's subtree usage): a leaf's own usage, nothing
	// for a wrapper that repeats (or under-reports) its children, the
	// excess of an agent holding more than its children report.
	Counts Usage
	// Children is the sum of the children's subtree usage, as far as they
	// ended before the span.
	Children Usage
	// Disagrees is set when the span reports usage, its children report
	// some too, and they differ in a class the span reports: the report
	// lists these.
	Disagrees bool
	// Undo, when not nil, is usage a parent that ended earlier was counted
	// with and no longer adds, now that this late child ended below it:
	// a tally subtracts *Undo. It points into the Nesting and is valid
	// until the next End.
	Undo *Usage
	// Unleaf is set when that parent was counted as a model call and
	// turns out to wrap this one: a tally moves it from inferences to
	// spans.
	Unleaf bool
	// UndoNote is the part of the note the parent was given (see
	// [Nesting.Note]) that goes with Undo: all of it when the parent
	// adds nothing any more (UndoAll), else its share by tokens.
	UndoNote Note
	UndoAll  bool
}

// End records that a span ended, with kind its own classification and
// usage what it reports (zero when it reports none). Call it once per
// span, in the order spans end; a span that is no model call and reports
// no usage may be left out while [Nesting.Quiet] holds.
//
// For the live budget of an SDK span processor:
//
//	e := nest.End(pcommon.TraceID(sc.TraceID()), pcommon.SpanID(sc.SpanID()),
//		pcommon.SpanID(parent.SpanID()), facts.Kind, facts.Usage)
//	spent += e.Counts.Total()
//	if e.Undo != nil { spent -= e.Undo.Total() }
func (n *Nesting) End(trace pcommon.TraceID, span, parent pcommon.SpanID, kind Kind, usage Usage) (e Ended) {
	e.Kind = kind
	s := n.s
	if s == nil {
		if kind != Inference && usage.IsZero() {
			return e // nothing below any span yet, and this one adds nothing
		}
		s = new(nestState)
		n.s = s
	}
	s.hops = 0
	k := keyOf(trace, span)
	var below Usage
	var inf, wraps bool
	if s.live != 0 {
		below, inf, wraps = s.takeUnder(k)
	}
	var pk nestKey
	if !parent.IsEmpty() {
		pk = keyOf(trace, parent)
	}
	if !wraps && kind != Inference && usage.IsZero() {
		// Nothing to count, but a child may still end below it (a
		// model call closing after its step span): remembered, so its
		// usage reaches the parent still open above.
		if pk.span|pk.trace0|pk.trace1 != 0 {
			p := &s.plain[s.nextPlain]
			p.key, p.parent = k, pk
			s.nextPlain = (s.nextPlain + 1) & (recentCalls - 1)
		}
		return e
	}
	inference := kind == Inference || inf
	if inf && kind == Inference {
		e.Kind = Span
	}
	// The subtree's usage, max(own, children) per class, and what the
	// span adds beyond its children. Nothing ended below most spans: the
	// children's sum is then zero, with nothing to disagree with.
	sub := maxUsage(usage, below)
	e.Counts = sub
	if wraps {
		e.Counts.Sub(below)
		e.Children = below
		e.Disagrees = !below.IsZero() && disagree(usage, below)
	}
	if pk.span|pk.trace0|pk.trace1 != 0 {
		if r := s.find(pk); r != nil {
			s.late(r, sub, inference, &e)
		} else if gp, ok := s.findPlain(pk); ok {
			// Its parent, a span without usage, ended first: what it
			// would have passed up goes to its own parent.
			s.passUp(gp, sub, inference, &e)
		} else if inference || !sub.IsZero() {
			s.addUnder(pk, sub, inference)
		}
	}
	// Remembered for a child that ends after it, written in place (a
	// recentCall is a hundred bytes).
	r := &s.recent[s.next]
	s.next = (s.next + 1) & (recentCalls - 1)
	r.key, r.parent = k, pk
	r.excess = usage
	r.excess.Sub(below)
	r.note, r.noteTag = 0, 0
	r.leaf = e.Kind == Inference
	return e
}

// late corrects r, a parent that ended before its child, for the child's
// subtree usage sub (inference: a model call is in it): what r added
// shrinks to max(0, own − children), the difference goes to e.Undo, and a
// grown subtree is passed on to r's own parent while it is open.
//
// Per class, with x = own − children before: r added max(0, x) and adds
// max(0, x − sub) after, the difference is the undo; its subtree,
// children + max(0, x), grows by sub − undo.
func (s *nestState) late(r *recentCall, sub Usage, inference bool, e *Ended) {
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
	x := &r.excess
	prev := max(x.Input, 0) + max(x.Output, 0) // the tokens r added so far
	var undo Usage
	undo.Input, x.Input = lateClass(x.Input, sub.Input)
	undo.Output, x.Output = lateClass(x.Output, sub.Output)
	undo.CacheRead, x.CacheRead = lateClass(x.CacheRead, sub.CacheRead)
	undo.CacheCreation, x.CacheCreation = lateClass(x.CacheCreation, sub.CacheCreation)
	undo.Reasoning, x.Reasoning = lateClass(x.Reasoning, sub.Reasoning)
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
		// r adds nothing any more: every class's excess is 0 or below.
		e.UndoAll = max(x.Input, x.Output, x.CacheRead, x.CacheCreation, x.Reasoning) <= 0
		if share != 0 && !e.UndoAll && prev > 0 {
			share = r.note * undo.Total() / prev
		}
		e.UndoNote = Note{Value: e.UndoNote.Value + share, Tag: r.noteTag}
		r.note -= share
	}
	grown := sub
	grown.Sub(undo)
	if !grown.IsZero() || inference {
		s.passUp(r.parent, grown, inference, e)
	}
}

// lateClass is late's work on one class: x, what the parent reported less
// its children's subtree usage, and sub, the late child's. It returns what
// the parent no longer adds, max(0, x) − max(0, x − sub), and x less sub.
func lateClass(x, sub int64) (undo, rest int64) {
	rest = x - sub
	return max(x, 0) - max(rest, 0), rest
}

// passUp adds u, grown below a span that already ended, to its parent p:
// to what p's children sum to while p is open, or, when p ended too (an
// agent closing just before its last step), as to a late child's parent
// (inference: a model call is in u).
func (s *nestState) passUp(p nestKey, u Usage, inference bool, e *Ended) {
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
func (s *nestState) findPlain(k nestKey) (nestKey, bool) {
	for i := range s.plain {
		if s.plain[i].key == k {
			return s.plain[i].parent, true
		}
	}
	return nestKey{}, false
}

// disagree reports whether own, a span's usage, differs from its
// children's in a class it reports (a class it leaves at zero is one it
// does not report, not a disagreement).
func disagree(own, children Usage) bool {
	return own.Input != 0 && own.Input != children.Input ||
		own.Output != 0 && own.Output != children.Output ||
		own.CacheRead != 0 && own.CacheRead != children.CacheRead ||
		own.CacheCreation != 0 && own.CacheCreation != children.CacheCreation ||
		own.Reasoning != 0 && own.Reasoning != children.Reasoning
}

// maxUsage is the larger of a and b per class.
func maxUsage(a, b Usage) Usage {
	return Usage{
		Input: max(a.Input, b.Input), Output: max(a.Output, b.Output),
		CacheRead: max(a.CacheRead, b.CacheRead), CacheCreation: max(a.CacheCreation, b.CacheCreation),
		Reasoning: max(a.Reasoning, b.Reasoning),
	}
}

// Note attaches nt to the span End last recorded (a model call, or a
// span reporting usage), in place of the zero note it was recorded with.
// It does nothing when End has recorded no span yet.
func (n *Nesting) Note(nt Note) {
	if n.s == nil {
		return
	}
	r := &n.s.recent[(n.s.next-1)&(recentCalls-1)]
	r.note, r.noteTag = nt.Value, nt.Tag
}

func (s *nestState) find(k nestKey) *recentCall {
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
func (s *nestState) takeUnder(k nestKey) (sum Usage, inf, ok bool) {
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

// putUnder notes that k has a model call below it.
func (s *nestState) putUnder(k nestKey) { s.addUnder(k, Usage{}, true) }

// addUnder adds a child's subtree usage u to k's entry, making it (in
// place of an older span in its slot) when needed; inf notes a model
// call below.
func (s *nestState) addUnder(k nestKey, u Usage, inf bool) {
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
func (n *Nesting) Quiet() bool { return n.s == nil }

// Reset forgets every span, as for a new run.
func (n *Nesting) Reset() { n.s = nil }
