package store

import "github.com/agenttrace/agenttrace/converter"

// maxSeen is how many span ids an artifact's set holds before it forgets
// the older half: redelivery comes soon after delivery (a retry, a
// sending queue's replay), and an artifact that lives for ever (one per
// resource attribute, a run's) must not keep every id it ever wrote.
const maxSeen = 1 << 17

// spanSet is the ids of the spans an artifact holds, to skip redelivered
// ones: two generations, the current one filling while the older one
// still answers, so at least the last maxSeen ids are always known and at
// most 2 × maxSeen are kept.
type spanSet struct {
	cur, old map[converter.SpanKey]struct{}
}

func newSpanSet(m map[converter.SpanKey]struct{}) spanSet {
	if m == nil {
		m = make(map[converter.SpanKey]struct{})
	}
	return spanSet{cur: m}
}

func (s *spanSet) has(k converter.SpanKey) bool {
	if _, ok := s.cur[k]; ok {
		return true
	}
	_, ok := s.old[k]
	return ok
}

func (s *spanSet) add(k converter.SpanKey) {
	if len(s.cur) >= maxSeen {
		s.old, s.cur = s.cur, make(map[converter.SpanKey]struct{})
	}
	s.cur[k] = struct{}{}
}

// del forgets k, added by a write that failed.
func (s *spanSet) del(k converter.SpanKey) {
	delete(s.cur, k)
	delete(s.old, k)
}

// each calls f with every id held.
func (s *spanSet) each(f func(converter.SpanKey)) {
	for k := range s.old {
		f(k)
	}
	for k := range s.cur {
		f(k)
	}
}
