package store

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/semconv"
)

// minShare is the fewest records worth a goroutine of their own: below
// it, starting one costs more than encoding them.
const minShare = 96

// chunkRecs is how many records of a large group a pipeline encodes at a
// time: small enough that the last chunk's write, which nothing overlaps,
// is short, large enough that handing chunks over costs nothing.
const chunkRecs = 48

// maxKeptReadings bounds the readings a pooled encoder keeps between
// chunks: a reading is some kilobytes.
const maxKeptReadings = 1024

// parallel runs f on w goroutines, this one among them, and waits for all.
func parallel(w int, f func()) {
	var wg sync.WaitGroup
	for range w - 1 {
		wg.Go(f)
	}
	f()
	wg.Wait()
}

// prepareAll calls prep on every record of recs, on every core when they
// are many.
func prepareAll(recs []artifact.Record, prep func(*artifact.Record)) {
	w := min(runtime.GOMAXPROCS(0), len(recs)/minShare)
	if w < 2 {
		for i := range recs {
			prep(&recs[i])
		}
		return
	}
	var next atomic.Int64
	parallel(w, func() {
		for {
			lo := int(next.Add(chunkRecs)) - chunkRecs
			if lo >= len(recs) {
				return
			}
			for i := lo; i < min(lo+chunkRecs, len(recs)); i++ {
				prep(&recs[i])
			}
		}
	})
}

// groupWorkers is how many goroutines write the groups of a Write of n
// records: one per core when there are several artifacts and enough
// records to share.
func groupWorkers(groups []group, n int) int {
	if len(groups) < 2 || n < minShare/2 {
		return 1
	}
	return min(runtime.GOMAXPROCS(0), len(groups))
}

// pipelineWorkers is how many goroutines write a group of n records
// through a pipeline: 1 (no pipeline) for a small group.
func pipelineWorkers(n int) int {
	if n < 2*minShare {
		return 1
	}
	return min(runtime.GOMAXPROCS(0), (n+chunkRecs-1)/chunkRecs)
}

// A pipeline writes a group of records to its artifact: the store's one
// write path. A small group is one chunk, encoded and taken on the
// writer's goroutine (writeSerial); a large one is written on several
// cores. The records are cut into chunks, which workers take in order,
// prepare (Options.Prepare) and encode, each into an encoder of its own;
// a chunk once encoded waits for its turn, and whoever finishes the chunk
// whose turn it is takes the turn: checks the chunk's spans against the
// artifact's span-id set, counts them in the tally and appends their lines
// to the file, then does the same for the chunks after it that are ready.
// So the part that must be done in order (the span-id set, the tally, the
// write system call) runs beside the encoding of later chunks instead of
// after all of it, and what the artifact's file and tally end up with is
// exactly what writing the group in one piece gives. A chunk whose write
// fails stops the pipeline, and everything it wrote is cut back off the
// file: the group is written whole or not at all.
type pipeline struct {
	s    *Store
	a    *runFile
	recs []artifact.Record
	prep prepare
	n    int // chunks

	claim atomic.Int64 // the next chunk to encode
	stop  atomic.Bool  // a write failed: encode no more

	mu    sync.Mutex
	ready []*encoder // encoded chunks waiting for their turn
	turn  int        // the chunk whose turn it is
	busy  bool       // a worker holds the turn

	// Only the worker holding the turn touches these (and, once every
	// worker is done, writePipelined).
	next                  artifact.Tally
	keys                  []artifact.SpanKey
	written, capped, dups int64
	root                  bool
	budget                rootAttrs
	trailer               bool
	dn                    int64 // drops taken for the trailer
	du                    dropUsage
	done                  int // records of the chunks taken their turn
	startSize             int64
	startState            state
	acc                   []byte // a Writer's lines, written once at the end
	scratch               []byte
	err                   error
}

// writePipelined is writeLocked for a large group of a loaded artifact,
// on w goroutines (see pipeline). a.mu is held.
func (s *Store) writePipelined(a *runFile, recs []artifact.Record, prep prepare, w int) (bool, error) {
	p := s.newPipeline(a, recs, prep, (len(recs)+chunkRecs-1)/chunkRecs)
	parallel(w, p.work)
	for _, e := range p.ready {
		if e != nil {
			putEncoder(e)
		}
	}
	return p.finish()
}

// newPipeline is a pipeline of n chunks writing recs to a. a.mu is held.
func (s *Store) newPipeline(a *runFile, recs []artifact.Record, prep prepare, n int) *pipeline {
	p := new(pipeline)
	p.start(s, a, recs, prep, n)
	p.ready = make([]*encoder, p.n)
	p.keys = make([]artifact.SpanKey, 0, len(recs))
	return p
}

// start readies p to write recs to a in n chunks. a.mu is held.
func (p *pipeline) start(s *Store, a *runFile, recs []artifact.Record, prep prepare, n int) {
	p.s, p.a, p.recs, p.prep, p.n = s, a, recs, prep, n
	p.next = a.tally
	p.startSize, p.startState = a.size, a.st
}

// writeSerial is writeLocked on this goroutine: a pipeline of one chunk,
// the whole group, encoded and then taking its turn. a.mu is held.
func (s *Store) writeSerial(a *runFile, recs []artifact.Record, prep prepare) (bool, error) {
	var p pipeline
	p.start(s, a, recs, prep, 1)
	e := encoders.Get().(*encoder)
	e.encodeChunk(a.meta, recs, prep, !a.headerOnDisk())
	p.keys = e.taken[:0]
	p.take(0, e)
	root, err := p.finish()
	e.taken = p.keys[:0]
	putEncoder(e)
	return root, err
}

// finish settles a pipeline whose chunks all took their turn: what was
// written counts, or, when a write failed, nothing does. a.mu is held.
func (p *pipeline) finish() (bool, error) {
	s, a := p.s, p.a
	if p.err == nil && a.w != nil && len(p.acc) > 0 {
		if err := s.append(a, p.acc); err != nil {
			p.err = err
		} else {
			a.to(stOpen)
		}
	}
	if p.err != nil {
		return false, p.fail()
	}
	if len(p.keys) == 0 {
		s.hooks.duplicates(p.dups)
		return false, nil
	}
	a.tally = p.next
	a.written(p.trailer) // nothing counted since the trailer, or something
	if p.root {
		a.rootEnded.Store(true)
	}
	s.hooks.written(p.written)
	s.hooks.dropped(p.capped)
	s.hooks.duplicates(p.dups)
	return p.root, nil
}

// work encodes chunks and takes turns until there are none left.
func (p *pipeline) work() {
	for !p.stop.Load() {
		c := int(p.claim.Add(1) - 1)
		if c >= p.n {
			return
		}
		lo := c * chunkRecs
		e := encoders.Get().(*encoder)
		e.encodeChunk(p.a.meta, p.recs[lo:min(lo+chunkRecs, len(p.recs))], p.prep, c == 0 && p.startState == stLoaded)
		p.mu.Lock()
		p.ready[c] = e
		if p.busy {
			// The holder of the turn sees this chunk before it lets go.
			p.mu.Unlock()
			continue
		}
		p.busy = true
		for p.turn < p.n && p.ready[p.turn] != nil {
			t := p.turn
			e := p.ready[t]
			p.ready[t] = nil
			p.mu.Unlock()
			p.take(t, e)
			putEncoder(e)
			p.mu.Lock()
			p.turn++
		}
		p.busy = false
		p.mu.Unlock()
	}
}

// take is chunk t's turn, the write path's one accounting step (the
// serial write is a pipeline of one chunk): its spans not in the artifact
// yet are counted, up to the record cap, and their lines appended (the
// header went at the start of chunk 0 when none is on disk; after the
// last chunk, the trailer when a local root ended). A record past the cap
// or too large for a line is counted as dropped, its usage kept.
func (p *pipeline) take(t int, e *encoder) {
	if p.err != nil {
		return
	}
	a, lo := p.a, t*chunkRecs
	capN := p.s.opts.RecordCap
	data := e.buf
	compact := false // data is p.scratch: some lines left out
	begin := e.head
	// The chunk's spans go into the span-id set first, in a loop of their
	// own: in the set of one artifact for everything each look-up misses
	// the cache, and with nothing else in the loop the processor has the
	// next look-ups under way while it waits for one.
	fresh := e.fresh[:0]
	for j, k := range e.keys {
		fresh = append(fresh, a.seen.addHashed(k, e.hashes[j]))
	}
	e.fresh = fresh
	for j := range e.trunc {
		sp := p.recs[lo+j].Span
		end := int(e.ends[j])
		keep := fresh[j]
		if keep {
			k := e.keys[j]
			p.keys = append(p.keys, k)
			if a.traces != nil {
				a.traces[k.Trace] = struct{}{}
			}
			if artifact.IsLocalRoot(sp) {
				p.root = true
				p.budget.read(sp.Attributes())
			}
			switch {
			case e.trunc[j] < 0 || (capN > 0 && p.next.Records() >= capN):
				// No cut fits it in a line (its line is empty), or the
				// artifact is full: counted as dropped, its usage kept.
				p.next.AddDropped(sp, &e.rds[j])
				p.capped++
				keep = false
			default:
				p.next.AddReading(sp, &e.rds[j])
				p.next.Truncate(e.trunc[j]) // values cut to fit the line limit
				p.written++
			}
		} else {
			p.dups++
		}
		switch {
		case !keep && !compact && end > begin:
			p.scratch = append(p.scratch[:0], e.buf[:begin]...)
			compact = true
		case keep && compact:
			p.scratch = append(p.scratch, e.buf[begin:end]...)
		}
		begin = end
	}
	p.done = lo + len(e.trunc)
	if compact {
		data = p.scratch
	}
	if len(p.keys) == 0 {
		// Nothing new (every span a duplicate, which a fresh artifact's
		// first chunk never is): not even a header.
		data = data[:0]
	}
	if t == p.n-1 && len(p.keys) > 0 {
		p.s.rootBudget(a, p.budget)
		// A local root ends the trace's part in its process: the trailer
		// goes out with its records, in the same write, so an artifact is
		// complete on disk as soon as its run is, crash or not. A late
		// span appends, and another trailer follows (see trailerWith).
		if p.trailer = p.s.trailerWith(a, p.root); p.trailer {
			p.dn, p.du = p.s.drops.takeOf(a)
			p.next.Drop(p.dn)
			p.du.into(&p.next)
			data = appendTrailer(data, a.meta, &p.next)
		}
	}
	if compact {
		p.scratch = data[:0]
	} else {
		e.buf = data[:0]
	}
	if len(data) == 0 {
		return
	}
	if a.w != nil && p.n > 1 {
		// A Writer cannot be cut back: the chunks go out in one call.
		p.acc = append(p.acc, data...)
		return
	}
	if err := p.s.append(a, data); err != nil {
		p.err = err
		p.stop.Store(true)
		return
	}
	a.to(stOpen)
}

// fail undoes a pipeline whose write failed: the lines it wrote are cut
// off the file, its spans leave the span-id set, the drops it took go back,
// and what it was given counts as dropped.
func (p *pipeline) fail() error {
	a, s := p.a, p.s
	for i := p.done; i < len(p.recs); i++ {
		sp := p.recs[i].Span
		if k := (artifact.SpanKey{Trace: sp.TraceID(), Span: sp.SpanID()}); a.seen.addNew(k) {
			p.keys = append(p.keys, k)
			p.written++
		}
	}
	for _, k := range p.keys {
		a.seen.del(k)
	}
	if a.size != p.startSize && a.broken == nil && a.f != nil {
		if err := a.f.Truncate(p.startSize); err != nil {
			a.breakWith(fmt.Errorf("%w; cutting back the lines written: %w", p.err, err))
		}
	}
	a.size = p.startSize
	if a.broken == nil {
		a.to(p.startState)
	}
	if p.dn > 0 {
		s.drops.giveBack(a, p.dn, p.du)
	}
	s.hooks.dropped(p.written + p.capped)
	if a.broken != nil {
		return a.broken
	}
	return p.err
}

// encodeChunk prepares and encodes recs into e.buf, after the header when
// head (the artifact's first chunk with none on disk yet), keeping each
// one's reading, cut count and line end for its turn. The redaction is
// the encoder's, in its walk of each span's attributes.
func (e *encoder) encodeChunk(meta *artifact.Meta, recs []artifact.Record, prep prepare, head bool) {
	e.enc.SetDefaultsHeld(meta) // the records are the Write's until it returns
	e.redactWith(prep.red)
	e.buf = e.buf[:0]
	if head {
		e.buf = artifact.AppendMeta(e.buf, meta)
	}
	e.head = len(e.buf)
	if cap(e.rds) < len(recs) {
		e.rds = make([]semconv.Reading, len(recs))
	}
	e.rds = e.rds[:len(recs)]
	e.trunc, e.ends = e.trunc[:0], e.ends[:0]
	e.keys, e.hashes = e.keys[:0], e.hashes[:0]
	for j := range recs {
		rec := &recs[j]
		// The span's id and its hash for the span-id set, made here
		// beside the encoding rather than in the turn, which runs alone.
		sp := rec.Span
		k := artifact.SpanKey{Trace: sp.TraceID(), Span: sp.SpanID()}
		e.keys = append(e.keys, k)
		e.hashes = append(e.hashes, hashKey(k))
		if prep.fn != nil {
			prep.fn(rec)
		}
		// The encoder reads the span into the reading the tally takes
		// later: neither a second reading nor a copy of one (a reading is
		// some kilobytes, with pointers).
		e.buf = e.enc.AppendRecordReading(e.buf, rec, &e.rds[j])
		n := e.enc.Truncated()
		if e.enc.Skipped() {
			n = -1
		}
		e.trunc = append(e.trunc, n)
		e.ends = append(e.ends, int32(len(e.buf)))
	}
}

// putEncoder returns e to the pool, without what it should not keep.
func putEncoder(e *encoder) {
	e.buf = e.buf[:0]
	if cap(e.rds) > maxKeptReadings {
		e.rds = nil
	}
	encoders.Put(e)
}
