package server

import (
	"context"
	"errors"
	"html/template"
	"io"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/catalog"
	"github.com/agenttrace/agenttrace/report"
	"github.com/agenttrace/agenttrace/semconv"
	"github.com/agenttrace/agenttrace/viewer"
)

// runInfo is one row of the list page: what an artifact holds, read with
// artifact.Reader and totalled with artifact.Tally, so the numbers are
// those of "agenttrace tokens" and of the summary trailer.
type runInfo struct {
	Rel     string // slash-separated path relative to the directory
	Size    int64
	ModTime time.Time

	Started  time.Time // the header's started_at; zero when it has none
	Service  string
	Records  int64
	Errors   int64
	Tokens   artifact.Tokens
	Duration time.Duration // from started_at to the latest span end; -1 when unknown
	Budget   *artifact.BudgetStatus
	// Cost is what the run's model calls cost, from the same tally as
	// Tokens (artifact.Tally.Cost: each leaf model call priced as
	// report.Tokens prices it, a wrapper left out as from the tokens),
	// computed once per change of the file, with the rest of the row;
	// CostCell is its cell (viewer.CostText, and how it was priced in its
	// title), written then too.
	Cost     report.Cost
	CostCell template.HTML
	// Complete tells that the last line is a trailer marked complete: the
	// writer closed the run. Otherwise it is still being written, or its
	// writer died.
	Complete bool
	// Problems counts lines reported and skipped (a torn last line, which
	// a file being written often has, is not counted).
	Problems int64
	// Dropped counts the records the trailer accounts for that the file
	// does not hold (a producer's full queue or record cap); when it is
	// not 0, Tokens and Budget are the trailer's (report.WithTrailer),
	// and Cost covers the records in the file.
	Dropped int64
	// Err says why the artifact could not be read, when it could not.
	Err string
	// notRun: a .json or .pb file whose content is no shape agenttrace
	// reads; not listed (inputs.go).
	notRun bool

	// Agents, Models and Tools are the names the records carry, sorted.
	Agents, Models, Tools []string
	// names name the run for people, read when a page first shows it
	// (names.go).
	names names
	// open tells that parents are pending (spans not ended yet),
	// closed that a trailer closed the run, and Last is the time of its
	// last record: with ModTime, what its state is decided from
	// (viewer.StateOf) when the list is shown, for running turns into
	// stopped with no change to the file.
	open, closed bool
	Last         time.Time
	// index is what a search across runs looks in, lower case: the
	// names above, span names and the text of the messages.
	index string
	// at is where its catalog row is (catalog mode): the page's rows are
	// read whole from there once the columns it sorts on chose them.
	at catalog.At
}

// maxIndex bounds the search text kept per run.
const maxIndex = 1 << 20

// indexer collects a run's names and message text as its records are read.
type indexer struct {
	rd                    semconv.Reading
	agents, models, tools map[string]struct{}
	text                  strings.Builder
	spans, parents        map[[24]byte]struct{}
	flying                map[[24]byte]struct{} // spans with a start record (in flight, or ended later)
	last                  uint64                // the latest start or end, as viewer's lastRecord
}

func newIndexer() *indexer {
	return &indexer{agents: map[string]struct{}{}, models: map[string]struct{}{}, tools: map[string]struct{}{},
		spans: map[[24]byte]struct{}{}, parents: map[[24]byte]struct{}{}}
}

func (ix *indexer) add(rec *artifact.Record) {
	sp := rec.Span
	var k [24]byte
	tid := sp.TraceID()
	copy(k[:16], tid[:])
	sid := sp.SpanID()
	copy(k[16:], sid[:])
	ix.spans[k] = struct{}{}
	ix.last = max(ix.last, uint64(sp.StartTimestamp()), uint64(sp.EndTimestamp()))
	if p := sp.ParentSpanID(); !p.IsEmpty() {
		copy(k[16:], p[:])
		ix.parents[k] = struct{}{}
	}
	rec.Read(&ix.rd)
	if m := ix.rd.Model(); m != "" {
		ix.models[m] = struct{}{}
	}
	if a := ix.rd.Str(semconv.FieldAgent); a != "" {
		ix.agents[a] = struct{}{}
	}
	if ix.rd.Kind == semconv.Call {
		if t := ix.rd.ToolName(sp.Name()); t != "" {
			ix.tools[t] = struct{}{}
		}
	}
	ix.write(sp.Name())
	if ix.text.Len() >= maxIndex {
		return
	}
	c := semconv.Messages(sp)
	parts := func(ps []semconv.Part) {
		for _, p := range ps {
			ix.write(p.Content)
			ix.write(p.Name)
		}
	}
	parts(c.System)
	for _, m := range c.Input {
		parts(m.Parts)
	}
	for _, m := range c.Output {
		parts(m.Parts)
	}
}

func (ix *indexer) write(s string) {
	if s == "" || ix.text.Len() >= maxIndex {
		return
	}
	ix.text.WriteString(strings.ToLower(s))
	ix.text.WriteByte('\n')
}

// started notes a span's start record: in flight until its ended record
// is read (the viewer's rule, viewer.RunState).
func (ix *indexer) started(rec *artifact.Record) {
	sp := rec.Span
	var k [24]byte
	tid, sid := sp.TraceID(), sp.SpanID()
	copy(k[:16], tid[:])
	copy(k[16:], sid[:])
	if ix.flying == nil {
		ix.flying = map[[24]byte]struct{}{}
	}
	ix.flying[k] = struct{}{}
	ix.last = max(ix.last, uint64(sp.StartTimestamp()))
}

// finish sets ri's names, state and search text.
func (ix *indexer) finish(ri *runInfo, trailer bool) {
	keys := func(m map[string]struct{}) []string { return slices.Sorted(maps.Keys(m)) }
	ri.Agents, ri.Models, ri.Tools = keys(ix.agents), keys(ix.models), keys(ix.tools)
	pending := false
	for p := range ix.parents {
		_, ok := ix.spans[p]
		if _, fly := ix.flying[p]; !ok && !fly {
			pending = true
			break
		}
	}
	for k := range ix.flying {
		if _, ended := ix.spans[k]; !ended {
			pending = true // a span in flight: the run is open
			break
		}
	}
	ri.open, ri.closed = pending, trailer
	if ix.last > 0 {
		ri.Last = time.Unix(0, int64(ix.last)).UTC()
	}
	var b strings.Builder
	for _, l := range [][]string{ri.Agents, ri.Models, ri.Tools, {ri.Service, ri.Rel}} {
		for _, s := range l {
			b.WriteString(strings.ToLower(s))
			b.WriteByte('\n')
		}
	}
	b.WriteString(ix.text.String())
	ri.index = b.String()
}

// state is the run's state at now: viewer.StateOf, the rule the run page
// takes, with the file's modification time as when it last gained data.
func (ri *runInfo) state(now time.Time, idle time.Duration) string {
	return viewer.StateOf(ri.open, ri.closed, viewer.Liveness{Written: ri.ModTime, Idle: idle, Now: now})
}

// when is the time the list sorts by: the run's start, or the file's
// modification time when the header gives none.
func (ri *runInfo) when() time.Time {
	if !ri.Started.IsZero() {
		return ri.Started
	}
	return ri.ModTime
}

// cacheEntry is an artifact's row, valid while its size and modification
// time are those it was read at.
type cacheEntry struct {
	size    int64
	modTime time.Time
	info    *runInfo
}

// lister lists the artifacts of a directory. It reads an artifact again
// only when its size or modification time changed, so listing a
// directory of large, finished runs costs a directory walk.
type lister struct {
	root *os.Root
	log  *slog.Logger
	red  *Redaction // what the search text and names are made from
	// imports converts the files of other shapes (inputs.go).
	imports *importCache

	mu    sync.Mutex // one listing at a time; guards cache
	cache map[string]*cacheEntry
	// limit is the most runs the index holds: runs reports a folder of
	// more, to be listed from its catalog.
	limit int
}

// found is an artifact the walk found, with the file's size and mtime.
type found struct {
	rel string
	fi  fs.FileInfo
}

// runs returns every artifact under the directory, newest first, and the
// folder's version, both from one walk, with how long the walk took (the
// reading of changed files left out); false, having read nothing, when
// the folder holds more than the limit of artifacts.
func (l *lister) runs() ([]*runInfo, string, time.Duration, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()

	start := time.Now()
	files := l.walk()
	walked := time.Since(start)
	if len(files) > l.limit {
		l.cache = nil // the catalog lists them from now on
		return nil, "", walked, false
	}
	out := make([]*runInfo, len(files))
	next := make(map[string]*cacheEntry, len(files))
	var todo []int
	for i, f := range files {
		if e, ok := l.cache[f.rel]; ok && e.size == f.fi.Size() && e.modTime.Equal(f.fi.ModTime()) {
			out[i] = e.info
			next[f.rel] = e
			continue
		}
		todo = append(todo, i)
	}

	// Read what changed in parallel: the first listing of a large
	// directory reads every file.
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for _, i := range todo {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			out[i] = l.read(files[i])
		})
	}
	wg.Wait()
	for _, i := range todo {
		// Keyed by what was stat'ed before reading: a file that grew
		// meanwhile is read again next time.
		next[files[i].rel] = &cacheEntry{size: files[i].fi.Size(), modTime: files[i].fi.ModTime(), info: out[i]}
	}
	l.cache = next
	out = slices.DeleteFunc(out, func(ri *runInfo) bool { return ri.notRun })
	byWhen(out)
	return out, digest(files), walked, true
}

// walk finds the regular *.jsonl files under the directory (each), in
// path order, at most one past the index's limit: a folder of more is
// listed from its catalog, and is not held here.
func (l *lister) walk() []found {
	var files []found
	l.each(context.Background(), func(rel string, fi fs.FileInfo) bool {
		files = append(files, found{rel: rel, fi: fi})
		return len(files) <= l.limit
	})
	slices.SortFunc(files, func(a, b found) int { return strings.Compare(a.rel, b.rel) })
	return files
}

// read summarizes one artifact.
func (l *lister) read(f found) *runInfo {
	ri := &runInfo{Rel: f.rel, Size: f.fi.Size(), ModTime: f.fi.ModTime(), Duration: -1, names: names{once: new(sync.Once)}}
	a, err := openArtifact(l.root, f.rel)
	if err != nil {
		ri.Err = err.Error()
		return ri
	}
	defer a.f.Close()
	if err := l.imports.swap(a); err != nil {
		if errors.Is(err, errNotArtifact) {
			ri.notRun = true // a .json or .pb file of no shape agenttrace reads
			return ri
		}
		l.log.Warn("cannot convert", "path", f.rel, "err", err)
		ri.Err = err.Error()
		return ri
	}
	if a.imp != nil {
		ri.Problems = a.imp.skipped
	}
	problems := func(le *artifact.LineError) {
		if !errors.Is(le, artifact.ErrTornLine) {
			ri.Problems++
		}
	}
	rd := artifact.NewReader(a.f, artifact.WithSource(f.rel), artifact.WithProblemHandler(problems), artifact.WithInFlight())
	var (
		tally   artifact.Tally
		lastRec int
		ix      = newIndexer()
	)
	for {
		rec, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			l.log.Warn("cannot read artifact", "path", f.rel, "err", err)
			ri.Err = err.Error()
			break
		}
		if rec.InFlight {
			ix.started(rec) // a start record: no total counts it
			continue
		}
		tally.Add(rec)
		l.red.record(rd.Meta(), rec)
		ix.add(rec)
		lastRec = max(lastRec, rd.Line())
	}
	meta := rd.Meta()
	if meta == nil { // a fatal first line
		return ri
	}
	tr := rd.Summary()
	// The trailer's budget is the one the run was judged against: a
	// root span's that came after the header is there alone.
	sum := tally.Summary(artifact.JudgedBudget(meta.Budget, tr))
	ri.Service = meta.Service
	if !meta.StartedAt.IsZero() && meta.StartedAt.UnixNano() > 0 {
		ri.Started = meta.StartedAt
	}
	ri.Duration = viewer.RunDuration(meta.StartedAt, sum.FinishedAt) // the page's and the outline's rule
	ri.Records, ri.Errors, ri.Tokens, ri.Budget = sum.Records, sum.Errors, sum.Tokens, sum.Budget
	ri.setCost(report.CostOf(tally.Cost()))
	ix.finish(ri, tr != nil)
	if tr != nil && tr.Complete && rd.SummaryLine() > lastRec {
		ri.Complete = true
	}
	if tr != nil && ri.Err == "" && (tr.Dropped > 0 || tr.Records > sum.Records) {
		l.trailerTruth(ri, a, tr)
	}
	return ri
}

// trailerTruth sets ri's tokens, budget and cost to what the report makes of
// an artifact whose trailer accounts for records it does not hold: the
// trailer's (report.WithTrailer, the rule "agenttrace tokens" and the
// viewer page follow), with the count of the dropped records. Only such a
// file is read a second time, whole; the others are listed from a
// streaming tally.
func (l *lister) trailerTruth(ri *runInfo, a *servedRun, tr *artifact.Summary) {
	if _, err := a.f.Seek(0, io.SeekStart); err != nil {
		l.log.Warn("cannot read artifact", "path", ri.Rel, "err", err)
		return
	}
	run := viewer.Run{Name: ri.Rel}
	if err := readArtifact(a.f, ri.Rel, &run); err != nil {
		l.log.Warn("cannot read artifact", "path", ri.Rel, "err", err)
		return
	}
	rep := report.Tokens(run.Records, run.Meta, report.WithTop(0), report.WithTrailer(tr, run.Records))
	ri.Tokens, ri.Budget, ri.Dropped = rep.Tokens, rep.Budget, rep.Dropped
	ri.setCost(rep.Cost)
}
