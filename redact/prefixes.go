package redact

import (
	"regexp/syntax"
	"strings"
	"unicode/utf8"
)

// maxPrefixes bounds the prefix sets matchPrefixes builds.
const maxPrefixes = 256

// matchPrefixes returns lower-case strings one of which every match of re
// starts with (ok false when it cannot tell), and whether they are whole
// matches (so a concatenation can extend them with what follows). It is
// conservative: a rule it cannot read runs unanchored.
func matchPrefixes(re *syntax.Regexp) (set []string, complete, ok bool) {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText,
		syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return []string{""}, true, true
	case syntax.OpLiteral:
		return []string{strings.ToLower(string(re.Rune))}, true, true
	case syntax.OpCharClass:
		n := 0
		for i := 0; i < len(re.Rune); i += 2 {
			n += int(re.Rune[i+1]-re.Rune[i]) + 1
		}
		if n > 16 {
			return nil, false, false
		}
		seen := map[string]bool{}
		for i := 0; i < len(re.Rune); i += 2 {
			for c := re.Rune[i]; c <= re.Rune[i+1]; c++ {
				s := strings.ToLower(string(c))
				if !seen[s] {
					seen[s] = true
					set = append(set, s)
				}
			}
		}
		return set, true, true
	case syntax.OpCapture:
		return matchPrefixes(re.Sub[0])
	case syntax.OpPlus:
		set, _, ok = matchPrefixes(re.Sub[0])
		return set, false, ok
	case syntax.OpRepeat:
		if re.Min < 1 {
			return nil, false, false
		}
		set, _, ok = matchPrefixes(re.Sub[0])
		return set, false, ok
	case syntax.OpAlternate:
		complete = true
		for _, sub := range re.Sub {
			s, c, ok := matchPrefixes(sub)
			if !ok {
				return nil, false, false
			}
			set = append(set, s...)
			complete = complete && c
		}
		return set, complete, len(set) <= maxPrefixes
	case syntax.OpConcat:
		set, complete = []string{""}, true
		for _, sub := range re.Sub {
			s, c, ok := matchPrefixes(sub)
			if !ok {
				return set, false, len(set) > 1 || set[0] != ""
			}
			if len(set)*len(s) > maxPrefixes {
				return set, false, set[0] != ""
			}
			next := make([]string, 0, len(set)*len(s))
			for _, a := range set {
				for _, b := range s {
					next = append(next, a+b)
				}
			}
			set = next
			if !c {
				return set, false, true
			}
		}
		return set, complete, true
	}
	return nil, false, false
}

// exactPrefixes returns the literals, as written, one of which every
// match of re starts with, when re starts with case-sensitive literals
// (after any empty-width assertions and captures), or nil.
func exactPrefixes(re *syntax.Regexp) []string {
	switch re.Op {
	case syntax.OpCapture:
		return exactPrefixes(re.Sub[0])
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			return nil
		}
		return []string{string(re.Rune)}
	case syntax.OpAlternate:
		var out []string
		for _, sub := range re.Sub {
			p := exactPrefixes(sub)
			if p == nil {
				return nil
			}
			out = append(out, p...)
		}
		return out
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			switch sub.Op {
			case syntax.OpWordBoundary, syntax.OpBeginText, syntax.OpBeginLine:
				continue
			}
			return exactPrefixes(sub)
		}
	}
	return nil
}

// hasExactPrefix reports whether s[p:] starts with one of r.exact (true
// when the rule has none).
func (r *rule) hasExactPrefix(s string, p int) bool {
	if r.exact == nil {
		return true
	}
	for _, e := range r.exact {
		if strings.HasPrefix(s[p:], e) {
			return true
		}
	}
	return false
}

// leadingWordBoundary reports whether re starts with \b.
func leadingWordBoundary(re *syntax.Regexp) bool {
	for {
		switch re.Op {
		case syntax.OpWordBoundary:
			return true
		case syntax.OpCapture:
			re = re.Sub[0]
		case syntax.OpConcat:
			if len(re.Sub) == 0 {
				return false
			}
			re = re.Sub[0]
		case syntax.OpAlternate:
			for _, sub := range re.Sub {
				if !leadingWordBoundary(sub) {
					return false
				}
			}
			return true
		default:
			return false
		}
	}
}

// requiredSets returns, for a rule whose expression is a concatenation,
// the sets of strings that must occur in every match, one of each set:
// what each part of the concatenation after the first starts with (with
// what follows it, as far as that is literal), when matchPrefixes can tell
// and every string is ASCII. They are lower case; a text is searched for
// them ignoring ASCII case, which finds a superset.
func requiredSets(re *syntax.Regexp) [][]string {
	for re.Op == syntax.OpCapture {
		re = re.Sub[0]
	}
	if re.Op != syntax.OpConcat {
		return nil
	}
	var sets [][]string
	members := 0
	for i := 1; i < len(re.Sub); i++ {
		sub := &syntax.Regexp{Op: syntax.OpConcat, Sub: re.Sub[i:]}
		set, _, ok := matchPrefixes(sub)
		if !ok || len(set) == 0 || len(set) > 16 {
			continue
		}
		useful := true
		for _, s := range set {
			if s == "" || !isASCII(s) || (len(s) == 1 && (isWord(s[0]) || isSpace(s[0]))) {
				useful = false // any text has one
				break
			}
		}
		if useful && len(sets) < maxNeeds && members+len(set) <= maxNeedMembers {
			sets = append(sets, set)
			members += len(set)
		}
	}
	return sets
}

func isASCII(s string) bool {
	for i := range len(s) {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// hasNeeds reports whether s holds a member of each required set.
func (r *rule) hasNeeds(s string) bool {
	for _, set := range r.needs {
		if needFrom(s, set, 0) < 0 {
			return false
		}
	}
	return true
}

// maxNeeds bounds the required sets kept for a rule, and maxNeedMembers
// their members in all.
const (
	maxNeeds       = 8
	maxNeedMembers = 64
)

// needFrom returns where, at or after p, a member of required set set
// first starts in s, or -1.
func needFrom(s string, set []string, p int) int {
	first := -1
	for _, w := range set {
		if i := indexFold(s[p:], w); i >= 0 && (first < 0 || p+i < first) {
			first = p + i
		}
	}
	return first
}

// indexFold is strings.Index of w, lower-case ASCII, ignoring ASCII
// case. It searches for w's rarest byte (anchorOf) and checks w around
// each occurrence: in " -h" it looks for the dash, not for every space of
// the text.
func indexFold(s, w string) int {
	if len(w) == 0 || len(w) > len(s) {
		return -1
	}
	o := anchorOf(w)
	lo, up := w[o], w[o]
	if 'a' <= lo && lo <= 'z' {
		up = lo - ('a' - 'A')
	}
	// Each candidate is searched for from the one before, either case,
	// and no further than the nearer: linear in how far the match is.
	last := len(s) - len(w) + o // the last place the anchor can be
	for from := o; from <= last; {
		end, i := last+1, -1
		if j := strings.IndexByte(s[from:end], lo); j >= 0 {
			i = from + j
			end = i
		}
		if up != lo {
			if j := strings.IndexByte(s[from:end], up); j >= 0 {
				i = from + j
			}
		}
		if i < 0 {
			return -1
		}
		if equalFoldASCII(bytesOf(s[i-o:i-o+len(w)]), w) {
			return i - o
		}
		from = i + 1
	}
	return -1
}

// anchorOf returns the index of the byte of w least common in text: by a
// rough rank of English letters, with both cases of a letter counted,
// white space the most common and punctuation the least.
func anchorOf(w string) int {
	const letters = "etaoinshrdlcumwfgypbvkjxqz" // most common first
	best, bestScore := 0, 1<<30
	for i := range len(w) {
		c := w[i]
		var score int
		switch {
		case c == ' ':
			score = 100
		case 'a' <= c && c <= 'z':
			score = 60 - strings.IndexByte(letters, c)
		case '0' <= c && c <= '9':
			score = 20
		case isSpace(c):
			score = 10
		default:
			score = 1
		}
		if score < bestScore {
			best, bestScore = i, score
		}
	}
	return best
}
