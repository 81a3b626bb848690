package store

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.uber.org/goleak"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/pricing"
	"github.com/agenttrace/agenttrace/semconv"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func tid(b byte) pcommon.TraceID {
	return pcommon.TraceID{b, 0xee, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, b}
}

func sid(b byte) pcommon.SpanID { return pcommon.SpanID{b, 1, 2, 3, 4, 5, 6, 7} }

// span is one span of a test batch; parent 0 makes a local root.
type span struct {
	trace, id, parent byte
	conv              string
}

// records builds records: a local root is an invoke_agent span, any other
// a chat with 10 input and 5 output tokens.
func records(spans ...span) []artifact.Record {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", "svc")
	ss := rs.ScopeSpans().AppendEmpty()
	ss.Scope().SetName("test")
	for _, s := range spans {
		sp := ss.Spans().AppendEmpty()
		sp.SetTraceID(tid(s.trace))
		sp.SetSpanID(sid(s.id))
		if s.parent != 0 {
			sp.SetParentSpanID(sid(s.parent))
		}
		start := time.Date(2026, 5, 4, 14, 0, int(s.id), 0, time.UTC)
		sp.SetStartTimestamp(pcommon.NewTimestampFromTime(start))
		sp.SetEndTimestamp(pcommon.NewTimestampFromTime(start.Add(time.Second)))
		a := sp.Attributes()
		if s.parent == 0 {
			sp.SetName("invoke_agent a")
			a.PutStr(semconv.OperationName, "invoke_agent")
		} else {
			sp.SetName("chat m")
			a.PutStr(semconv.OperationName, "chat")
			a.PutStr(semconv.RequestModel, "m")
			a.PutInt(semconv.UsageInputTokens, 10)
			a.PutInt(semconv.UsageOutputTokens, 5)
		}
		if s.conv != "" {
			a.PutStr(semconv.ConversationID, s.conv)
		}
	}
	return artifact.Records(td)
}

type read struct {
	recs      []*artifact.Record
	meta      *artifact.Meta
	summary   *artifact.Summary
	problems  []*artifact.LineError
	headers   int
	summaries int64
}

// readBack reads an artifact and checks that its last trailer equals a
// tally of its records: the trailer always tells the file's truth.
func readBack(t *testing.T, raw []byte) read {
	t.Helper()
	r := artifact.NewReader(bytes.NewReader(raw))
	var out read
	var tally artifact.Tally
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		out.recs = append(out.recs, rec)
		tally.Add(rec)
	}
	out.meta, out.summary, out.problems = r.Meta(), r.Summary(), r.Problems()
	out.summaries = r.Stats().Summaries
	out.headers = strings.Count(string(raw), `"kind":"meta"`)
	if out.summary != nil {
		want := tally.Summary(out.meta.Budget)
		want.Complete, want.Dropped = true, out.summary.Dropped
		assert.Equal(t, want, *out.summary, "the trailer counts what the file holds")
	}
	return out
}

func readPath(t *testing.T, path string) read {
	t.Helper()
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	return readBack(t, raw)
}

func newStore(t *testing.T, opts Options) *Store {
	t.Helper()
	s, err := New(opts)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func TestNameIsInjective(t *testing.T) {
	tests := []struct{ a, b string }{
		{"x/y", Name("x/y")}, // a value and the name of another
		{"abc", "ABC"},       // case only
		{"Abc", "aBC"},       // case only, both hashed
		{"", "-"},            // empty
		{".", "_"},           // a dot
		{"a.b", "a_b"},       // a dot kept, an underscore kept
		{"é", "_"},           // a non-ASCII byte
		{strings.Repeat("a", 64), strings.Repeat("a", 65)},
		{"c-0123456789abcdef", "c"}, // a plain-looking value shaped like a hashed name
	}
	for _, tt := range tests {
		na, nb := Name(tt.a), Name(tt.b)
		assert.NotEqual(t, strings.ToLower(na), strings.ToLower(nb), "%q and %q", tt.a, tt.b)
		for _, n := range []string{na, nb} {
			assert.True(t, filepath.IsLocal(n), n)
			assert.False(t, strings.HasPrefix(n, "."), n)
			assert.LessOrEqual(t, len(n), maxPlain+1+hashLen)
		}
	}
	assert.Equal(t, "conv-42.jsonl", FileName(ConversationKey("42"), ""))
	assert.Equal(t, "service.name-alpha.jsonl", FileName(AttributeKey("alpha"), "service.name"))
	assert.Equal(t, tid(1).String()+".jsonl", FileName(TraceKey(tid(1)), ""))
}

func FuzzName(f *testing.F) {
	for _, s := range []string{"", "a", "A", "x/y", "../..", "conv-0123456789abcdef", "\x00"} {
		f.Add(s, strings.ToUpper(s))
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		na := Name(a)
		if !filepath.IsLocal(na) || strings.ContainsAny(na, `/\`+"\x00") || strings.HasPrefix(na, ".") {
			t.Fatalf("Name(%q) = %q is not a safe file name", a, na)
		}
		if a != b && strings.EqualFold(na, Name(b)) {
			t.Fatalf("Name(%q) and Name(%q) are both %q", a, b, na)
		}
	})
}

func TestHeader(t *testing.T) {
	recs := records(span{trace: 1, id: 3, parent: 1, conv: "c"}, span{trace: 1, id: 2, parent: 1})
	recs[0].Resource.Attributes().PutInt(semconv.BudgetTokens, 500)
	def := &artifact.Budget{Tokens: 1000, WarnThreshold: 0.5}
	m := Header(TraceKey(tid(1)), recs, HeaderOptions{Budget: def})
	assert.Equal(t, tid(1).String(), m.TraceID)
	assert.Empty(t, m.ConversationID, "a live trace's header does not name its conversation")
	assert.Equal(t, time.Date(2026, 5, 4, 14, 0, 2, 0, time.UTC), m.StartedAt, "the earliest start")
	assert.Equal(t, int64(500), m.Budget.Tokens, "the resource's budget over the writer's")
	assert.Equal(t, "svc", m.Service)

	m = Header(ConversationKey("c"), recs, HeaderOptions{})
	assert.Equal(t, "c", m.ConversationID)
	assert.Empty(t, m.TraceID)

	m = Header(Key{Kind: KindRun}, recs, HeaderOptions{Whole: true, Redacted: true})
	assert.Equal(t, tid(1).String(), m.TraceID)
	assert.Equal(t, "c", m.ConversationID)
	assert.True(t, m.Redacted)

	root := records(span{trace: 1, id: 1})
	root[0].Span.Attributes().PutInt(semconv.BudgetTokens, 20)
	m = Header(TraceKey(tid(1)), append(recs, root...), HeaderOptions{Budget: def})
	assert.Equal(t, int64(20), m.Budget.Tokens, "a root span's budget first")
	assert.InDelta(t, 0.5, m.Budget.WarnThreshold, 0)
}

func TestWriteDedupAndTrailer(t *testing.T) {
	dir := t.TempDir()
	s := newStore(t, Options{Dir: dir})
	b := records(span{trace: 1, id: 2, parent: 1}, span{trace: 1, id: 3, parent: 1})
	require.NoError(t, s.Write(b))
	require.NoError(t, s.Write(records(span{trace: 1, id: 2, parent: 1}, span{trace: 1, id: 3, parent: 1}, span{trace: 1, id: 1})))
	require.NoError(t, s.Close())
	a := readPath(t, filepath.Join(dir, FileName(TraceKey(tid(1)), "")))
	assert.Equal(t, 1, a.headers)
	assert.Len(t, a.recs, 3)
	assert.Equal(t, int64(30), a.summary.Tokens.Total)
	require.ErrorIs(t, s.Write(b), ErrClosed)
}

func TestFinalizeAtRootAndResume(t *testing.T) {
	dir := t.TempDir()
	s := newStore(t, Options{Dir: dir})
	require.NoError(t, s.Write(records(span{trace: 1, id: 2, parent: 1}, span{trace: 1, id: 1})))
	assert.False(t, s.IsActive(TraceKey(tid(1))), "finalized as its root was written")
	assert.Zero(t, s.OpenFiles())
	// A late span: adopted, appended, a new trailer.
	require.NoError(t, s.Write(records(span{trace: 1, id: 3, parent: 1}, span{trace: 1, id: 2, parent: 1})))
	require.NoError(t, s.Close())
	a := readPath(t, filepath.Join(dir, FileName(TraceKey(tid(1)), "")))
	assert.Equal(t, 1, a.headers)
	assert.Equal(t, int64(2), a.summaries)
	assert.Len(t, a.recs, 3)

	// Nothing new: no further trailer.
	s2 := newStore(t, Options{Dir: dir})
	require.NoError(t, s2.Write(records(span{trace: 1, id: 3, parent: 1})))
	require.NoError(t, s2.Close())
	assert.Equal(t, int64(2), readPath(t, filepath.Join(dir, FileName(TraceKey(tid(1)), ""))).summaries)
}

func TestSetAside(t *testing.T) {
	for name, content := range map[string]string{
		"torn header": `{"v":1,"kind":"meta","started_at":"2026-`,
		"blank line":  "\n",
		"garbage":     "not an artifact\n",
		"no header":   `{"kind":"call","tool":"a","trace_id":"0102030405060708090a0b0c0d0e0f10","span_id":"0102030405060708","started_at":"2026-01-01T00:00:01Z","finished_at":"2026-01-01T00:00:02Z","ok":true}` + "\n",
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, FileName(TraceKey(tid(1)), ""))
			require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
			var moved []string
			s := newStore(t, Options{Dir: dir, Hooks: Hooks{SetAside: func(from, to string, why error) {
				assert.Equal(t, path, from)
				assert.Error(t, why)
				moved = append(moved, to)
			}}})
			require.NoError(t, s.Write(records(span{trace: 1, id: 1})))
			require.NoError(t, s.Close())
			require.Len(t, moved, 1)
			old, err := os.ReadFile(moved[0])
			require.NoError(t, err)
			assert.Equal(t, content, string(old), "set aside as it was")
			a := readPath(t, path)
			assert.Empty(t, a.problems)
			assert.Len(t, a.recs, 1)
		})
	}
}

func TestNewerVersionIsNotAppendedTo(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, FileName(TraceKey(tid(1)), ""))
	content := `{"v":2,"kind":"meta","started_at":"2026-01-01T00:00:00Z"}` + "\n"
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
	s := newStore(t, Options{Dir: dir})
	err := s.Write(records(span{trace: 1, id: 1}, span{trace: 2, id: 1}))
	require.ErrorIs(t, err, ErrNotAppendable)
	var we *WriteError
	require.ErrorAs(t, err, &we)
	assert.Len(t, we.Failed, 1, "only the spans of that artifact fail")
	require.NoError(t, s.Close())
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, content, string(raw))
	assert.Len(t, readPath(t, filepath.Join(dir, FileName(TraceKey(tid(2)), ""))).recs, 1)
}

// failAfter is a file that accepts n more bytes, then fails: a full disk.
type failAfter struct {
	file
	n *int
}

var errFull = errors.New("no space left on device")

func (f failAfter) Write(p []byte) (int, error) {
	if len(p) <= *f.n {
		*f.n -= len(p)
		return f.file.Write(p)
	}
	k := *f.n
	*f.n = 0
	if k > 0 {
		if _, err := f.file.Write(p[:k]); err != nil {
			return 0, err
		}
	}
	return k, errFull
}

// withFailingFiles makes the files of trace 1's artifact accept room more
// bytes, for the test.
func withFailingFiles(t *testing.T, room *int) {
	t.Helper()
	wrapFiles(t, func(path string, f file) (file, error) {
		if !strings.HasPrefix(filepath.Base(path), tid(1).String()) {
			return f, nil
		}
		return failAfter{file: f, n: room}, nil
	})
}

// TestWriteThenCount: a write that fails part-way is cut back to the last
// complete line and counts nothing; the caller gets the records to retry;
// once there is room again the retry writes them once; the trailer always
// equals the file; other artifacts of the same Write are unaffected.
func TestWriteThenCount(t *testing.T) {
	dir := t.TempDir()
	room := 1 << 20
	withFailingFiles(t, &room)
	s := newStore(t, Options{Dir: dir, FinalizeAfter: time.Hour})
	require.NoError(t, s.Write(records(span{trace: 1, id: 2, parent: 1})))
	path := filepath.Join(dir, FileName(TraceKey(tid(1)), ""))
	before, err := os.ReadFile(path)
	require.NoError(t, err)

	room = 100 // less than a line
	batch := records(span{trace: 1, id: 3, parent: 1}, span{trace: 2, id: 1}, span{trace: 1, id: 4, parent: 1})
	err = s.Write(batch)
	require.ErrorIs(t, err, errFull)
	var we *WriteError
	require.ErrorAs(t, err, &we)
	require.Len(t, we.Failed, 2, "only trace 1's spans failed")
	after, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, before, after, "the partial line is cut back")

	room = 1 << 20
	require.NoError(t, s.Write(we.Failed))
	require.NoError(t, s.Write(batch)) // redelivered whole: nothing twice
	require.NoError(t, s.Close())
	a := readPath(t, path)
	assert.Empty(t, a.problems, "no glued or torn lines")
	assert.Len(t, a.recs, 3)
	assert.Len(t, readPath(t, filepath.Join(dir, FileName(TraceKey(tid(2)), ""))).recs, 1)
}

// TestFailedTrailerIsRetried: a trailer that cannot be written is Close's
// error, and the file keeps no half of it.
func TestFailedTrailerIsReported(t *testing.T) {
	dir := t.TempDir()
	room := 1 << 20
	withFailingFiles(t, &room)
	s, err := New(Options{Dir: dir})
	require.NoError(t, err)
	require.NoError(t, s.Write(records(span{trace: 1, id: 2, parent: 1})))
	room = 10
	require.ErrorIs(t, s.Close(), errFull)
	a := readPath(t, filepath.Join(dir, FileName(TraceKey(tid(1)), "")))
	assert.Empty(t, a.problems)
	assert.Nil(t, a.summary)
}

// TestLateConversationIsOneFile: a trace whose conversation id appears in
// a later Write has its earlier records folded into the conversation's
// artifact.
func TestLateConversationIsOneFile(t *testing.T) {
	dir := t.TempDir()
	s := newStore(t, Options{Dir: dir, Route: ByConversation, FinalizeAfter: time.Hour})
	require.NoError(t, s.Write(records(span{trace: 1, id: 2, parent: 1})))
	require.NoError(t, s.Write(records(span{trace: 1, id: 3, parent: 1, conv: "c/1"}, span{trace: 2, id: 1, conv: "c/1"})))
	require.NoError(t, s.Write(records(span{trace: 1, id: 1}))) // names none, still the conversation's
	require.NoError(t, s.Close())
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, ents, 1)
	assert.Equal(t, FileName(ConversationKey("c/1"), ""), ents[0].Name())
	a := readPath(t, filepath.Join(dir, ents[0].Name()))
	assert.Len(t, a.recs, 4)
	assert.Equal(t, "c/1", a.meta.ConversationID)
	assert.Empty(t, a.meta.TraceID)
}

func TestDropsInTrailer(t *testing.T) {
	dir := t.TempDir()
	s := newStore(t, Options{Dir: dir, RecordCap: 1})
	s.Drop(tid(1), 2, semconv.Usage{Input: 100}, pricing.Total{})
	s.Drop(tid(2), 1, semconv.Usage{Output: 7}, pricing.Total{}) // a trace with nothing but drops
	require.NoError(t, s.Write(records(span{trace: 1, id: 2, parent: 1}, span{trace: 1, id: 3, parent: 1})))
	require.NoError(t, s.Close())
	raw, err := os.ReadFile(filepath.Join(dir, FileName(TraceKey(tid(1)), "")))
	require.NoError(t, err)
	r := artifact.NewReader(bytes.NewReader(raw))
	for {
		if _, err := r.Next(); err != nil {
			break
		}
	}
	sum := r.Summary()
	require.NotNil(t, sum)
	assert.Equal(t, int64(1), sum.Records)
	assert.Equal(t, int64(3), sum.Dropped, "two from the queue, one past the cap")
	assert.Equal(t, int64(130), sum.Tokens.Total, "their usage counts")
	raw, err = os.ReadFile(filepath.Join(dir, FileName(TraceKey(tid(2)), "")))
	require.NoError(t, err)
	r = artifact.NewReader(bytes.NewReader(raw))
	_, err = r.Next()
	require.ErrorIs(t, err, io.EOF)
	require.NotNil(t, r.Summary())
	assert.Equal(t, int64(1), r.Summary().Dropped)
	assert.Equal(t, int64(7), r.Summary().Tokens.Total, "its usage counts")
	assert.Equal(t, tid(2).String(), r.Meta().TraceID)
}

func TestSingleArtifactResumes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.jsonl")
	for i := range byte(2) {
		s := newStore(t, Options{Path: path, TrackPaths: true})
		require.NoError(t, s.Write(records(span{trace: 1 + i, id: 1})))
		require.NoError(t, s.Close())
		assert.Equal(t, []string{path}, s.Paths())
	}
	a := readPath(t, path)
	assert.Equal(t, 1, a.headers)
	assert.Len(t, a.recs, 2)
	assert.Empty(t, a.meta.TraceID, "a run may hold many traces")
}

// TestOpenFilesBounded: many artifacts written at once from many
// goroutines keep at most MaxOpenFiles files open, and every record lands
// once.
func TestOpenFilesBounded(t *testing.T) {
	dir := t.TempDir()
	const maxOpen, traces, rounds = 4, 40, 3
	s := newStore(t, Options{Dir: dir, MaxOpenFiles: maxOpen, FinalizeAfter: time.Hour})
	var wg sync.WaitGroup
	for tr := range byte(traces) {
		wg.Go(func() {
			for r := range byte(rounds) {
				assert.NoError(t, s.Write(records(span{trace: tr + 1, id: r + 2, parent: 1})))
			}
		})
	}
	wg.Wait()
	assert.LessOrEqual(t, s.OpenFiles(), maxOpen)
	require.NoError(t, s.Close())
	assert.Zero(t, s.OpenFiles())
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, ents, traces)
	for _, e := range ents {
		a := readPath(t, filepath.Join(dir, e.Name()))
		assert.Equal(t, 1, a.headers)
		assert.Len(t, a.recs, rounds)
	}
}

func TestIdleFinalization(t *testing.T) {
	dir := t.TempDir()
	const after = 20 * time.Millisecond
	s := newStore(t, Options{Dir: dir, FinalizeAfter: after})
	start := time.Now()
	require.NoError(t, s.Write(records(span{trace: 1, id: 2, parent: 1}, span{trace: 1, id: 1}, span{trace: 2, id: 2, parent: 1})))
	require.Eventually(t, func() bool { return !s.IsActive(TraceKey(tid(1))) }, 5*time.Second, time.Millisecond)
	if time.Since(start) < DefaultOrphanFactor*after {
		assert.True(t, s.IsActive(TraceKey(tid(2))), "no root: not finalized before OrphanAfter")
	}
	require.Eventually(t, func() bool { return !s.IsActive(TraceKey(tid(2))) }, 5*time.Second, time.Millisecond, "an orphan, later")
	paths := []string{FileName(TraceKey(tid(1)), ""), FileName(TraceKey(tid(2)), "")}
	slices.Sort(paths)
	for _, p := range paths {
		assert.NotNil(t, readPath(t, filepath.Join(dir, p)).summary, p)
	}
}

// FuzzAdopt: whatever a file holds, continuing it never panics, and what
// the store leaves under its name reads back with one header and a
// trailer that tells the file's truth.
func FuzzAdopt(f *testing.F) {
	f.Add([]byte(`{"v":1,"kind":"meta","started_at":"2026-01-01T00:00:00Z"}` + "\n"))
	f.Add([]byte(`{"v":1,"kind":"meta","started_at":"2026-`))
	f.Add([]byte("\n\n"))
	f.Add([]byte(`{"v":2,"kind":"meta","started_at":"2026-01-01T00:00:00Z"}` + "\n"))
	f.Fuzz(func(t *testing.T, content []byte) {
		dir := t.TempDir()
		path := filepath.Join(dir, FileName(TraceKey(tid(1)), ""))
		if err := os.WriteFile(path, content, 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := New(Options{Dir: dir})
		if err != nil {
			t.Fatal(err)
		}
		werr := s.Write(records(span{trace: 1, id: 1}))
		if err := s.Close(); err != nil && werr == nil {
			t.Fatalf("close: %v", err)
		}
		if werr != nil {
			if !errors.Is(werr, ErrNotAppendable) {
				t.Fatalf("write: %v", werr)
			}
			return
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(raw), `"kind":"meta"`); n < 1 {
			t.Fatalf("no header in %q", raw)
		}
		r := artifact.NewReader(bytes.NewReader(raw))
		for {
			if _, err := r.Next(); err != nil {
				break
			}
		}
		if r.Summary() == nil {
			t.Fatalf("no trailer in %q", raw)
		}
	})
}

// TestLargeGroupsInParallel: an artifact of many records is encoded on
// every core, beside many small ones in the same Write; the files and
// trailers are what a serial write makes.
func TestLargeGroupsInParallel(t *testing.T) {
	dir := t.TempDir()
	s := newStore(t, Options{Dir: dir, FinalizeAfter: time.Hour})
	var spans []span
	for i := range 250 {
		spans = append(spans, span{trace: 1, id: byte(i + 2), parent: 1}) // one large artifact
	}
	for tr := range byte(40) {
		spans = append(spans, span{trace: tr + 2, id: 2, parent: 1}, span{trace: tr + 2, id: 1})
	}
	require.NoError(t, s.Write(records(spans...)))
	require.NoError(t, s.Write(records(spans...))) // all seen
	require.NoError(t, s.Close())
	big := readPath(t, filepath.Join(dir, FileName(TraceKey(tid(1)), "")))
	assert.Len(t, big.recs, 250)
	assert.Equal(t, int64(250*15), big.summary.Tokens.Total)
	for tr := range byte(40) {
		a := readPath(t, filepath.Join(dir, FileName(TraceKey(tid(tr+2)), "")))
		assert.Len(t, a.recs, 2)
		assert.Equal(t, int64(1), a.summaries)
	}
}

// TestRecoverFinishesWhatACrashLeft: artifacts left without a trailer by
// a process that died are finalized by the next one: at once when their
// root had ended (their files are older than FinalizeAfter), as orphans
// otherwise; a torn file is set aside.
func TestRecoverFinishesWhatACrashLeft(t *testing.T) {
	dir := t.TempDir()
	first := newStore(t, Options{Dir: dir, FinalizeAfter: time.Hour})
	require.NoError(t, first.Write(records(span{trace: 1, id: 2, parent: 1}, span{trace: 1, id: 1}, span{trace: 2, id: 2, parent: 1})))
	require.NoError(t, first.Close())
	for _, tr := range []byte{1, 2} { // the crash: no trailer
		path := filepath.Join(dir, FileName(TraceKey(tid(tr)), ""))
		raw, err := os.ReadFile(path)
		require.NoError(t, err)
		lines := strings.SplitAfter(strings.TrimSuffix(string(raw), "\n"), "\n")
		require.Contains(t, lines[len(lines)-1], `"kind":"summary"`)
		require.NoError(t, os.WriteFile(path, []byte(strings.Join(lines[:len(lines)-1], "")), 0o644))
	}
	torn := filepath.Join(dir, FileName(TraceKey(tid(3)), ""))
	require.NoError(t, os.WriteFile(torn, []byte(`{"v":1,"kind":"me`), 0o644))

	var aside []string
	var mu sync.Mutex
	const after = 20 * time.Millisecond
	s := newStore(t, Options{Dir: dir, Recover: true, FinalizeAfter: after, Hooks: Hooks{SetAside: func(_, to string, _ error) {
		mu.Lock()
		defer mu.Unlock()
		aside = append(aside, to)
	}}})
	finished := func(tr byte) bool {
		done, err := hasTrailer(filepath.Join(dir, FileName(TraceKey(tid(tr)), "")))
		return err == nil && done
	}
	require.Eventually(t, func() bool { return finished(1) }, 5*time.Second, time.Millisecond, "root ended: finalized")
	require.Eventually(t, func() bool { return finished(2) }, 5*time.Second, time.Millisecond, "no root: finalized as an orphan")
	require.NoError(t, s.Close())
	for _, tr := range []byte{1, 2} {
		a := readPath(t, filepath.Join(dir, FileName(TraceKey(tid(tr)), "")))
		assert.Equal(t, 1, a.headers)
		assert.Equal(t, int64(1), a.summaries)
		assert.Empty(t, a.problems)
	}
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, aside, 1)
	assert.True(t, strings.HasPrefix(aside[0], torn+".corrupt-"))
	_, err := os.Stat(torn)
	assert.ErrorIs(t, err, os.ErrNotExist, "nothing appended to it, nothing new in its place")
}

func TestSpanSetIsBounded(t *testing.T) {
	s := newSpanSet(nil)
	key := func(i int) artifact.SpanKey {
		return artifact.SpanKey{Span: pcommon.SpanID{byte(i), byte(i >> 8), byte(i >> 16), byte(i >> 24)}}
	}
	const n = 3*maxSeen + 5
	for i := range n {
		s.add(key(i))
	}
	assert.LessOrEqual(t, s.cur.n+s.old.n, 2*maxSeen)
	for i := n - maxSeen; i < n; i++ {
		require.True(t, s.has(key(i)), "the last maxSeen ids are known")
	}
	assert.False(t, s.has(key(0)), "the oldest are forgotten")
	s.del(key(n - 1))
	assert.False(t, s.has(key(n-1)))
}

// TestRotateBySize: an attribute value's artifact past RotateBytes is
// finalized and renamed aside; the next records start a new one.
func TestRotateBySize(t *testing.T) {
	dir := t.TempDir()
	s := newStore(t, Options{Dir: dir, Route: ByAttribute, Attribute: "service.name", RotateBytes: 2000, FinalizeAfter: time.Hour})
	for i := range byte(12) {
		require.NoError(t, s.Write(records(span{trace: i + 1, id: 2, parent: 1})))
	}
	require.NoError(t, s.Close())
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Greater(t, len(ents), 2, "rotated")
	total := 0
	for _, e := range ents {
		name := e.Name()
		assert.True(t, name == "service.name-svc.jsonl" || strings.HasPrefix(name, "service.name-svc.R"), name)
		a := readPath(t, filepath.Join(dir, name))
		require.NotNil(t, a.summary, name)
		assert.Equal(t, 1, a.headers)
		total += len(a.recs)
	}
	assert.Equal(t, 12, total)
}

func TestFinalizedHookNamesTheFile(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	s := newStore(t, Options{Dir: dir, Hooks: Hooks{Finalized: func(p string) { paths = append(paths, p) }}})
	require.NoError(t, s.Write(records(span{trace: 1, id: 2, parent: 1}, span{trace: 1, id: 1})))
	require.NoError(t, s.Write(records(span{trace: 2, id: 2, parent: 1})))
	require.NoError(t, s.Close())
	require.Equal(t, []string{
		filepath.Join(dir, FileName(TraceKey(tid(1)), "")),
		filepath.Join(dir, FileName(TraceKey(tid(2)), "")),
	}, paths, "at its root, then at Close")
	for _, p := range paths {
		assert.Equal(t, int64(1), readPath(t, p).summaries, "%s has its trailer when the hook runs", p)
	}
}
