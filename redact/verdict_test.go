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

	for range 2 { // remembered the second time it comes out clean
		out, changed := w.text(long)
		assert.False(t, changed)
		assert.Equal(t, long, out)
	}
	assert.True(t, remembered(r, long), "a long clean string is remembered")

	short := "plan a trip"
	w.text(short)
	w.text(short)
	assert.False(t, remembered(r, short), "a short string is not")

	secret := long + " HF_TOKEN=" + fakeHF
	for range 2 {
		out, changed := w.text(secret)
		assert.True(t, changed)
		assert.NotContains(t, out, fakeHF)
		assert.False(t, remembered(r, secret), "a string with a secret is not remembered")
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
		w.text(fmt.Sprintf("%s %d", long, i))
	}
	out, changed := w.text(long)
	assert.False(t, changed)
	assert.Equal(t, long, out)
}

// TestVerdictsSameSample: strings that pick the same slot (the same
// length, head, middle and tail) but differ elsewhere are told apart: a
// remembered clean one lets no other through unscanned.
func TestVerdictsSameSample(t *testing.T) {
	r := New(nil, true)
	w := r.get()
	defer r.put(w)
	// They differ between the head and the middle.
	head := strings.Repeat("plan a trip to Lisbon in March, ", 3)
	body := strings.Repeat("the budget is counted per conversation; ", 12)
	clean := head + strings.Repeat(".", len(fakeOpenAI)+5) + body
	secret := head + " key " + fakeOpenAI + body
	require.Len(t, secret, len(clean))
	require.Equal(t, r.seen.sample(clean), r.seen.sample(secret), "the test needs one slot for both")
	for _, c := range []struct {
		name string
		long bool // too long to keep a copy of: a fingerprint
	}{{"copy", false}, {"fingerprint", true}} {
		t.Run(c.name, func(t *testing.T) {
			clean, secret := clean, secret
			if c.long {
				pad := strings.Repeat(" ", keepMax)
				clean, secret = pad+clean+pad, pad+secret+pad
				require.Equal(t, r.seen.sample(clean), r.seen.sample(secret))
			}
			for range 2 {
				_, changed := w.text(clean)
				require.False(t, changed)
			}
			require.True(t, remembered(r, clean))
			for range 2 {
				out, changed := w.text(secret)
				assert.True(t, changed)
				assert.NotContains(t, out, fakeOpenAI)
			}
			assert.True(t, remembered(r, clean), "the clean one is still remembered")
		})
	}
}

// TestVerdictsBudget: the copies the table keeps stay within keepBudget
// bytes however many strings come; strings past it, or longer than
// keepMax, are remembered by fingerprint, with the same verdicts.
func TestVerdictsBudget(t *testing.T) {
	r := New(nil, true)
	w := r.get()
	defer r.put(w)
	base := strings.Repeat("plan a trip to Lisbon in March, ", keepMax/32)
	var texts []string
	for i := range 2 * keepBudget / keepMax {
		texts = append(texts, fmt.Sprintf("%d %s", i, base)[:keepMax])
	}
	texts = append(texts, base+base)
	for _, s := range texts {
		for range 2 {
			_, changed := w.text(s)
			require.False(t, changed)
		}
		require.LessOrEqual(t, r.seen.held.Load(), int64(keepBudget))
	}
	n := 0
	for _, s := range texts {
		if remembered(r, s) {
			n++
		}
	}
	assert.Greater(t, n, len(texts)/2, "most are remembered, by copy or by fingerprint")
	secret := texts[len(texts)-1][:len(base)] + " key " + fakeOpenAI + base[:len(base)-len(fakeOpenAI)-5]
	out, changed := w.text(secret)
	assert.True(t, changed)
	assert.NotContains(t, out, fakeOpenAI)
}

// TestVerdictsKeyed: a short value under a key is remembered the second
// time in a row it comes out clean there; another value under the key,
// with a secret or not, is scanned (and redacted) every time; values that
// change every time under one key do not disturb another key's.
func TestVerdictsKeyed(t *testing.T) {
	r := New(nil, true)
	w := r.get()
	defer r.put(w)
	model, id := []byte("gen_ai.request.model"), []byte("gen_ai.response.id")
	rememberedUnder := func(key []byte, s string) bool {
		_, ok := r.seen.lookupKeyed(key, s)
		return ok
	}
	short := "gpt-4o-2024-08-06"
	for i := range 2 {
		out, changed := w.textUnder(model, short)
		assert.False(t, changed)
		assert.Equal(t, short, out)
		assert.Equal(t, i == 1, rememberedUnder(model, short), "sighting %d", i)
	}
	secret := "key " + fakeOpenAI
	require.Less(t, len(secret), verdictMin)
	for range 3 {
		out, changed := w.textUnder(model, secret)
		assert.True(t, changed)
		assert.NotContains(t, out, fakeOpenAI)
		assert.False(t, rememberedUnder(model, secret))
	}
	assert.True(t, rememberedUnder(model, short), "a value with a secret does not take the slot")
	for i := range 2 * keyedSlots {
		w.textUnder(id, fmt.Sprintf("chatcmpl-%08d", i))
	}
	if r.seen.keyedSlot(id) != r.seen.keyedSlot(model) {
		assert.True(t, rememberedUnder(model, short), "another key's new values do not take the slot")
	}
	tiny := "gpt-4o"
	for range 2 {
		w.textUnder(model, tiny)
	}
	assert.False(t, rememberedUnder(model, tiny), "a value under keyedMin is not remembered")
}

// TestVerdictsKeyedTurns: values that come under one key in turns, as
// span names and operation names do in an agent's run (the agent once,
// then each kind of call a few times), are all remembered after a run or
// two, and then cost no allocation.
func TestVerdictsKeyedTurns(t *testing.T) {
	r := New(nil, true)
	w := r.get()
	defer r.put(w)
	key := []byte("gen_ai.operation.name")
	run := []string{"invoke_agent travel-planner", "chat gpt-4o-mini", "chat gpt-4o-mini", "chat gpt-4o-mini",
		"execute_tool search_flights", "execute_tool search_flights"}
	for range 2 {
		for _, s := range run {
			w.textUnder(key, s)
		}
	}
	for _, s := range run {
		_, ok := r.seen.lookupKeyed(key, s)
		assert.True(t, ok, "%q is remembered", s)
	}
	allocs := testing.AllocsPerRun(10, func() {
		for _, s := range run {
			w.textUnder(key, s)
		}
	})
	assert.Zero(t, allocs)
}

// TestVerdictsKeyedConcurrent is TestVerdictsConcurrent for short values
// under keys (run with -race).
func TestVerdictsKeyedConcurrent(t *testing.T) {
	r := New(nil, true)
	keys := [][]byte{[]byte("gen_ai.request.model"), []byte("gen_ai.tool.name")}
	var texts []string
	for i := range 16 {
		s := fmt.Sprintf("value-%02d-of-a-key", i)
		if i%4 == 0 {
			s = "key " + fakeOpenAI
		}
		texts = append(texts, s)
	}
	sameConcurrently(t, r, texts, func(w *walker, n, g int) (int, string) {
		i := (n/3 + g) % len(texts) // each value a few times in a row
		out, _ := w.textUnder(keys[n%2], texts[i])
		return i, out
	})
}

// remembered reports whether r's table holds s as clean.
func remembered(r *Redactor, s string) bool {
	_, ok := r.seen.lookup(s)
	return ok
}

// TestVerdictsConcurrent: goroutines redacting the same strings through one
// Redactor, some clean and some with secrets, get the same answers as one
// goroutine alone (run with -race).
func TestVerdictsConcurrent(t *testing.T) {
	r := New(nil, true)
	base := strings.Repeat("the budget is counted per conversation; ", 10)
	var texts []string
	for i := range 64 {
		s := fmt.Sprintf("%s %d", base, i)
		if i%4 == 0 {
			s += " key " + fakeOpenAI
		}
		texts = append(texts, s)
	}
	sameConcurrently(t, r, texts, func(w *walker, n, g int) (int, string) {
		i := (n*7 + g) % len(texts)
		out, _ := w.text(texts[i])
		return i, out
	})
}

// sameConcurrently redacts each of texts once alone, then has four
// goroutines, each with its own walker, redact them 2000 times through r
// by step (which returns the text it picked at step n of goroutine g, and
// what came out): each must get what came out alone.
func sameConcurrently(t *testing.T, r *Redactor, texts []string, step func(w *walker, n, g int) (int, string)) {
	t.Helper()
	var want []string
	for _, s := range texts {
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
				if i, out := step(w, n, g); out != want[i] {
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
	benchClean(b, r, chatSpan(b, ""))
}

// bench_test.go names the table's size without naming verdict.go, so that
// it also builds in a tree from before the table: the two must agree.
var (
	_ [verdictSlots - verdictSlotsUsed]struct{}
	_ [verdictSlotsUsed - verdictSlots]struct{}
)

// FuzzVerdicts: the table of clean verdicts never changes what comes out.
// A string and the same string with one byte changed (at the same length,
// and often with the same sample, so in the same slot) go through a
// Redactor with the table and one without it, each twice and then the
// first again: the outputs are the same every time.
func FuzzVerdicts(f *testing.F) {
	long := strings.Repeat("plan a trip to Lisbon in March, ", 8)
	for _, c := range []struct {
		s  string
		at uint16
		c  byte
	}{
		{long, 100, 'x'},
		{long + "HF_TOKEN=" + fakeHF, 70, ' '},
		{long[:90] + " key " + fakeOpenAI + long[90:], 95, '.'},
		{`{"m":"` + long + `","password":"abcdefgh"}`, 40, 'Q'},
		{`{"m":"` + long + `","n":"` + strings.Repeat(".", 40) + `"}`, uint16(len(long) + 20), '\\'},
		{"gpt-4o-2024-08-06", 3, 'x'},
		{"key " + fakeOpenAI, 0, 'x'},
		{"password=abcdefghij", 9, ' '},
	} {
		f.Add(c.s, c.at, c.c)
	}
	keys := []string{"password", "api_key"}
	r, ref := New(keys, true), New(keys, true)
	ref.seen = nil
	f.Fuzz(func(t *testing.T, s string, at uint16, c byte) {
		if s == "" {
			return
		}
		b := []byte(s)
		b[int(at)%len(b)] = c
		w, wr := r.get(), ref.get()
		defer r.put(w)
		defer ref.put(wr)
		key := []byte("gen_ai.request.model")
		for _, in := range []string{s, s, string(b), string(b), s} {
			want, wantChanged := wr.text(in)
			got, gotChanged := w.text(in)
			if got != want || gotChanged != wantChanged {
				t.Fatalf("with the table %q (%v), without %q (%v), for %q", got, gotChanged, want, wantChanged, in)
			}
			got, gotChanged = w.textUnder(key, in)
			if got != want || gotChanged != wantChanged {
				t.Fatalf("under a key %q (%v), without the table %q (%v), for %q", got, gotChanged, want, wantChanged, in)
			}
		}
	})
}
