package redact

import (
	"fmt"
	"slices"
	"sync"
)

// keywordDFA finds every occurrence of a set of lower-case keywords in a
// text, ignoring ASCII case, in one pass. It is what keeps hundreds of
// rules cheap: gitleaks filters its rules by keyword the same way. A
// maintained Aho-Corasick package would do, but allocates its matches and
// needs the text lower-cased first; this runs over the walker's bytes as
// they are, and a text with no keyword costs one table look-up per byte
// and no allocation.
//
// The automaton is Aho-Corasick over the keywords' first few bytes only
// (their prefixes, at most prefixLen long), as a table of uint16
// transitions over byte classes. Whole keywords (some 250, up to 34 bytes)
// need some 1,300 states, more than a uint16 table can number; their
// prefixes need some 700, and the smaller table, and loads with no bounds
// check or truncation between them, make the chain of dependent loads a
// scan is shorter: about 1.6 times as fast on clean text as the
// whole-keyword automaton it replaced (keyword_ref_test.go). Where a
// prefix ends, the rest of its keywords is compared with the text; five
// bytes are rarely the start of a keyword in prose ("disc" and "line",
// four, would stop the scan every few dozen bytes).
type keywordDFA struct {
	// class maps a byte to its class: bytes that occur in no prefix share
	// class 0, and a letter shares its lower case's class.
	class  [256]uint8
	nclass int
	// next is the transition table: next[state*nclass+class] is the next
	// state times nclass (so the loop adds instead of multiplying), with
	// finalBit set when a prefix ends there. It is as long as a uint16
	// state plus a class can index, so that the scan's look-ups need no
	// bounds checks.
	next *[1<<16 + 256]uint16
	// out lists, for each state, the prefixes that end there.
	out [][]int32
	// pre are the prefixes; plen is the longest one's length.
	pre  []prefix
	plen int
}

// A prefix is the first bytes of one or more keywords.
type prefix struct {
	n int // its length
	// kws are the keywords it begins, shortest first (so that hits at one
	// place come out as a whole-keyword automaton's do: by where they
	// end), and tails what follows the prefix in each.
	kws   []int32
	tails []string
}

// prefixLen is the longest prefix the automaton reads: the longest that
// keeps the table of the embedded rules' keywords within uint16 (see
// buildKeywordDFA, which takes shorter prefixes if ever it must).
const prefixLen = 5

// finalBit marks, in a transition, a state where a prefix ends. States
// times classes must stay below it.
const finalBit = 1 << 15

// newKeywordDFA builds the automaton for keywords, which are lower case;
// it panics where buildKeywordDFA fails, which the tests' small sets never
// do.
func newKeywordDFA(keywords []string) *keywordDFA {
	d, err := buildKeywordDFA(keywords)
	if err != nil {
		panic(err)
	}
	return d
}

// buildKeywordDFA builds the automaton for keywords, which are lower case
// and not empty. The prefixes are as long as prefixLen allows, shorter if
// the table would not fit uint16.
func buildKeywordDFA(keywords []string) (*keywordDFA, error) {
	for l := prefixLen; l >= 1; l-- {
		if d, ok := buildPrefixDFA(keywords, l); ok {
			return d, nil
		}
	}
	return nil, fmt.Errorf("keyword automaton: %d keywords need more than %d transitions", len(keywords), finalBit)
}

// buildPrefixDFA builds the automaton over prefixes of at most l bytes,
// or reports that its table does not fit uint16.
func buildPrefixDFA(keywords []string, l int) (*keywordDFA, bool) {
	d := &keywordDFA{}
	preIndex := map[string]int{}
	for ki, k := range keywords {
		p := k[:min(l, len(k))]
		i, ok := preIndex[p]
		if !ok {
			i = len(d.pre)
			preIndex[p] = i
			d.pre = append(d.pre, prefix{n: len(p)})
		}
		d.pre[i].kws = append(d.pre[i].kws, int32(ki))
		d.plen = max(d.plen, len(p))
		for j := range len(p) {
			c := lower(p[j])
			if d.class[c] == 0 {
				d.nclass++
				d.class[c] = uint8(d.nclass)
			}
		}
	}
	for i := range d.pre {
		p := &d.pre[i]
		slices.SortStableFunc(p.kws, func(a, b int32) int { return len(keywords[a]) - len(keywords[b]) })
		for _, k := range p.kws {
			p.tails = append(p.tails, keywords[k][p.n:])
		}
	}
	for c := 'A'; c <= 'Z'; c++ {
		d.class[c] = d.class[c+('a'-'A')]
	}
	d.nclass++ // class 0 too

	// The trie of the prefixes.
	type node struct {
		child map[uint8]int
		fail  int
		out   []int32
	}
	nodes := []node{{child: map[uint8]int{}}}
	for pi, p := range d.pre {
		k := keywords[p.kws[0]][:p.n]
		n := 0
		for i := range len(k) {
			c := d.class[lower(k[i])]
			next, ok := nodes[n].child[c]
			if !ok {
				next = len(nodes)
				nodes = append(nodes, node{child: map[uint8]int{}})
				nodes[n].child[c] = next
			}
			n = next
		}
		nodes[n].out = append(nodes[n].out, int32(pi))
	}
	if len(nodes)*d.nclass >= finalBit {
		return nil, false
	}
	// Breadth first: failure links and the full transition table.
	next := make([]int, len(nodes)*d.nclass)
	queue := []int{}
	for c := range d.nclass {
		if ch, ok := nodes[0].child[uint8(c)]; ok {
			next[c] = ch
			queue = append(queue, ch)
		}
	}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		nodes[n].out = append(nodes[n].out, nodes[nodes[n].fail].out...)
		for c := range d.nclass {
			if ch, ok := nodes[n].child[uint8(c)]; ok {
				nodes[ch].fail = next[nodes[n].fail*d.nclass+c]
				next[n*d.nclass+c] = ch
				queue = append(queue, ch)
			} else {
				next[n*d.nclass+c] = next[nodes[n].fail*d.nclass+c]
			}
		}
	}
	d.out = make([][]int32, len(nodes))
	for i, n := range nodes {
		d.out[i] = n.out
	}
	// Pre-multiply, and mark the states where a prefix ends.
	d.next = new([1<<16 + 256]uint16)
	for i, st := range next {
		v := uint16(st * d.nclass)
		if len(nodes[st].out) > 0 {
			v |= finalBit
		}
		d.next[i] = v
	}
	return d, true
}

// found reports whether a keyword begins with one of the prefixes that end
// at b[i] in state st (premultiplied, finalBit clear).
func (d *keywordDFA) found(b []byte, st uint16, i int) bool {
	for _, pi := range d.out[int(st)/d.nclass] {
		p := &d.pre[pi]
		start := i + 1 - p.n
		for _, tail := range p.tails {
			if tail == "" || start+p.n+len(tail) <= len(b) && equalFoldASCII(b[start+p.n:start+p.n+len(tail)], tail) {
				return true
			}
		}
	}
	return false
}

// any reports whether a keyword occurs in b. Every step of an automaton
// waits for the step before it, so a long text is read as four streams
// at once, each starting early enough to see a prefix that spans the
// border (plen-1 bytes of overlap; the rest of a keyword is compared with
// b itself): the loads of the four overlap, which makes the scan about
// three times as fast as one stream.
func (d *keywordDFA) any(b []byte) bool {
	const streams = 4
	over := d.plen - 1
	if len(b) < 16*streams+over {
		return d.any1(b)
	}
	q := len(b) / streams
	s0, s1, s2, s3 := b[:q+over], b[q:2*q+over], b[2*q:3*q+over], b[3*q:]
	var a, c, e, f uint16
	for i := 0; ; i++ {
		// run4 stops where a prefix ends in a stream, and only there is
		// the rest of a keyword compared: kept out of run4, the calls do
		// not make its loop keep its states in memory.
		if i, a, c, e, f = d.run4(s0, s1, s2, s3, i, q, a, c, e, f); i == q {
			break
		}
		if a&finalBit != 0 {
			a &^= finalBit
			if d.found(b, a, i) {
				return true
			}
		}
		if c&finalBit != 0 {
			c &^= finalBit
			if d.found(b, c, q+i) {
				return true
			}
		}
		if e&finalBit != 0 {
			e &^= finalBit
			if d.found(b, e, 2*q+i) {
				return true
			}
		}
		if f&finalBit != 0 {
			f &^= finalBit
			if d.found(b, f, 3*q+i) {
				return true
			}
		}
	}
	// Each stream's rest, from its own state.
	return d.anyFrom(b, q, q+over, a) || d.anyFrom(b, 2*q, 2*q+over, c) ||
		d.anyFrom(b, 3*q, 3*q+over, e) || d.anyFrom(b, 4*q, len(b), f)
}

// run4 runs four streams from states a, c, e and f over s0[i:q], s1[i:q],
// s2[i:q] and s3[i:q], and returns where it stopped, after a step where a
// prefix ended in one of them (q if none), and the four states there.
func (d *keywordDFA) run4(s0, s1, s2, s3 []byte, i, q int, a, c, e, f uint16) (int, uint16, uint16, uint16, uint16) {
	next, class := d.next, &d.class
	s0, s1, s2, s3 = s0[:q], s1[:q], s2[:q], s3[:q]
	// The states as uint, loaded from uint16: the sums index next without
	// a bounds check or a truncation in the chain of dependent loads.
	sa, sc, se, sf := uint(a), uint(c), uint(e), uint(f)
	for ; i < q; i++ {
		sa = uint(next[sa+uint(class[s0[i]])])
		sc = uint(next[sc+uint(class[s1[i]])])
		se = uint(next[se+uint(class[s2[i]])])
		sf = uint(next[sf+uint(class[s3[i]])])
		if (sa|sc|se|sf)&finalBit != 0 {
			break
		}
	}
	return i, uint16(sa), uint16(sc), uint16(se), uint16(sf)
}

// any1 is any as one stream, for short texts.
func (d *keywordDFA) any1(b []byte) bool { return d.anyFrom(b, 0, len(b), 0) }

// anyFrom runs the automaton from state st over b[from:to].
func (d *keywordDFA) anyFrom(b []byte, from, to int, st uint16) bool {
	for i := from; ; i++ {
		if i, st = d.run1(b[:to], i, st); i == to {
			return false
		}
		st &^= finalBit
		if d.found(b, st, i) {
			return true
		}
	}
}

// run1 runs the automaton from state st over b[i:], and returns where it
// stopped, after a step where a prefix ended (len(b) if none), and the
// state there.
func (d *keywordDFA) run1(b []byte, i int, st uint16) (int, uint16) {
	next, class := d.next, &d.class
	s := uint(st)
	for ; i < len(b); i++ {
		s = uint(next[s+uint(class[b[i]])])
		if s&finalBit != 0 {
			break
		}
	}
	return i, uint16(s)
}

// hits appends every keyword occurrence in b to dst, in order of where
// they start. Like any, a long text is read as four streams at once;
// stream k keeps the occurrences that start in its own quarter, so the
// overlap reports none twice, and collects them apart from the others, so
// that the four lists, each in order but for a prefix's length, join into
// one.
func (d *keywordDFA) hits(b []byte, dst []hit) []hit {
	const streams = 4
	first := len(dst)
	over := d.plen - 1
	if len(b) < 16*streams+over {
		dst = d.hitsFrom(b, 0, len(b), 0, len(b), 0, dst)
		sortHits(dst[first:])
		return dst
	}
	sb := streamPool.Get().(*[streams][]hit)
	defer streamPool.Put(sb)
	for k := range sb {
		sb[k] = sb[k][:0]
	}
	q := len(b) / streams
	s0, s1, s2, s3 := b[:q], b[q:2*q], b[2*q:3*q], b[3*q:4*q]
	var a, c, e, f uint16
	for i := 0; ; i++ {
		if i, a, c, e, f = d.run4(s0, s1, s2, s3, i, q, a, c, e, f); i == q {
			break
		}
		if a&finalBit != 0 {
			a &^= finalBit
			sb[0] = d.emit(sb[0], b, a, i, 0, q)
		}
		if c&finalBit != 0 {
			c &^= finalBit
			sb[1] = d.emit(sb[1], b, c, q+i, q, 2*q)
		}
		if e&finalBit != 0 {
			e &^= finalBit
			sb[2] = d.emit(sb[2], b, e, 2*q+i, 2*q, 3*q)
		}
		if f&finalBit != 0 {
			f &^= finalBit
			sb[3] = d.emit(sb[3], b, f, 3*q+i, 3*q, len(b))
		}
	}
	// Each stream's rest, from its own state: into the next quarter far
	// enough to finish a prefix that started in its own.
	st := [streams]uint16{a, c, e, f}
	for k := range streams {
		lo, hi := k*q, (k+1)*q
		from, end := hi, min(hi+over, len(b))
		if k == streams-1 {
			hi, end = len(b), len(b)
		}
		sb[k] = d.hitsFrom(b, from, end, lo, hi, st[k], sb[k])
		sortHits(sb[k])
		dst = append(dst, sb[k]...)
		if cap(sb[k]) > maxKeep {
			sb[k] = nil
		}
	}
	return dst
}

// streamPool holds the per-stream hit lists of hits.
var streamPool = sync.Pool{New: func() any { return new([4][]hit) }}

// sortHits orders the hits of one stream by where they start. They come
// out by where their prefixes end, so one is out of place by at most a
// prefix's length: insertion sort is linear here.
func sortHits(h []hit) {
	for i := 1; i < len(h); i++ {
		for j := i; j > 0 && h[j].start < h[j-1].start; j-- {
			h[j], h[j-1] = h[j-1], h[j]
		}
	}
}

// hitsFrom runs the automaton from state st over b[from:to], appending the
// occurrences that start in [lo, hi).
func (d *keywordDFA) hitsFrom(b []byte, from, to, lo, hi int, st uint16, dst []hit) []hit {
	for i := from; ; i++ {
		if i, st = d.run1(b[:to], i, st); i == to {
			return dst
		}
		st &^= finalBit
		dst = d.emit(dst, b, st, i, lo, hi)
	}
}

// emit appends the keywords that begin with a prefix ending at b[i] in
// state st and start in [lo, hi).
func (d *keywordDFA) emit(dst []hit, b []byte, st uint16, i, lo, hi int) []hit {
	for _, pi := range d.out[int(st)/d.nclass] {
		p := &d.pre[pi]
		start := i + 1 - p.n
		if start < lo || start >= hi {
			continue
		}
		for j, tail := range p.tails {
			if tail == "" || start+p.n+len(tail) <= len(b) && equalFoldASCII(b[start+p.n:start+p.n+len(tail)], tail) {
				dst = append(dst, hit{start: int32(start), kw: p.kws[j]})
			}
		}
	}
	return dst
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + ('a' - 'A')
	}
	return c
}
