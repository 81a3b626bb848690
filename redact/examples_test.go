package redact

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp/syntax"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var updateExamples = flag.Bool("update", false, "rewrite testdata/rule_examples.golden.json")

// exampleOutcome is what the text scan made of one rule's example: whether
// it changed it, and a digest of what it wrote (the examples are generated
// secrets, so the golden file holds no text of theirs).
type exampleOutcome struct {
	Detected bool   `json:"detected"`
	Out      string `json:"out"`
}

// TestRuleExamples runs an example of every rule, generated from the
// rule's own expression (exampleOf), through the text scan, and compares
// what came out with testdata/rule_examples.golden.json, recorded before
// the keyword scan was rebuilt: every rule still finds what it found, and
// nothing more. The examples are in prose and in a JSON string too, and
// the keyword automaton's hits on them are the reference automaton's.
func TestRuleExamples(t *testing.T) {
	rs := loadRules()
	require.NoError(t, rs.compileAll())
	r := New(nil, true)
	w := r.get()
	defer r.put(w)
	got := map[string]exampleOutcome{}
	detected := 0
	for _, rl := range rs.rules {
		ex, ok := exampleOf(rl)
		if !ok {
			continue
		}
		for i, text := range []string{ex, "the key is " + ex + ", keep it safe", `{"v":"` + ex + `"}`} {
			out, changed := secretsIn([]byte(text))
			if i == 2 {
				out, changed = w.walkText(text)
			}
			if !changed {
				out = text
			}
			sum := sha256.Sum256([]byte(out))
			got[rl.id+"#"+string(rune('0'+i))] = exampleOutcome{changed, hex.EncodeToString(sum[:8])}
			if i == 0 && changed {
				detected++
			}
			if refHits(refDFA(), rs.keywords, []byte(text)) == nil {
				assert.Empty(t, rs.dfa.hits([]byte(text), nil), rl.id)
			} else {
				assert.Equal(t, refHits(refDFA(), rs.keywords, []byte(text)), rs.dfa.hits([]byte(text), nil), rl.id)
			}
		}
	}
	t.Logf("%d rules, %d with an example, %d examples detected alone", len(rs.rules), len(got)/3, detected)
	assert.Greater(t, len(got)/3, 200, "rules with an example")
	assert.Greater(t, detected, 150, "examples detected")

	path := filepath.Join("testdata", "rule_examples.golden.json")
	if *updateExamples {
		b, err := json.MarshalIndent(got, "", "  ")
		require.NoError(t, err)
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(path, append(b, '\n'), 0o644))
		return
	}
	b, err := os.ReadFile(path)
	require.NoError(t, err, "run go test ./redact -run TestRuleExamples -update")
	var want map[string]exampleOutcome
	require.NoError(t, json.Unmarshal(b, &want))
	assert.Equal(t, want, got)
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
