package judge_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/internal/artifacttest"
	"github.com/agenttrace/agenttrace/judge"
)

func TestDiffFixtures(t *testing.T) {
	tests := []struct {
		name       string
		a, b       string
		diverged   bool
		first      int
		counts     judge.DiffCounts
		redacted   judge.Redaction
		divergence []string // "index kind fields"
	}{
		{"rerun does not diverge; its arguments changed", "diff-base.jsonl", "diff-rerun.jsonl", false, -1,
			judge.DiffCounts{CallsA: 6, CallsB: 6, Matched: 6, ArgsChanged: 2}, judge.Redaction{},
			[]string{"1 args_changed ", "3 args_changed "}},
		{"same run", "diff-base.jsonl", "diff-base.jsonl", false, -1,
			judge.DiffCounts{CallsA: 6, CallsB: 6, Matched: 6}, judge.Redaction{}, nil},
		{"diverged: another code at 3, one extra call", "diff-base.jsonl", "diff-diverged.jsonl", true, 3,
			judge.DiffCounts{CallsA: 6, CallsB: 7, Matched: 5, Diverged: 1, Inserted: 1}, judge.Redaction{},
			[]string{"3 outcome code", "6 inserted "}},
		{"reversed: the call is removed in B", "diff-diverged.jsonl", "diff-base.jsonl", true, 3,
			judge.DiffCounts{CallsA: 7, CallsB: 6, Matched: 5, Diverged: 1, Removed: 1}, judge.Redaction{},
			[]string{"3 outcome code", "6 removed "}},
		{"redacted B", "diff-base.jsonl", "diff-redacted.jsonl", true, 3,
			judge.DiffCounts{CallsA: 6, CallsB: 6, Matched: 5, Diverged: 1}, judge.Redaction{B: true},
			[]string{"3 outcome code"}},
		{"redacted A", "diff-redacted.jsonl", "diff-diverged.jsonl", true, 6,
			judge.DiffCounts{CallsA: 6, CallsB: 7, Matched: 6, Inserted: 1}, judge.Redaction{A: true},
			[]string{"6 inserted "}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a, _ := readFixture(t, tt.a)
			b, _ := readFixture(t, tt.b)
			rep := judge.Diff(a, b)
			assert.Equal(t, tt.diverged, rep.Diverged)
			assert.Equal(t, tt.first, rep.FirstDivergence)
			assert.Equal(t, tt.counts, rep.Counts)
			assert.Equal(t, tt.redacted, rep.Redacted)
			assert.Equal(t, !tt.redacted.A && !tt.redacted.B, rep.PayloadsCompared)
			assert.False(t, rep.Truncated)
			var got []string
			for _, d := range rep.Divergences {
				got = append(got, fmt.Sprintf("%d %s %s", d.Index, d.Kind, strings.Join(d.Fields, ",")))
				if !rep.PayloadsCompared {
					assert.Empty(t, d.Changes, "a redacted run's payloads are not compared")
					assert.Zero(t, d.ChangesTotal)
				}
			}
			assert.Equal(t, tt.divergence, got)
		})
	}
}

// TestDiffDivergenceDetail: the diverged pair names both calls, and the
// field-level diff lists what differs in arguments and results, and
// nothing that is equal.
func TestDiffDivergenceDetail(t *testing.T) {
	a, _ := readFixture(t, "diff-base.jsonl")
	b, _ := readFixture(t, "diff-diverged.jsonl")
	rep := judge.Diff(a, b)
	require.Len(t, rep.Divergences, 2)

	d := rep.Divergences[0]
	base, div := diffRun(diffBase), diffRun(diffDiverged)
	assert.Equal(t, &judge.CallOutcome{
		Tool: "click", OK: false, Code: "trace.REF_STALE", TraceID: base.traceID().String(), SpanID: base.sid("call3"),
		ToolCallID: "diff-base-tc3", StartedAt: diffBase.t0.Add(1300 * time.Millisecond),
	}, d.A)
	assert.Equal(t, "REF_NOT_FOUND", d.B.Code)
	assert.Equal(t, div.sid("call3"), d.B.SpanID)
	assert.Equal(t, []judge.Change{
		{Path: "args.ref", Op: judge.Changed, A: `"e9"`, B: `"e12"`},
		{Path: "result.error.code", Op: judge.Changed, A: `"trace.REF_STALE"`, B: `"REF_NOT_FOUND"`},
		{Path: "result.error.message", Op: judge.Changed, A: `"ref e9 cannot be used"`, B: `"ref e12 cannot be used"`},
	}, d.Changes)
	assert.Equal(t, 3, d.ChangesTotal)
	assert.False(t, d.ChangesTruncated)

	extra := rep.Divergences[1]
	assert.Nil(t, extra.A)
	assert.Equal(t, "checkout", extra.B.Tool)
	assert.True(t, extra.B.OK)
	assert.Empty(t, extra.Changes, "an unmatched call has nothing to diff against")
}

// TestDiffFromOTLP: records built from OTLP judge the same as the
// committed artifacts, and the redaction flag is read off the resource.
func TestDiffFromOTLP(t *testing.T) {
	base := diffRun(diffBase).records()
	rep := judge.Diff(base, diffRun(diffDiverged).records())
	assert.Equal(t, 3, rep.FirstDivergence)
	assert.Len(t, rep.Divergences[0].Changes, 3)

	red := diffRun(diffRedacted)
	assert.False(t, judge.Diff(base, red.records()).Redacted.B, "no flag, no redaction")
	red.res.Attributes().PutBool("agenttrace.redacted", true)
	rep = judge.Diff(base, red.records())
	assert.True(t, rep.Redacted.B)
	assert.False(t, rep.PayloadsCompared)

	rep = judge.Diff(base, diffRun(diffDiverged).records(), judge.WithRedaction(true, false))
	assert.Equal(t, judge.Redaction{A: true}, rep.Redacted)
	assert.Empty(t, rep.Divergences[0].Changes)
}

// TestDiffOrdersByStart: calls are aligned in start order, whatever the
// order of the records.
func TestDiffOrdersByStart(t *testing.T) {
	a, _ := readFixture(t, "diff-base.jsonl")
	b, _ := readFixture(t, "diff-diverged.jsonl")
	want := judge.Diff(a, b)
	rng := rand.New(rand.NewPCG(1, 2))
	for range 5 {
		sa, sb := slices.Clone(a), slices.Clone(b)
		rng.Shuffle(len(sa), func(i, j int) { sa[i], sa[j] = sa[j], sa[i] })
		rng.Shuffle(len(sb), func(i, j int) { sb[i], sb[j] = sb[j], sb[i] })
		assert.Equal(t, want, judge.Diff(sa, sb))
	}
}

// TestDiffToolDispatchTraces: the tool-dispatch trace, the format's
// ancestor without ids, diffs like any artifact.
func TestDiffToolDispatchTraces(t *testing.T) {
	const header = `{"v":1,"kind":"meta","started_at":1767261600000,"core_version":"0.9.1"}` + "\n"
	a := header +
		`{"kind":"call","tool":"navigate","ok":true,"started_at":1767261600120,"elapsed_ms":1360,"args":{"url":"https://shop.example/login"},"result":{"ok":true}}` + "\n" +
		`{"kind":"call","tool":"click","ok":false,"code":"REF_NOT_FOUND","started_at":1767261601600,"elapsed_ms":4,"args":{"ref":"e9"}}` + "\n"
	b := strings.ReplaceAll(a, "1767261600000", "1767261700000")
	b = strings.ReplaceAll(b, `"ref":"e9"`, `"ref":"e10"`)
	c := strings.Replace(b, `"code":"REF_NOT_FOUND"`, `"code":"trace.REF_STALE"`, 1)

	rep := judge.Diff(readString(t, a), readString(t, b))
	assert.False(t, rep.Diverged, "only the arguments differ")
	assert.Equal(t, judge.DiffCounts{CallsA: 2, CallsB: 2, Matched: 2, ArgsChanged: 1}, rep.Counts)

	rep = judge.Diff(readString(t, a), readString(t, c))
	assert.True(t, rep.Diverged)
	assert.Equal(t, 1, rep.FirstDivergence)
	assert.Equal(t, []judge.Change{{Path: "args.ref", Op: judge.Changed, A: `"e9"`, B: `"e10"`}}, rep.Divergences[0].Changes)
}

// readString reads the artifact s, which must be clean.
func readString(t *testing.T, s string) []artifact.Record {
	t.Helper()
	path := filepath.Join(t.TempDir(), "run.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(s), 0o644))
	recs, _ := artifacttest.Read(t, path)
	return recs
}

// pair builds two one-call runs whose calls fail with different codes,
// so that they diverge and their payloads are diffed.
func pair(argsA, argsB, resultA, resultB any) ([]artifact.Record, []artifact.Record) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	a, b := newRun("pair-a", t0), newRun("pair-b", t0)
	fail(a.tool("c", "", "fetch", "", 0, 10, argsA, resultA), "E1", "")
	fail(b.tool("c", "", "fetch", "", 0, 10, argsB, resultB), "E2", "")
	return a.records(), b.records()
}

func TestDiffChanges(t *testing.T) {
	tests := []struct {
		name           string
		aa, ab, ra, rb any
		want           []judge.Change
	}{
		{"equal JSON: key order and number spelling do not matter",
			`{"n":2,"m":{"x":1.50,"y":[1,2]}}`, `{"m":{"y":[1.0,2e0],"x":1.5},"n":2.0}`, nil, nil, nil},
		{"structured against a string holding JSON",
			`{"q":"tent","k":3}`, map[string]any{"k": int64(3), "q": "tent"}, nil, nil, nil},
		{"nested array element",
			nil, nil, `{"offers":[{"price":1},{"price":2},{"price":3}]}`, `{"offers":[{"price":1},{"price":2},{"price":3.5}]}`,
			[]judge.Change{{Path: "result.offers[2].price", Op: judge.Changed, A: "3", B: "3.5"}}},
		{"added and removed keys, odd key names",
			`{"a b":1,"keep":true,"x-y":1}`, `{"keep":true,"new":"v","x-y":1}`, nil, nil,
			[]judge.Change{{Path: `args["a b"]`, Op: judge.Removed, A: "1"}, {Path: "args.new", Op: judge.Added, B: `"v"`}}},
		{"longer array", `[1,2]`, `[1,2,{"z":null}]`, nil, nil,
			[]judge.Change{{Path: "args[2]", Op: judge.Added, B: `{"z":null}`}}},
		{"type change", `{"v":[1]}`, `{"v":{"0":1}}`, nil, nil,
			[]judge.Change{{Path: "args.v", Op: judge.Changed, A: "[1]", B: `{"0":1}`}}},
		{"text payloads", nil, nil, "plain text one", "plain text two",
			[]judge.Change{{Path: "result", Op: judge.Changed, A: `"plain text one"`, B: `"plain text two"`}}},
		{"payload only on one side", `{"a":1}`, nil, nil, `{"ok":true}`,
			[]judge.Change{{Path: "args", Op: judge.Removed, A: `{"a":1}`}, {Path: "result", Op: judge.Added, B: `{"ok":true}`}}},
		{"HTML stays readable", `{"h":"<b>&"}`, `{"h":"<i>&"}`, nil, nil,
			[]judge.Change{{Path: "args.h", Op: judge.Changed, A: `"<b>&"`, B: `"<i>&"`}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a, b := pair(tt.aa, tt.ab, tt.ra, tt.rb)
			rep := judge.Diff(a, b)
			require.Len(t, rep.Divergences, 1)
			assert.Equal(t, tt.want, rep.Divergences[0].Changes)
			assert.Equal(t, len(tt.want), rep.Divergences[0].ChangesTotal)
		})
	}
}

func TestDiffChangeCaps(t *testing.T) {
	argsA, argsB := map[string]any{}, map[string]any{}
	for i := range 50 {
		argsA[fmt.Sprintf("k%02d", i)] = int64(i)
		argsB[fmt.Sprintf("k%02d", i)] = int64(i + 1)
	}
	long := strings.Repeat("é", 300) // 600 bytes, two per rune
	argsA["long"], argsB["long"] = long, long+"!"
	a, b := pair(argsA, argsB, nil, nil)

	d := judge.Diff(a, b).Divergences[0]
	assert.Len(t, d.Changes, judge.DefaultMaxChanges)
	assert.Equal(t, 51, d.ChangesTotal)
	assert.True(t, d.ChangesTruncated)
	assert.Equal(t, "args.k00", d.Changes[0].Path)

	d = judge.Diff(a, b, judge.WithMaxChanges(100)).Divergences[0]
	require.Len(t, d.Changes, 51)
	assert.False(t, d.ChangesTruncated)
	lc := d.Changes[50]
	require.Equal(t, "args.long", lc.Path)
	for _, v := range []string{lc.A, lc.B} {
		assert.LessOrEqual(t, len(v), judge.DefaultMaxValueBytes+len("…"))
		assert.True(t, strings.HasSuffix(v, "…"))
		assert.True(t, strings.HasPrefix(v, `"éé`))
		assert.NotContains(t, v, "\uFFFD", "cut on a UTF-8 boundary")
	}

	d = judge.Diff(a, b, judge.WithMaxChanges(0), judge.WithMaxValueBytes(8)).Divergences[0]
	assert.Empty(t, d.Changes)
	assert.Equal(t, 51, d.ChangesTotal)
	assert.True(t, d.ChangesTruncated)
}

// TestDiffReportCap: many diverged calls with large payloads keep the
// report within its size limit, and the counts stay exact.
func TestDiffReportCap(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	a, b := newRun("many-a", t0), newRun("many-b", t0)
	big := strings.Repeat("x", 300)
	for i := range 200 {
		l := fmt.Sprintf("c%d", i)
		args := fmt.Sprintf(`{"a":%q,"b":%q,"c":%q,"d":%q}`, big, big, big, big)
		fail(a.tool(l, "", "fetch", "", i*10, i*10+5, args, nil), "E1", "")
		fail(b.tool(l, "", "fetch", "", i*10, i*10+5, strings.ReplaceAll(args, "x", "y"), nil), "E2", "")
	}
	for _, limit := range []int{judge.DefaultMaxReportBytes, 4096} {
		rep := judge.Diff(a.records(), b.records(), judge.WithMaxReportBytes(limit))
		raw, err := json.Marshal(rep)
		require.NoError(t, err)
		assert.LessOrEqual(t, len(raw), limit)
		assert.True(t, rep.Truncated)
		assert.Equal(t, 200, rep.Counts.Diverged)
		assert.Equal(t, 0, rep.FirstDivergence)
		require.NotEmpty(t, rep.Divergences)
		assert.Less(t, len(rep.Divergences), 200)
		for i, d := range rep.Divergences {
			assert.Equal(t, i, d.Index, "listed divergences are the first ones, in order")
		}
		var text bytes.Buffer
		require.NoError(t, rep.WriteText(&text))
		assert.Contains(t, text.String(), fmt.Sprintf("(report truncated: %d of 200 findings listed)", len(rep.Divergences)))
	}
}

func TestDiffEmpty(t *testing.T) {
	rep := judge.Diff(nil, nil)
	assert.False(t, rep.Diverged)
	assert.Equal(t, -1, rep.FirstDivergence)
	raw, err := json.Marshal(rep)
	require.NoError(t, err)
	assert.JSONEq(t, `{"diverged":false,"first_divergence":-1,
		"counts":{"calls_a":0,"calls_b":0,"matched":0,"args_changed":0,"diverged":0,"inserted":0,"removed":0,"reordered":0},
		"runs":{"a":{"calls":0,"model_calls":0,"tokens":{"input":0,"output":0,"cache_read":0,"cache_creation":0,"reasoning":0,"total":0},"cost":null,"duration_ms":0},
			"b":{"calls":0,"model_calls":0,"tokens":{"input":0,"output":0,"cache_read":0,"cache_creation":0,"reasoning":0,"total":0},"cost":null,"duration_ms":0}},
		"redacted":{"a":false,"b":false},"payloads_compared":true,"divergences":[],"truncated":false}`, string(raw))
}

// TestDiffJSONShape pins the field names of `agenttrace diff --json`.
func TestDiffJSONShape(t *testing.T) {
	a, _ := readFixture(t, "diff-base.jsonl")
	b, _ := readFixture(t, "diff-diverged.jsonl")
	raw, err := json.Marshal(judge.Diff(a, b))
	require.NoError(t, err)
	var got struct {
		Divergences []map[string]json.RawMessage `json:"divergences"`
	}
	require.NoError(t, json.Unmarshal(raw, &got))
	require.Len(t, got.Divergences, 2)
	assert.ElementsMatch(t, []string{"index", "kind", "a_index", "b_index", "fields", "a", "b", "changes", "changes_total"}, keys(got.Divergences[0]))
	assert.ElementsMatch(t, []string{"index", "kind", "b_index", "b"}, keys(got.Divergences[1]))
	var call map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(got.Divergences[0]["a"], &call))
	assert.ElementsMatch(t, []string{"tool", "ok", "code", "trace_id", "span_id", "tool_call_id", "started_at"}, keys(call))
	assert.JSONEq(t, `{"path":"args.ref","op":"changed","a":"\"e9\"","b":"\"e12\""}`,
		string(must(json.Marshal(judge.Change{Path: "args.ref", Op: judge.Changed, A: `"e9"`, B: `"e12"`}))))
}

func keys(m map[string]json.RawMessage) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func TestDiffWriteText(t *testing.T) {
	a, _ := readFixture(t, "diff-base.jsonl")
	b, _ := readFixture(t, "diff-diverged.jsonl")
	r, _ := readFixture(t, "diff-redacted.jsonl")
	base := diffRun(diffBase)

	var buf bytes.Buffer
	require.NoError(t, judge.Diff(a, b).WriteText(&buf))
	assert.Equal(t, `Verdict  diverged at index 3
Calls    A 6, B 7: 5 matched, 1 diverged, 1 inserted, 0 removed, 0 reordered
Tokens   A 0 (input 0, output 0); B 0 (input 0, output 0)
Time     A 2.60 s; B 3.34 s

[3] diverged (code)
  A[3]  click  failed trace.REF_STALE  (span `+base.sid("call3")+`, tool call diff-base-tc3)
  B[3]  click  failed REF_NOT_FOUND  (span `+diffRun(diffDiverged).sid("call3")+`, tool call diff-diverged-tc3)
  ~ args.ref: "e9" -> "e12"
  ~ result.error.code: "trace.REF_STALE" -> "REF_NOT_FOUND"
  ~ result.error.message: "ref e9 cannot be used" -> "ref e12 cannot be used"

[6] inserted in B
  B[6]  checkout  ok  (span `+diffRun(diffDiverged).sid("call6")+`, tool call diff-diverged-tc6)
`, buf.String())

	buf.Reset()
	require.NoError(t, judge.Diff(a, a).WriteText(&buf))
	assert.Equal(t, "Verdict  no divergence\nCalls    A 6, B 6: 6 matched, 0 diverged, 0 inserted, 0 removed, 0 reordered\n"+
		"Tokens   A 0 (input 0, output 0); B 0 (input 0, output 0)\nTime     A 2.60 s; B 2.60 s\n", buf.String())

	buf.Reset()
	require.NoError(t, judge.Diff(a, r).WriteText(&buf))
	assert.Contains(t, buf.String(), "Redacted B: arguments and results are not compared\n")
}
