package redact

// This is the keyword automaton as it was before the prefix automaton of
// keyword.go replaced it (one Aho-Corasick table over whole keywords, in
// uint32 transitions), kept as the reference the differential tests
// compare the new one with: FuzzKeywordDFAReference, TestKeywordDFAReference.

import "sync"

// refKeywordDFA finds every occurrence of a set of lower-case keywords in a
// text, ignoring ASCII case, in one pass: an Aho-Corasick automaton turned
// into a table of transitions over byte classes. It is what keeps hundreds
// of rules cheap: gitleaks filters its rules by keyword the same way. A
// maintained Aho-Corasick package would do, but allocates its matches and
// needs the text lower-cased first; this runs over the walker's bytes as
// they are, and a text with no keyword costs one table look-up per byte
// and no allocation.
type refKeywordDFA struct {
	// class maps a byte to its class: bytes that occur in no keyword share
	// class 0, and a letter shares its lower case's class.
	class  [256]uint8
	nclass int
	// next is the transition table: next[state*nclass+class] is the next
	// state times nclass (so the loop adds instead of multiplying), with
	// refFinalBit set when a keyword ends there.
	next []uint32
	// out lists, for each state, the keywords that end there.
	out [][]int32
	// maxLen is the longest keyword's length.
	maxLen int
}

// refFinalBit marks, in a transition, a state where a keyword ends.
const refFinalBit = 1 << 31

// newRefKeywordDFA builds the automaton for keywords, which are ASCII.
func newRefKeywordDFA(keywords []string) *refKeywordDFA {
	d := &refKeywordDFA{}
	for _, k := range keywords {
		for i := range len(k) {
			c := lower(k[i])
			if d.class[c] == 0 {
				d.nclass++
				d.class[c] = uint8(d.nclass)
			}
		}
	}
	for c := 'A'; c <= 'Z'; c++ {
		d.class[c] = d.class[c+('a'-'A')]
	}
	d.nclass++ // class 0 too

	// The trie.
	type node struct {
		child map[uint8]int
		fail  int
		out   []int32
	}
	nodes := []node{{child: map[uint8]int{}}}
	for ki, k := range keywords {
		d.maxLen = max(d.maxLen, len(k))
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
		nodes[n].out = append(nodes[n].out, int32(ki))
	}
	// Breadth first: failure links and the full transition table.
	d.next = make([]uint32, len(nodes)*d.nclass)
	queue := []int{}
	for c := range d.nclass {
		if ch, ok := nodes[0].child[uint8(c)]; ok {
			d.next[c] = uint32(ch)
			queue = append(queue, ch)
		}
	}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		nodes[n].out = append(nodes[n].out, nodes[nodes[n].fail].out...)
		for c := range d.nclass {
			if ch, ok := nodes[n].child[uint8(c)]; ok {
				nodes[ch].fail = int(d.next[nodes[n].fail*d.nclass+c])
				d.next[n*d.nclass+c] = uint32(ch)
				queue = append(queue, ch)
			} else {
				d.next[n*d.nclass+c] = d.next[nodes[n].fail*d.nclass+c]
			}
		}
	}
	d.out = make([][]int32, len(nodes))
	for i, n := range nodes {
		d.out[i] = n.out
	}
	// Pre-multiply, and mark the states where a keyword ends.
	for i, st := range d.next {
		v := st * uint32(d.nclass)
		if len(nodes[st].out) > 0 {
			v |= refFinalBit
		}
		d.next[i] = v
	}
	return d
}

// any reports whether a keyword occurs in b. Every step of an automaton
// waits for the step before it, so a long text is read as four streams
// at once, each starting early enough to see a keyword that spans the
// border (maxLen-1 bytes of overlap): the loads of the four overlap, which
// makes the scan about three times as fast as one stream.
func (d *refKeywordDFA) any(b []byte) bool {
	const streams = 4
	over := d.maxLen - 1
	if len(b) < 64*streams+over {
		return d.any1(b)
	}
	next, class := d.next, &d.class
	q := len(b) / streams
	s0, s1, s2, s3 := b[:q+over], b[q:2*q+over], b[2*q:3*q+over], b[3*q:]
	var a, c, e, f uint32
	for i := range q { // every stream is at least q long
		a = next[a+uint32(class[s0[i]])]
		c = next[c+uint32(class[s1[i]])]
		e = next[e+uint32(class[s2[i]])]
		f = next[f+uint32(class[s3[i]])]
		if (a|c|e|f)&refFinalBit != 0 {
			return true
		}
	}
	// Each stream's rest, from its own state.
	for k, st := range [streams]uint32{a, c, e, f} {
		for _, x := range [streams][]byte{s0, s1, s2, s3}[k][q:] {
			st = next[st+uint32(class[x])]
			if st&refFinalBit != 0 {
				return true
			}
		}
	}
	return false
}

// any1 is any as one stream, for short texts.
func (d *refKeywordDFA) any1(b []byte) bool {
	next, class := d.next, &d.class
	st := uint32(0)
	for _, c := range b {
		st = next[st+uint32(class[c])]
		if st&refFinalBit != 0 {
			return true
		}
	}
	return false
}

// hits appends every keyword occurrence in b to dst, in order of where
// they start; kwLen gives each keyword's length. Like any, a long text is
// read as four streams at once; stream k keeps the occurrences that start
// in its own quarter, so the overlap reports none twice, and collects
// them apart from the others, so that the four lists, each in order but
// for a keyword's length, join into one.
func (d *refKeywordDFA) hits(b []byte, dst []hit, kwLen []int) []hit {
	const streams = 4
	first := len(dst)
	over := d.maxLen - 1
	if len(b) < 64*streams+over {
		dst = d.hitsFrom(b, 0, len(b), 0, len(b), 0, dst, kwLen)
		sortHits(dst[first:])
		return dst
	}
	sb := refStreamPool.Get().(*[streams][]hit)
	defer refStreamPool.Put(sb)
	for k := range sb {
		sb[k] = sb[k][:0]
	}
	next, class, nc := d.next, &d.class, uint32(d.nclass)
	q := len(b) / streams
	s0, s1, s2, s3 := b[:q], b[q:2*q], b[2*q:3*q], b[3*q:4*q]
	var a, c, e, f uint32
	for i := range q {
		a = next[a+uint32(class[s0[i]])]
		c = next[c+uint32(class[s1[i]])]
		e = next[e+uint32(class[s2[i]])]
		f = next[f+uint32(class[s3[i]])]
		if (a|c|e|f)&refFinalBit != 0 {
			if a&refFinalBit != 0 {
				a &^= refFinalBit
				sb[0] = d.emit(sb[0], a/nc, i, 0, q, kwLen)
			}
			if c&refFinalBit != 0 {
				c &^= refFinalBit
				sb[1] = d.emit(sb[1], c/nc, q+i, q, 2*q, kwLen)
			}
			if e&refFinalBit != 0 {
				e &^= refFinalBit
				sb[2] = d.emit(sb[2], e/nc, 2*q+i, 2*q, 3*q, kwLen)
			}
			if f&refFinalBit != 0 {
				f &^= refFinalBit
				sb[3] = d.emit(sb[3], f/nc, 3*q+i, 3*q, len(b), kwLen)
			}
		}
	}
	// Each stream's rest, from its own state: into the next quarter far
	// enough to finish a keyword that started in its own.
	st := [streams]uint32{a, c, e, f}
	for k := range streams {
		lo, hi := k*q, (k+1)*q
		from, end := hi, min(hi+over, len(b))
		if k == streams-1 {
			hi, end = len(b), len(b)
		}
		sb[k] = d.hitsFrom(b, from, end, lo, hi, st[k], sb[k], kwLen)
		sortHits(sb[k])
		dst = append(dst, sb[k]...)
		if cap(sb[k]) > maxKeep {
			sb[k] = nil
		}
	}
	return dst
}

// refStreamPool holds the per-stream hit lists of hits.
var refStreamPool = sync.Pool{New: func() any { return new([4][]hit) }}

// hitsFrom runs the automaton from state st over b[from:to], appending the
// occurrences that start in [lo, hi).
func (d *refKeywordDFA) hitsFrom(b []byte, from, to, lo, hi int, st uint32, dst []hit, kwLen []int) []hit {
	next, class, nc := d.next, &d.class, uint32(d.nclass)
	for i := from; i < to; i++ {
		st = next[st+uint32(class[b[i]])]
		if st&refFinalBit != 0 {
			st &^= refFinalBit
			dst = d.emit(dst, st/nc, i, lo, hi, kwLen)
		}
	}
	return dst
}

// emit appends the keywords that end at b[i] in state s and start in
// [lo, hi).
func (d *refKeywordDFA) emit(dst []hit, s uint32, i, lo, hi int, kwLen []int) []hit {
	for _, k := range d.out[s] {
		if start := i + 1 - kwLen[k]; lo <= start && start < hi {
			dst = append(dst, hit{start: int32(start), kw: k})
		}
	}
	return dst
}

// refHits is the reference automaton's hits for the rule set's keywords.
func refHits(d *refKeywordDFA, kws []string, b []byte) []hit {
	lens := make([]int, len(kws))
	for i, k := range kws {
		lens[i] = len(k)
	}
	return d.hits(b, nil, lens)
}

// refDFA is the reference automaton over the embedded rules' keywords.
var refDFA = sync.OnceValue(func() *refKeywordDFA { return newRefKeywordDFA(loadRules().keywords) })
