package redact

import (
	"hash/fnv"
	"math/rand/v2"
	"regexp/syntax"
	"strings"
	"unicode/utf8"
)

// A RuleExample is one rule's own example: a text the rule's expression
// matches, and the part of it the rule replaces (its secret group).
type RuleExample struct {
	// Rule is the rule's id: gitleaks' (stripe-access-token), or this
	// project's, prefixed "agenttrace/".
	Rule string
	// Text is the example, generated from the rule's expression.
	Text string
	// Secret is what redaction must remove from Text. Empty when the
	// example was judged no secret by the rule itself (Missing says why).
	Secret string
}

// RuleExamples returns an example of every secret rule (gitleaks' and this
// project's), generated from the rule's own expression with a generator
// seeded by the rule's id, so the same examples every run; the vendored
// gitleaks data carries no examples of its own. Rules no example could be
// generated for, or whose example the rule itself does not count as a
// secret (its entropy threshold, allowlist or check refuse it), are in
// missing, with the reason. It is for tests: a caller that claims to
// redact what the rules find (the CLI's convert, over every content shape)
// checks itself against every rule. It compiles every rule.
func RuleExamples() (examples []RuleExample, missing map[string]string) {
	rs := loadRules()
	missing = map[string]string{}
	for _, rl := range rs.rules {
		ex, ok := exampleOf(rl)
		if !ok {
			missing[rl.id] = "no text the expression matches came out of 20 generated tries (its boundaries or look-arounds are left to chance)"
			continue
		}
		if !holdsKeyword(ex, rl.keywords) {
			missing[rl.id] = "the generated example holds none of the rule's keywords (its expression's '.' stood in for a keyword's dot), which gitleaks requires before it runs a rule too"
			continue
		}
		l := rl.re.FindStringSubmatchIndex(ex)
		a, z := rl.secret(l)
		if a < 0 || a >= z {
			missing[rl.id] = "the example's secret group is empty"
			continue
		}
		secret := ex[a:z]
		if !rl.keep(ex, l, secret) {
			missing[rl.id] = "the rule's own entropy threshold, check or allowlist refuses the generated example"
			continue
		}
		examples = append(examples, RuleExample{Rule: rl.id, Text: ex, Secret: secret})
	}
	return examples, missing
}

// holdsKeyword reports whether s holds one of keywords, ignoring case.
func holdsKeyword(s string, keywords []string) bool {
	ls := strings.ToLower(s)
	for _, k := range keywords {
		if strings.Contains(ls, strings.ToLower(k)) {
			return true
		}
	}
	return false
}

// exampleOf generates a text the rule's expression matches, from the
// expression itself, with a random generator seeded by the rule's id (the
// same example every run, here and in the tree the golden file was made
// in). It reports false when a few tries give no match (an expression
// whose boundaries the generator does not arrange).
func exampleOf(r *rule) (string, bool) {
	r.ready()
	tree, err := syntax.Parse(r.expr, syntax.Perl)
	if err != nil {
		return "", false
	}
	h := fnv.New64a()
	h.Write([]byte(r.id))
	rng := rand.New(rand.NewPCG(h.Sum64(), 7))
	for range 20 {
		var sb strings.Builder
		generate(tree, rng, &sb)
		s := sb.String()
		if loc := r.re.FindStringIndex(s); loc != nil && utf8.ValidString(s) {
			return s, true
		}
	}
	return "", false
}

// generate appends to sb a random text re matches (but for boundaries,
// which it leaves to chance).
func generate(re *syntax.Regexp, rng *rand.Rand, sb *strings.Builder) {
	switch re.Op {
	case syntax.OpLiteral:
		for _, c := range re.Rune {
			sb.WriteRune(c)
		}
	case syntax.OpCharClass:
		sb.WriteRune(classRune(re.Rune, rng))
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		sb.WriteByte(byte('a' + rng.IntN(26)))
	case syntax.OpCapture:
		generate(re.Sub[0], rng, sb)
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		lo, hi := 0, 3
		switch re.Op {
		case syntax.OpPlus:
			lo, hi = 1, 4
		case syntax.OpQuest:
			lo, hi = 0, 1
		case syntax.OpRepeat:
			lo, hi = re.Min, re.Max
			if hi < 0 || hi > lo+8 {
				hi = lo + 8
			}
		}
		for range lo + rng.IntN(hi-lo+1) {
			generate(re.Sub[0], rng, sb)
		}
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			generate(sub, rng, sb)
		}
	case syntax.OpAlternate:
		generate(re.Sub[rng.IntN(len(re.Sub))], rng, sb)
	}
}

// classRune picks a rune of a character class (ranges as in
// syntax.Regexp.Rune), printable ASCII where the class has some.
func classRune(ranges []rune, rng *rand.Rand) rune {
	var ascii []rune
	for i := 0; i < len(ranges); i += 2 {
		for c := max(ranges[i], 0x21); c <= min(ranges[i+1], 0x7e); c++ {
			ascii = append(ascii, c)
		}
	}
	if len(ascii) > 0 {
		return ascii[rng.IntN(len(ascii))]
	}
	return ranges[0]
}
