package redact

import "sync"

// keywordDFA finds every occurrence of a set of lower-case keywords in a
// text, ignoring ASCII case, in one pass: an Aho-Corasick automaton turned
// into a table of transitions over byte classes. It is what keeps hundreds
// of rules cheap: gitleaks filters its rules by keyword the same way. A
// maintained Aho-Corasick package would do, but allocates its matches and
// needs the text lower-cased first; this runs over the walker's bytes as
// they are, and a text with no keyword costs one table look-up per byte
// and no allocation.
type keywordDFA struct {
	// class maps a byte to its class: bytes that occur in no keyword share
	// class 0, and a letter shares its lower case's class.
	class  [256]uint8
	nclass int
	// next is the transition table: next[state*nclass+class] is the next
	// state times nclass (so the loop adds instead of multiplying), with
	// finalBit set when a keyword ends there.
	next []uint32
	// out lists, for each state, the keywords that end there.
	out [][]int32
	// maxLen is the longest keyword's length.
	maxLen int
}

// finalBit marks, in a transition, a state where a keyword ends.
const finalBit = 1 << 31

// newKeywordDFA builds the automaton for keywords, which are ASCII.
func newKeywordDFA(keywords []string) *keywordDFA {
	d := &keywordDFA{}
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
			v |= finalBit
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
func (d *keywordDFA) any(b []byte) bool {
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
		if (a|c|e|f)&finalBit != 0 {
			return true
		}
	}
	// Each stream's rest, from its own state.
	for k, st := range [streams]uint32{a, c, e, f} {
		for _, x := range [streams][]byte{s0, s1, s2, s3}[k][q:] {
			st = next[st+uint32(class[x])]
			if st&finalBit != 0 {
				return true
			}
		}
	}
	return false
}

// any1 is any as one stream, for short texts.
func (d *keywordDFA) any1(b []byte) bool {
	next, class := d.next, &d.class
	st := uint32(0)
	for _, c := range b {
		st = next[st+uint32(class[c])]
		if st&finalBit != 0 {
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
func (d *keywordDFA) hits(b []byte, dst []hit, kwLen []int) []hit {
	const streams = 4
	first := len(dst)
	over := d.maxLen - 1
	if len(b) < 64*streams+over {
		dst = d.hitsFrom(b, 0, len(b), 0, len(b), 0, dst, kwLen)
		sortHits(dst[first:])
		return dst
	}
	sb := streamPool.Get().(*[streams][]hit)
	defer streamPool.Put(sb)
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
		if (a|c|e|f)&finalBit != 0 {
			if a&finalBit != 0 {
				a &^= finalBit
				sb[0] = d.emit(sb[0], a/nc, i, 0, q, kwLen)
			}
			if c&finalBit != 0 {
				c &^= finalBit
				sb[1] = d.emit(sb[1], c/nc, q+i, q, 2*q, kwLen)
			}
			if e&finalBit != 0 {
				e &^= finalBit
				sb[2] = d.emit(sb[2], e/nc, 2*q+i, 2*q, 3*q, kwLen)
			}
			if f&finalBit != 0 {
				f &^= finalBit
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

// streamPool holds the per-stream hit lists of hits.
var streamPool = sync.Pool{New: func() any { return new([4][]hit) }}

// sortHits orders the hits of one stream by where they start. They come
// out by where they end, so one is out of place by at most a keyword's
// length: insertion sort is linear here.
func sortHits(h []hit) {
	for i := 1; i < len(h); i++ {
		for j := i; j > 0 && h[j].start < h[j-1].start; j-- {
			h[j], h[j-1] = h[j-1], h[j]
		}
	}
}

// hitsFrom runs the automaton from state st over b[from:to], appending the
// occurrences that start in [lo, hi).
func (d *keywordDFA) hitsFrom(b []byte, from, to, lo, hi int, st uint32, dst []hit, kwLen []int) []hit {
	next, class, nc := d.next, &d.class, uint32(d.nclass)
	for i := from; i < to; i++ {
		st = next[st+uint32(class[b[i]])]
		if st&finalBit != 0 {
			st &^= finalBit
			dst = d.emit(dst, st/nc, i, lo, hi, kwLen)
		}
	}
	return dst
}

// emit appends the keywords that end at b[i] in state s and start in
// [lo, hi).
func (d *keywordDFA) emit(dst []hit, s uint32, i, lo, hi int, kwLen []int) []hit {
	for _, k := range d.out[s] {
		if start := i + 1 - kwLen[k]; lo <= start && start < hi {
			dst = append(dst, hit{start: int32(start), kw: k})
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
