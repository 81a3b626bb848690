package judge_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/judge"
)

// seqCall is one call of a run built from a script.
type seqCall struct {
	tool, args string
	code       string // "" for a success
}

// seqRun builds a run of calls one after another, 100 ms apart.
func seqRun(seed string, calls []seqCall) []artifact.Record {
	r := newRun(seed, time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC))
	for i, c := range calls {
		sp := r.tool(fmt.Sprint("c", i), "", c.tool, fmt.Sprintf("%s-tc%d", seed, i), i*100, i*100+50, c.args, `{"ok":true}`)
		if c.code != "" {
			fail(sp, c.code, "failed")
		}
	}
	return r.records()
}

// The shopping run of the alignment tests.
var shop = []seqCall{
	{"navigate", `{"url":"https://shop.example/"}`, ""},
	{"search", `{"query":"tent","limit":3}`, ""},
	{"click", `{"ref":"e4"}`, ""},
	{"snapshot", `{}`, ""},
	{"add_to_cart", `{"offer":"o1","qty":1}`, ""},
	{"checkout", `{"cart":"c1"}`, ""},
}

// edit returns shop changed by f.
func edit(f func([]seqCall) []seqCall) []seqCall {
	return f(append([]seqCall(nil), shop...))
}

// finding is a finding as the tests name it: "kind a_index b_index".
func findings(rep *judge.DiffReport) []string {
	var out []string
	for _, d := range rep.Divergences {
		s := string(d.Kind)
		for _, i := range []*int{d.AIndex, d.BIndex} {
			if i == nil {
				s += " -"
			} else {
				s += fmt.Sprint(" ", *i)
			}
		}
		if d.RetryOf != nil {
			s += fmt.Sprint(" retry_of ", *d.RetryOf)
		}
		if len(d.Fields) > 0 {
			s += " " + strings.Join(d.Fields, ",")
		}
		out = append(out, s)
	}
	return out
}

// TestDiffAlignment: each ordinary difference between two runs comes out
// as exactly one finding of its kind, not a cascade of divergences.
func TestDiffAlignment(t *testing.T) {
	tests := []struct {
		name     string
		b        []seqCall
		diverged bool
		counts   judge.DiffCounts
		want     []string
	}{
		{"same run", shop, false,
			judge.DiffCounts{CallsA: 6, CallsB: 6, Matched: 6}, nil},
		{"inserted retry after a failure", edit(func(s []seqCall) []seqCall {
			failed := s[1]
			failed.code = "503"
			return append(s[:1], append([]seqCall{failed}, s[1:]...)...)
		}), true,
			judge.DiffCounts{CallsA: 6, CallsB: 7, Matched: 6, Inserted: 1}, []string{"inserted - 1 retry_of 2"}},
		{"inserted retry of a success", edit(func(s []seqCall) []seqCall {
			return append(s[:3], append([]seqCall{s[2]}, s[3:]...)...)
		}), true,
			judge.DiffCounts{CallsA: 6, CallsB: 7, Matched: 6, Inserted: 1}, []string{"inserted - 3 retry_of 2"}},
		{"removed call", edit(func(s []seqCall) []seqCall { return append(s[:3], s[4:]...) }), true,
			judge.DiffCounts{CallsA: 6, CallsB: 5, Matched: 5, Removed: 1}, []string{"removed 3 -"}},
		{"removed first call", shop[1:], true,
			judge.DiffCounts{CallsA: 6, CallsB: 5, Matched: 5, Removed: 1}, []string{"removed 0 -"}},
		{"reordered pair", edit(func(s []seqCall) []seqCall { s[2], s[3] = s[3], s[2]; return s }), true,
			judge.DiffCounts{CallsA: 6, CallsB: 6, Matched: 5, Reordered: 1}, []string{"reordered 2 3"}},
		{"reordered far apart", edit(func(s []seqCall) []seqCall {
			return []seqCall{s[0], s[2], s[3], s[4], s[1], s[5]}
		}), true,
			judge.DiffCounts{CallsA: 6, CallsB: 6, Matched: 5, Reordered: 1}, []string{"reordered 1 4"}},
		{"changed argument", edit(func(s []seqCall) []seqCall { s[1].args = `{"query":"tent","limit":5}`; return s }), false,
			judge.DiffCounts{CallsA: 6, CallsB: 6, Matched: 6, ArgsChanged: 1}, []string{"args_changed 1 1"}},
		{"changed outcome", edit(func(s []seqCall) []seqCall { s[4].code = "OUT_OF_STOCK"; return s }), true,
			judge.DiffCounts{CallsA: 6, CallsB: 6, Matched: 5, Diverged: 1}, []string{"outcome 4 4 ok,code"}},
		{"another tool in its place", edit(func(s []seqCall) []seqCall { s[3] = seqCall{"screenshot", `{}`, ""}; return s }), true,
			judge.DiffCounts{CallsA: 6, CallsB: 6, Matched: 5, Diverged: 1}, []string{"outcome 3 3 tool"}},
		{"stopped early", shop[:4], true,
			judge.DiffCounts{CallsA: 6, CallsB: 4, Matched: 4, Removed: 2}, []string{"removed 4 -", "removed 5 -"}},
		{"retry and changed argument together", edit(func(s []seqCall) []seqCall {
			s[4].args = `{"offer":"o2","qty":1}`
			return append(s[:2], append([]seqCall{s[1]}, s[2:]...)...)
		}), true,
			judge.DiffCounts{CallsA: 6, CallsB: 7, Matched: 6, ArgsChanged: 1, Inserted: 1},
			[]string{"inserted - 2 retry_of 1", "args_changed 4 5"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rep := judge.Diff(seqRun("a", shop), seqRun("b", tt.b))
			assert.Equal(t, tt.diverged, rep.Diverged)
			assert.Equal(t, tt.counts, rep.Counts)
			assert.Equal(t, tt.want, findings(rep))
		})
	}
}

// TestDiffAlignmentChangedArgumentDetail: a changed argument names the
// path that changed, and nothing in the results.
func TestDiffAlignmentChangedArgumentDetail(t *testing.T) {
	b := edit(func(s []seqCall) []seqCall { s[1].args = `{"query":"tent","limit":5}`; return s })
	rep := judge.Diff(seqRun("a", shop), seqRun("b", b))
	require.Len(t, rep.Divergences, 1)
	assert.Equal(t, []judge.Change{{Path: "args.limit", Op: judge.Changed, A: "3", B: "5"}}, rep.Divergences[0].Changes)
	assert.Equal(t, -1, rep.FirstDivergence, "a changed argument alone is no divergence")
}

// TestDiffAlignmentSymmetric: swapping the runs swaps inserted and
// removed, and keeps the rest.
func TestDiffAlignmentSymmetric(t *testing.T) {
	b := edit(func(s []seqCall) []seqCall { return append(s[:3], s[4:]...) })
	rep := judge.Diff(seqRun("b", b), seqRun("a", shop))
	assert.Equal(t, []string{"inserted - 3"}, findings(rep))
	assert.Equal(t, 3, rep.FirstDivergence)
}

// TestDiffAlignmentLarge: long runs that differ in many places align in
// bounded time and count every difference.
func TestDiffAlignmentLarge(t *testing.T) {
	var a, b []seqCall
	for i := range 1500 {
		c := seqCall{tool: fmt.Sprint("t", i%7), args: fmt.Sprintf(`{"i":%d}`, i)}
		a = append(a, c)
		if i%100 != 50 {
			b = append(b, c)
		}
	}
	rep := judge.Diff(seqRun("a", a), seqRun("b", b))
	assert.Equal(t, 15, rep.Counts.Removed)
	assert.Equal(t, 1485, rep.Counts.Matched)
}

// seqFromBytes turns fuzz input into a run: each byte is a call of one of
// four tools, with one of three arguments, failing when its top bit is
// set.
func seqFromBytes(data []byte) []seqCall {
	calls := make([]seqCall, 0, len(data))
	for _, b := range data {
		c := seqCall{tool: fmt.Sprint("t", b%4), args: fmt.Sprintf(`{"v":%d}`, b/4%3)}
		if b&0x80 != 0 {
			c.code = "E"
		}
		calls = append(calls, c)
	}
	return calls
}

// FuzzDiffAlignment: whatever the runs, every call of A is matched,
// diverged, removed or reordered, every call of B matched, diverged,
// inserted or reordered, each finding is counted once, and a run diffed
// with itself has no finding.
func FuzzDiffAlignment(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3}, []byte{0, 1, 1, 2, 3})
	f.Add([]byte{0, 1, 2, 3}, []byte{0, 2, 1, 3})
	f.Add([]byte{0, 1, 2, 3}, []byte{0, 1, 3})
	f.Add([]byte{0x80, 5, 9}, []byte{5, 9, 0x80, 13})
	f.Fuzz(func(t *testing.T, a, b []byte) {
		if len(a) > 64 || len(b) > 64 {
			return
		}
		ra, rb := seqRun("a", seqFromBytes(a)), seqRun("b", seqFromBytes(b))
		rep := judge.Diff(ra, rb)
		c := rep.Counts
		require.Equal(t, c.CallsA, c.Matched+c.Diverged+c.Removed+c.Reordered, "%+v", c)
		require.Equal(t, c.CallsB, c.Matched+c.Diverged+c.Inserted+c.Reordered, "%+v", c)
		require.Len(t, rep.Divergences, c.Diverged+c.Inserted+c.Removed+c.Reordered+c.ArgsChanged)
		require.Equal(t, c.Diverged+c.Inserted+c.Removed+c.Reordered > 0, rep.Diverged)
		seenA, seenB := map[int]bool{}, map[int]bool{}
		for _, d := range rep.Divergences {
			if d.AIndex != nil {
				require.False(t, seenA[*d.AIndex], "A[%d] in two findings", *d.AIndex)
				seenA[*d.AIndex] = true
			}
			if d.BIndex != nil {
				require.False(t, seenB[*d.BIndex], "B[%d] in two findings", *d.BIndex)
				seenB[*d.BIndex] = true
			}
		}
		self := judge.Diff(ra, seqRun("a2", seqFromBytes(a)))
		require.Empty(t, self.Divergences)
	})
}

// BenchmarkDiffAlignment: two runs of 1,000 calls that differ in 20
// places (insertions, removals, a swap, changed arguments).
func BenchmarkDiffAlignment(b *testing.B) {
	var x, y []seqCall
	for i := range 1000 {
		c := seqCall{tool: fmt.Sprint("t", i%9), args: fmt.Sprintf(`{"i":%d,"q":"query %d"}`, i, i%13)}
		x = append(x, c)
		switch i % 50 {
		case 10:
			y = append(y, c, c) // a retry
		case 20: // removed
		case 30:
			c.args = fmt.Sprintf(`{"i":%d,"q":"other"}`, i)
			y = append(y, c)
		default:
			y = append(y, c)
		}
	}
	ra, rb := seqRun("a", x), seqRun("b", y)
	b.ReportAllocs()
	for b.Loop() {
		judge.Diff(ra, rb)
	}
}
