package importer

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/internal/ptracecmp"
	"github.com/agenttrace/agenttrace/semconv"
)

// Helpers of every reader's tests.

const shapesDir = "../testdata/shapes"

// importBytes runs fn over data and returns what it emitted.
func importBytes(t testing.TB, fn Func, name string, data []byte) ([]*artifact.Record, Stats) {
	t.Helper()
	var recs []*artifact.Record
	st, err := fn(bytes.NewReader(data), name, func(r *artifact.Record) error {
		recs = append(recs, r)
		return nil
	})
	require.NoError(t, err)
	require.EqualValues(t, len(recs), st.Records, "Stats.Records")
	return recs, st
}

func importFile(t testing.TB, fn Func, path string) ([]*artifact.Record, Stats) {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return importBytes(t, fn, filepath.Base(path), data)
}

// importFixture imports the file of testdata/shapes.
func importFixture(t testing.TB, fn Func, file string) ([]*artifact.Record, Stats) {
	t.Helper()
	return importFile(t, fn, filepath.Join(shapesDir, file))
}

// attr returns the attribute key of sp as text ("" when absent).
func attr(sp ptrace.Span, key string) string { return mapAttr(sp.Attributes(), key) }

func mapAttr(m pcommon.Map, key string) string {
	v, ok := m.Get(key)
	if !ok {
		return ""
	}
	return v.AsString()
}

func hasAttr(sp ptrace.Span, key string) bool {
	_, ok := sp.Attributes().Get(key)
	return ok
}

func byOp(recs []*artifact.Record, op string) []*artifact.Record {
	var out []*artifact.Record
	for _, r := range recs {
		if attr(r.Span, semconv.OperationName) == op {
			out = append(out, r)
		}
	}
	return out
}

func byAttr(t testing.TB, recs []*artifact.Record, key, val string) *artifact.Record {
	t.Helper()
	for _, r := range recs {
		if attr(r.Span, key) == val {
			return r
		}
	}
	require.Failf(t, "no span", "no span with %s=%q", key, val)
	return nil
}

// byName returns the spans named name, in emission order.
func byName(recs []*artifact.Record, name string) []ptrace.Span {
	var out []ptrace.Span
	for _, r := range recs {
		if r.Span.Name() == name {
			out = append(out, r.Span)
		}
	}
	return out
}

func toolNames(recs []*artifact.Record) []string {
	var out []string
	for _, r := range byOp(recs, semconv.OpExecuteTool) {
		out = append(out, attr(r.Span, semconv.ToolName))
	}
	return out
}

func ts(s string) pcommon.Timestamp {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return pcommon.Timestamp(t.UnixNano())
}

// cloneRecords copies recs, spans and all, so artifact.ToTraces (which
// moves spans) leaves the originals alone.
func cloneRecords(recs []*artifact.Record) []artifact.Record {
	out := make([]artifact.Record, len(recs))
	for i, r := range recs {
		out[i] = *r
		out[i].Span = ptrace.NewSpan()
		r.Span.CopyTo(out[i].Span)
	}
	return out
}

// spansOf is recs as ptracecmp lines, resources and scopes included;
// recs are left as they are.
func spansOf(recs []*artifact.Record) []string {
	return ptracecmp.Spans(artifact.ToTraces(cloneRecords(recs)))
}

// assertRoundTrip writes recs as an artifact, reads it back and checks
// that every span, resource and scope survived.
func assertRoundTrip(t *testing.T, recs []*artifact.Record) {
	t.Helper()
	require.NotEmpty(t, recs)
	want := spansOf(recs)
	var buf bytes.Buffer
	w := artifact.NewWriter(&buf, nil)
	for _, r := range recs {
		require.NoError(t, w.Write(r))
	}
	require.NoError(t, w.Close())
	rd := artifact.NewReader(&buf)
	var back []*artifact.Record
	for {
		r, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		back = append(back, r)
	}
	assert.Empty(t, rd.Problems())
	assert.Equal(t, want, spansOf(back), "the artifact round trip changed the spans")
}

// assertSane checks what every imported record must satisfy.
func assertSane(t testing.TB, recs []*artifact.Record) {
	t.Helper()
	for _, r := range recs {
		require.NoError(t, saneSpan(r.Span))
	}
}

func saneSpan(sp ptrace.Span) error {
	switch {
	case sp.TraceID().IsEmpty():
		return fmt.Errorf("%q: no trace id", sp.Name())
	case sp.SpanID().IsEmpty():
		return fmt.Errorf("%q: no span id", sp.Name())
	case sp.EndTimestamp() < sp.StartTimestamp():
		return fmt.Errorf("%q: ends %d before it starts %d", sp.Name(), sp.EndTimestamp(), sp.StartTimestamp())
	}
	return nil
}

// assertImported holds the records of a reader that synthesizes its spans
// (transcript, trajectory, events) to its contract: sane, distinct span
// ids, children emitted before their parents, the importer's scope and one
// shared resource that names a service.
func assertImported(t testing.TB, recs []*artifact.Record) {
	t.Helper()
	assertSane(t, recs)
	emitted := map[pcommon.SpanID]int{}
	for i, r := range recs {
		sp := r.Span
		_, dup := emitted[sp.SpanID()]
		require.False(t, dup, "%d %s: span id %s emitted twice", i, sp.Name(), sp.SpanID())
		emitted[sp.SpanID()] = i
		j, ok := emitted[sp.ParentSpanID()]
		require.False(t, ok, "%d %s: its parent was emitted before it (%d)", i, sp.Name(), j)
		require.Equal(t, importScopeName, r.Scope.Name())
		require.Equal(t, importScopeVersion, r.Scope.Version())
		require.True(t, r.Resource == recs[0].Resource, "%d %s: one resource per import", i, sp.Name())
	}
	if len(recs) > 0 {
		require.NotEmpty(t, mapAttr(recs[0].Resource.Attributes(), "service.name"))
	}
}

// checkFuzz is what any input must give, read by fn: no error, as many
// records as Stats counts, sane spans, problems with their line.
func checkFuzz(t *testing.T, fn Func, data []byte) {
	var recs []*artifact.Record
	st, err := fn(bytes.NewReader(data), "fuzz", func(r *artifact.Record) error {
		recs = append(recs, r)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(recs)) != st.Records {
		t.Fatalf("%d records, Stats.Records %d", len(recs), st.Records)
	}
	for _, p := range st.Problems {
		var le *artifact.LineError
		if !errors.As(p, &le) || le.Line < 1 {
			t.Fatalf("problem %v is not a LineError with a line", p)
		}
	}
	for _, r := range recs {
		if err := saneSpan(r.Span); err != nil {
			t.Fatalf("%v: %s", err, ptracecmp.Span(r.Span))
		}
	}
}

// problemLines returns the lines (record numbers) of st's problems, each a
// *artifact.LineError from source.
func problemLines(t testing.TB, st Stats, source string) []int {
	t.Helper()
	var lines []int
	for _, p := range st.Problems {
		var le *artifact.LineError
		require.ErrorAs(t, p, &le)
		assert.Equal(t, source, le.Source)
		lines = append(lines, le.Line)
	}
	return lines
}

// smallCase is an input written out in a test and what it must import as.
type smallCase struct {
	name, in string
	check    func(t *testing.T, recs []*artifact.Record, st Stats)
}

// runSmall imports every case with fn and holds it to the contract of a
// synthesizing reader and to its check.
func runSmall(t *testing.T, fn Func, cases []smallCase) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			recs, st := importBytes(t, fn, "small", []byte(c.in))
			assertImported(t, recs)
			c.check(t, recs, st)
		})
	}
}

// fixtureCase is what a fixture must import as.
type fixtureCase struct {
	file    string
	read    Func
	traces  int
	records int64
	// counts and tokens as artifact.Tally sums them
	calls, inferences, agents, errors int64
	tokens                            artifact.Tokens
	// tools in the order they started
	tools []string
	// "span name: error.type" of every error span, sorted
	errorSpans []string
	// "child <- parent" for every span ("name <- " for a root), sorted
	tree     []string
	unknown  map[string]int64
	problems []int // lines reported
}

// checkFixtures imports each fixture, in parallel, and holds it to its
// case (checkFixture).
func checkFixtures(t *testing.T, cases []fixtureCase) {
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			t.Parallel()
			checkFixture(t, c)
		})
	}
}

// checkFixture imports a fixture and holds it to c, and to what every
// import must be: sane ids and times, children before parents, one
// resource and scope, deterministic ids, and a lossless round trip through
// the artifact.
func checkFixture(t *testing.T, c fixtureCase) {
	t.Helper()
	recs, st := importFixture(t, c.read, c.file)
	assert.Equal(t, c.records, st.Records, "records")
	assertImported(t, recs)

	var tally artifact.Tally
	for _, r := range recs {
		tally.Add(r)
	}
	sum := tally.Summary(nil)
	assert.Equal(t, c.calls, sum.Calls, "calls")
	assert.Equal(t, c.inferences, sum.Inferences, "inferences")
	assert.Equal(t, c.agents, sum.Agents, "agents")
	assert.Equal(t, c.errors, sum.Errors, "error spans")
	want := c.tokens
	want.Total = want.Input + want.Output
	assert.Equal(t, want, sum.Tokens, "tokens")

	traces := map[pcommon.TraceID]bool{}
	for _, r := range recs {
		traces[r.Span.TraceID()] = true
	}
	assert.Len(t, traces, c.traces, "traces")

	var tools []ptrace.Span
	var errs []string
	byID := map[pcommon.SpanID]ptrace.Span{}
	for _, r := range recs {
		byID[r.Span.SpanID()] = r.Span
		if attr(r.Span, semconv.OperationName) == semconv.OpExecuteTool {
			tools = append(tools, r.Span)
		}
		if r.Span.Status().Code() == ptrace.StatusCodeError {
			errs = append(errs, r.Span.Name()+": "+attr(r.Span, semconv.ErrorType))
		}
	}
	slices.SortStableFunc(tools, func(a, b ptrace.Span) int { return int(a.StartTimestamp()) - int(b.StartTimestamp()) })
	var names []string
	for _, sp := range tools {
		names = append(names, attr(sp, semconv.ToolName))
	}
	assert.Equal(t, c.tools, names, "tools in order")
	slices.Sort(errs)
	assert.Equal(t, c.errorSpans, errs, "error spans")

	var tree []string
	for _, r := range recs {
		p := ""
		if !r.Span.ParentSpanID().IsEmpty() {
			ps, ok := byID[r.Span.ParentSpanID()]
			require.True(t, ok, "%s: parent %s not emitted", r.Span.Name(), r.Span.ParentSpanID())
			require.Equal(t, r.Span.TraceID(), ps.TraceID())
			p = ps.Name()
		}
		tree = append(tree, r.Span.Name()+" <- "+p)
	}
	slices.Sort(tree)
	assert.Equal(t, c.tree, tree, "tree")

	assert.Equal(t, c.unknown, st.Unknown, "unknown")
	assert.Equal(t, c.problems, problemLines(t, st, c.file), "problem lines: %v", st.Problems)

	// Deterministic: a second import is the same, ids included.
	again, _ := importFixture(t, c.read, c.file)
	assert.Equal(t, spansOf(recs), spansOf(again), "a second import differs")

	assertRoundTrip(t, recs)
}
