package semconv

import (
	"encoding/binary"

	"go.opentelemetry.io/collector/pdata/pcommon"
)

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
// hundred bytes after (fixed tables, no map, so every End is a few
// compares):
// tallies keep one per open artifact. A span with a model call below it
// is remembered in a slot picked by its id until it ends; when more such
// spans are open at once than slots collide, an older one is forgotten,
// and that wrapper counts. The zero value is ready to use; a Nesting is
// not safe for concurrent use.
type Nesting struct {
	s *nestState
}

// recentCalls is how many ended model calls Nesting keeps to find the
// parent of a late child; underSlots how many spans with a model call
// below them it can hold (a power of two).
const (
	recentCalls = 4
	underSlots  = 64
)

type nestState struct {
	recent [recentCalls]recentCall // ring, oldest overwritten
	next   int
	// under is the table of underSlots slots of spans with an inference
	// ended below them, until they end, held sparsely: the slots not
	// free, in no order (a trace mostly has one or two open at once, and
	// a state made per artifact should not be two kilobytes of fresh
	// memory; measured, that first touch was a tenth of the exporter's
	// CPU with one artifact per trace). Its first entries are inline.
	under  []underEntry
	inline [2]underEntry
	live   int   // slots in use
	undo   Usage // what End last took back
}

// underEntry is a slot of the under table that is not free.
type underEntry struct {
	slot int
	key  nestKey
}

// get returns the key in slot i, zero when it is free.
func (s *nestState) get(i int) nestKey {
	for j := range s.under {
		if s.under[j].slot == i {
			return s.under[j].key
		}
	}
	return nestKey{}
}

// set puts k in slot i; the zero key frees it.
func (s *nestState) set(i int, k nestKey) {
	for j := range s.under {
		if s.under[j].slot == i {
			if k == (nestKey{}) {
				last := len(s.under) - 1
				s.under[j] = s.under[last]
				s.under = s.under[:last]
			} else {
				s.under[j].key = k
			}
			return
		}
	}
	if k != (nestKey{}) {
		if s.under == nil {
			s.under = s.inline[:0]
		}
		s.under = append(s.under, underEntry{i, k})
	}
}

type recentCall struct {
	key     nestKey
	usage   Usage // what it was counted for
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
// is three word compares.
type nestKey struct{ trace0, trace1, span uint64 }

func keyOf(trace pcommon.TraceID, span pcommon.SpanID) nestKey {
	return nestKey{binary.LittleEndian.Uint64(trace[:8]), binary.LittleEndian.Uint64(trace[8:]), binary.LittleEndian.Uint64(span[:])}
}

// Ended is what [Nesting.End] decides about a span that ended.
type Ended struct {
	// Kind is the kind to count the span as: [Span] for an inference that
	// has an inference below it, its own kind otherwise.
	Kind Kind
	// Undo, when not nil, is the usage a parent was counted with that
	// ended earlier, was counted as an inference, and turns out to wrap
	// this span: a tally moves it from inferences to spans and subtracts
	// *Undo. It points into the Nesting and is valid until the next End.
	Undo *Usage
	// UndoNote is the note the parent Undo takes back was given (see
	// [Nesting.Note]); zero when Undo is nil.
	UndoNote Note
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
//	if e.Undo != nil { spent -= e.Undo.Total() }
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
	if kind != Inference && parent.IsEmpty() {
		return e // a root that is no model call: nothing above it to tell
	}
	k := keyOf(trace, span)
	wraps := s.takeUnder(k)
	if !wraps && kind != Inference {
		return e
	}
	if wraps && kind == Inference {
		e.Kind = Span
	}
	if !parent.IsEmpty() {
		pk := keyOf(trace, parent)
		if r := s.find(pk); r != nil {
			// The parent, a model call, ended first.
			if r.leaf {
				r.leaf = false
				s.undo = r.usage
				e.Undo = &s.undo
				e.UndoNote = Note{Value: r.note, Tag: r.noteTag}
			}
		} else {
			s.putUnder(pk)
		}
	}
	if kind == Inference {
		s.recent[s.next] = recentCall{key: k, leaf: e.Kind == Inference, usage: usage}
		s.next = (s.next + 1) % recentCalls
	}
	return e
}

// Note attaches nt to the model call End last recorded (one whose kind
// was [Inference]), in place of the zero note it was recorded with. It
// does nothing when End has recorded no model call yet.
func (n *Nesting) Note(nt Note) {
	if n.s == nil {
		return
	}
	r := &n.s.recent[(n.s.next+recentCalls-1)%recentCalls]
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

// slot picks k's slot in under: span ids are random, so their bits
// folded together spread evenly.
func slot(k nestKey) int {
	x := k.span
	x ^= x >> 32
	x ^= x >> 16
	x ^= x >> 8
	return int(x & (underSlots - 1))
}

// takeUnder reports whether k has an inference below it, and forgets it.
func (s *nestState) takeUnder(k nestKey) bool {
	if s.live == 0 {
		return false
	}
	i := slot(k)
	if s.get(i) == k {
		s.set(i, nestKey{})
		s.live--
		return true
	}
	return false
}

func (s *nestState) putUnder(k nestKey) {
	i := slot(k)
	if s.get(i) == (nestKey{}) {
		s.live++
	}
	s.set(i, k)
}

// Quiet reports whether a span that is no model call can be skipped:
// no span is waiting to learn it has a model call below it. A caller on
// a hot path may then leave out End for such spans.
func (n *Nesting) Quiet() bool { return n.s == nil || n.s.live == 0 }

// Reset forgets every span, as for a new run.
func (n *Nesting) Reset() { n.s = nil }
