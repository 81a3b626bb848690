package redact

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

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
