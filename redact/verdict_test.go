package redact

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestVerdicts: a long clean string is remembered and comes out unchanged
// again; a string with a secret is never remembered, and is redacted
// every time it comes; short strings are not remembered; a string that
// lost its slot to another is scanned again, with the same result.
func TestVerdicts(t *testing.T) {
	r := New([]string{"password"}, true)
	w := r.get()
	defer r.put(w)
	long := strings.Repeat("plan a trip to Lisbon in March, ", 20)
	require.GreaterOrEqual(t, len(long), verdictMin)

	out, changed := w.text(long)
	assert.False(t, changed)
	assert.Equal(t, long, out)
	assert.True(t, r.seen.clean(r.seen.fingerprint(long)), "a long clean string is remembered")

	short := "plan a trip"
	w.text(short)
	assert.False(t, r.seen.clean(r.seen.fingerprint(short)), "a short string is not")

	secret := long + " HF_TOKEN=" + fakeHF
	for range 2 {
		out, changed := w.text(secret)
		assert.True(t, changed)
		assert.NotContains(t, out, fakeHF)
		assert.False(t, r.seen.clean(r.seen.fingerprint(secret)), "a string with a secret is not remembered")
	}
	named := `{"password":"` + strings.Repeat("x", verdictMin) + `"}`
	for range 2 {
		out, changed := w.text(named)
		assert.True(t, changed)
		assert.JSONEq(t, `{"password":"`+Placeholder+`"}`, out)
	}

	// Fill the table with other strings: long's slot is taken, and it
	// is scanned again, with the same verdict.
	for i := range 4 * verdictSlots {
		w.text(fmt.Sprintf("%s %d", long, i))
	}
	out, changed = w.text(long)
	assert.False(t, changed)
	assert.Equal(t, long, out)
}

// TestVerdictsConcurrent: goroutines redacting the same strings through one
// Redactor, some clean and some with secrets, get the same answers as one
// goroutine alone (run with -race).
func TestVerdictsConcurrent(t *testing.T) {
	r := New(nil, true)
	base := strings.Repeat("the budget is counted per conversation; ", 10)
	var texts, want []string
	for i := range 64 {
		s := fmt.Sprintf("%s %d", base, i)
		if i%4 == 0 {
			s += " key " + fakeOpenAI
		}
		texts = append(texts, s)
		w := r.get()
		out, _ := w.text(s)
		r.put(w)
		want = append(want, out)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			w := r.get()
			defer r.put(w)
			for n := range 2000 {
				i := (n*7 + g) % len(texts)
				out, _ := w.text(texts[i])
				if out != want[i] {
					t.Errorf("text %d: %q, want %q", i, out, want[i])
					return
				}
			}
		})
	}
	wg.Wait()
}

// BenchmarkSpanUnremembered is BenchmarkSpan/clean-no-keys with the table
// of clean verdicts off: the scan of every string, every time.
func BenchmarkSpanUnremembered(b *testing.B) {
	r := New(nil, true)
	r.seen = nil
	sp := chatSpan(b, "")
	require.False(b, r.Span(sp))
	b.ReportAllocs()
	loop(b, func() { r.Span(sp) })
}

// bench_test.go names the table's size without naming verdict.go, so that
// it also builds in a tree from before the table: the two must agree.
var (
	_ [verdictSlots - verdictSlotsUsed]struct{}
	_ [verdictSlotsUsed - verdictSlots]struct{}
)
