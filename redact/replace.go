package redact

import (
	"encoding/base64"
	"math"
	"math/bits"
	"strings"
	"sync"
	"unicode/utf8"
)

// A hit is a keyword occurrence: where it starts and which keyword.
type hit struct{ start, kw int32 }

// hitPool holds the scratch slices hits are collected in.
var hitPool = sync.Pool{New: func() any { s := make([]hit, 0, 64); return &s }}

// candidate reports whether any keyword occurs in b.
func (rs *ruleSet) candidate(b []byte) bool { return rs.dfa.any(b) }

// replace runs every rule whose keyword occurs in s, in order, each over
// the text the rules before it left, and returns the new text and whether
// anything changed.
func (rs *ruleSet) replace(s string) (string, bool) {
	hp := hitPool.Get().(*[]hit)
	defer func() {
		if cap(*hp) <= maxKeep {
			hitPool.Put(hp)
		}
	}()
	hits := rs.dfa.hits(bytesOf(s), (*hp)[:0])
	*hp = hits
	if len(hits) == 0 {
		return s, false
	}
	changed := false
	var cand ruleMask
	rs.mark(&cand, hits)
	if cand == (ruleMask{}) {
		return s, false // only the patterns' keywords, which run no rule
	}
	// The candidates in order, by their bits: a string with a keyword
	// has a few of some 260 rules.
	for ri := cand.next(0); ri >= 0; ri = cand.next(ri + 1) {
		r := rs.rules[ri]
		r.ready()
		var matches [][]int
		if r.atStart {
			matches = rs.anchored(s, ri, r, hits)
		} else if r.hasNeeds(s) {
			matches = rs.near(r.re.FindAllStringSubmatchIndex(s, -1), ri, hits)
		}
		if len(matches) == 0 {
			continue
		}
		if ns, ok := r.apply(s, matches); ok {
			s, changed = ns, true
			hits = rs.dfa.hits(bytesOf(s), hits[:0])
			*hp = hits
			cand = ruleMask{}
			rs.mark(&cand, hits)
		}
	}
	return s, changed
}

// nearWindow is how far before a match a keyword of its rule may be. A
// rule run unanchored matches anywhere in a string that holds one of its
// keywords (gitleaks judges whole files that way); a few rules match bare
// hex or base64 (sourcegraph's bare 40 hex digits, once "sourcegraph" is
// in the file), which would take every git hash of a long tool result
// that mentions the service once. A match counts only with a keyword
// inside it or at most this many bytes before it.
const nearWindow = 256

// near keeps the matches with a keyword of rule ri inside them or at most
// nearWindow bytes before them.
func (rs *ruleSet) near(matches [][]int, ri int, hits []hit) [][]int {
	out := matches[:0]
	for _, l := range matches {
		for _, h := range hits {
			p := int(h.start)
			if p >= l[1] {
				break
			}
			if p >= l[0]-nearWindow && containsInt(rs.kwRules[h.kw], ri) {
				out = append(out, l)
				break
			}
		}
	}
	return out
}

// ruleMask is a set of rules by index.
type ruleMask [maxRules / 64]uint64

// maxRules bounds how many rules a set can hold; compileRules checks it.
const maxRules = 512

func (m *ruleMask) has(i int) bool { return m[i/64]&(1<<(i%64)) != 0 }

// next returns the smallest rule in m at or after i, or -1.
func (m *ruleMask) next(i int) int {
	for w := i / 64; w < len(m); w++ {
		word := m[w]
		if w == i/64 {
			word &^= 1<<(i%64) - 1
		}
		if word != 0 {
			return w*64 + bits.TrailingZeros64(word)
		}
	}
	return -1
}

// mark adds the rules of every keyword in hits.
func (rs *ruleSet) mark(m *ruleMask, hits []hit) {
	last := int32(-1)
	for _, h := range hits {
		if h.kw == last {
			continue
		}
		last = h.kw
		for _, ri := range rs.kwRules[h.kw] {
			m[ri/64] |= 1 << (ri % 64)
		}
	}
}

// anchored finds the matches of an atStart rule: the expression anchored
// at each occurrence of one of its keywords, in order, skipping those
// inside an earlier match. That is what FindAll of the unanchored
// expression finds, since every match starts at such an occurrence.
func (rs *ruleSet) anchored(s string, ri int, r *rule, hits []hit) [][]int {
	var matches [][]int
	end := 0
	// occ holds, for each member of each required set in turn, where it
	// next starts at or after the hits tried so far (-2: not looked for
	// yet, -1: nowhere further), so that each member is searched for over
	// the text once in all, however many hits there are.
	var occ [maxNeedMembers]int
	for i := range occ {
		occ[i] = -2
	}
hits:
	for _, h := range hits {
		p := int(h.start)
		if p < end || !containsInt(rs.kwRules[h.kw], ri) {
			continue
		}
		if r.wordStart && p > 0 && isWord(s[p-1]) || !r.hasExactPrefix(s, p) {
			continue
		}
		m := 0
		for _, set := range r.needs {
			found := false
			for _, w := range set {
				if o := occ[m]; o == -2 || (o >= 0 && o < p) {
					if i := indexFold(s[p:], w); i >= 0 {
						occ[m] = p + i
					} else {
						occ[m] = -1
					}
				}
				found = found || occ[m] >= 0
				m++
			}
			if !found {
				break hits // hits are in order: none later can start a match
			}
		}
		var l []int
		if p == 0 {
			l = r.at.FindStringSubmatchIndex(s)
		} else {
			_, size := utf8.DecodeLastRuneInString(s[:p])
			q := p - size
			if l = r.ctx.FindStringSubmatchIndex(s[q:]); l != nil {
				for k := range l {
					if l[k] >= 0 {
						l[k] += q
					}
				}
				l[0] = p
			}
		}
		if l == nil {
			continue
		}
		matches = append(matches, l)
		end = max(l[1], p+1)
	}
	return matches
}

func containsInt(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// apply replaces the secret of each match that passes the rule's filters.
func (r *rule) apply(s string, matches [][]int) (string, bool) {
	var sb strings.Builder
	last := 0
	for _, l := range matches {
		a, z := r.secret(l)
		if a < last || a >= z {
			continue
		}
		secret := s[a:z]
		if secret == Placeholder || !r.keep(s, l, secret) {
			continue
		}
		if sb.Len() == 0 {
			sb.Grow(len(s))
		}
		sb.WriteString(s[last:a])
		sb.WriteString(Placeholder)
		last = z
	}
	if last == 0 {
		return s, false
	}
	sb.WriteString(s[last:])
	return sb.String(), true
}

// secret returns where a match's secret is: the rule's group, else, as in
// gitleaks, the first non-empty group, else the whole match.
func (r *rule) secret(l []int) (int, int) {
	if r.group > 0 {
		return l[2*r.group], l[2*r.group+1]
	}
	for g := 1; 2*g+1 < len(l); g++ {
		if l[2*g] >= 0 && l[2*g+1] > l[2*g] {
			return l[2*g], l[2*g+1]
		}
	}
	return l[0], l[1]
}

// keep reports whether a match is a secret by the rule's entropy, checks
// and allowlists, as gitleaks judges it.
func (r *rule) keep(s string, l []int, secret string) bool {
	if r.entropy != 0 && shannonEntropy(secret) <= r.entropy {
		return false
	}
	if r.check != nil && !r.check(secret) {
		return false
	}
	for _, a := range r.allow {
		target := secret
		switch a.target {
		case "match":
			target = s[l[0]:l[1]]
		case "line":
			target = lineOf(s, l[0], l[1])
		}
		for _, re := range a.regexes {
			if re.MatchString(target) {
				return false
			}
		}
		if len(a.stopwords) > 0 {
			low := strings.ToLower(secret)
			for _, w := range a.stopwords {
				if strings.Contains(low, w) {
					return false
				}
			}
		}
	}
	return true
}

// lineOf returns the line of s holding s[a:z].
func lineOf(s string, a, z int) string {
	start := strings.LastIndexByte(s[:a], '\n') + 1
	end := strings.IndexByte(s[z:], '\n')
	if end < 0 {
		return s[start:]
	}
	return s[start : z+end]
}

// shannonEntropy is gitleaks': over the string's runes, per byte of length.
func shannonEntropy(s string) float64 {
	if s == "" {
		return 0
	}
	counts := map[rune]int{}
	for _, c := range s {
		counts[c]++
	}
	inv := 1 / float64(len(s))
	e := 0.0
	for _, n := range counts {
		f := float64(n) * inv
		e -= f * math.Log2(f)
	}
	return e
}

// hasDigitAndLetter reports whether v has both, as a generated token does
// and a word or an identifier mostly does not.
func hasDigitAndLetter(v string) bool {
	digit, letter := false, false
	for i := range len(v) {
		c := v[i]
		digit = digit || '0' <= c && c <= '9'
		letter = letter || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
	}
	return digit && letter
}

// isBasicCredential reports whether a Basic credential decodes to
// user:password, printable, so that "Basic reasoning" is prose.
func isBasicCredential(v string) bool {
	b, err := base64.StdEncoding.DecodeString(v)
	if err != nil {
		b, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(v, "="))
		if err != nil {
			return false
		}
	}
	colon := false
	for _, c := range b {
		if c < 0x20 || c > 0x7e {
			return false
		}
		colon = colon || c == ':'
	}
	return colon && len(b) >= 3
}
