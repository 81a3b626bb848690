package store

import (
	"errors"
	"fmt"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/agenttrace/agenttrace/pricing"
	"github.com/agenttrace/agenttrace/semconv"
)

// Drop counts n spans of trace tid that were dropped before the store saw
// them (a full queue, a failed write), with u, their usage when it was
// read, and c, the cost of their model calls priced as they dropped (each
// call, known or unpriced, counted as [pricing.Total.Add] does; the zero
// Total when none was priced): the trailer of the trace's artifact counts
// them, its spent_usd as if they had been written and an unpriced one in
// unpriced_calls, so a cost budget is judged on every call made, not only
// those written; a trace with nothing but drops gets an artifact at Close
// that says so.
func (s *Store) Drop(tid pcommon.TraceID, n int64, u semconv.Usage, c pricing.Total) {
	if tid.IsEmpty() && s.run == nil {
		return // no artifact of a folder can say so (see ErrNoTraceID)
	}
	s.drops.add(tid, n, dropUsage{usage: u, cost: c})
}

// Flush syncs every artifact written since its last sync (unless the
// policy is never).
func (s *Store) Flush() error {
	var errs []error
	each := func(a *runFile) {
		a.mu.Lock()
		if !a.gone() {
			errs = append(errs, s.sync(a))
		}
		a.mu.Unlock()
	}
	if s.run != nil {
		each(s.run)
	}
	for _, a := range s.snapshot() {
		each(a)
	}
	return errors.Join(errs...)
}

// snapshot returns every artifact in the tables now.
func (s *Store) snapshot() []*runFile {
	var out []*runFile
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.Lock()
		for _, a := range sh.arts {
			out = append(out, a)
		}
		sh.mu.Unlock()
	}
	return out
}

// finalizeLoop finalizes idle artifacts until Close.
func (s *Store) finalizeLoop() {
	defer s.wg.Done()
	every := min(max(s.opts.FinalizeAfter/4, 5*time.Millisecond), time.Second)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case now := <-t.C:
			s.finalizeIdle(now)
		}
	}
}

// finalizeIdle finalizes the artifacts whose root ended and that stayed
// idle for FinalizeAfter, and those idle for OrphanAfter.
func (s *Store) finalizeIdle(now time.Time) {
	due := func(a *runFile) bool {
		idle := time.Duration(now.UnixNano() - a.lastWrite.Load())
		return (a.rootEnded.Load() && idle >= s.opts.FinalizeAfter) || idle >= s.opts.OrphanAfter
	}
	// Shard by shard, only the due ones: a snapshot of every artifact
	// each tick was an allocation the size of the table (one artifact per
	// trace, live for FinalizeAfter: hundreds of thousands) for the few
	// that are due.
	var buf []*runFile
	for i := range s.shards {
		sh := &s.shards[i]
		buf = buf[:0]
		sh.mu.Lock()
		for _, a := range sh.arts {
			if due(a) {
				buf = append(buf, a)
			}
		}
		sh.mu.Unlock()
		for _, a := range buf {
			a.mu.Lock()
			if !a.gone() && due(a) {
				if err := s.finalizeLocked(a, false, nil); err != nil {
					s.handle(fmt.Errorf("finalize %s: %w", a.path, err))
				}
			}
			a.mu.Unlock()
		}
	}
	s.closeEvicted()
}

// Close stops the finalizer, writes every artifact's trailer (and one for
// each trace that has nothing but drops), syncs and closes every file, and
// returns what failed. Later Writes return ErrClosed. Close is idempotent.
func (s *Store) Close() error {
	s.once.Do(func() { close(s.stop) })
	s.wg.Wait()
	heldErr := s.flushHeld() // nothing held is lost
	s.life.Lock()
	defer s.life.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	errs := []error{heldErr}
	if s.run != nil {
		a := s.run
		a.mu.Lock()
		errs = append(errs, s.finalizeLocked(a, true, nil), s.closeFile(a))
		a.mu.Unlock()
		return errors.Join(errs...)
	}
	for _, tid := range s.drops.traces() {
		k := TraceKey(tid)
		if c, ok := s.convOf(tid); ok {
			k = ConversationKey(c)
		}
		s.get(k)
	}
	var later []string
	for _, a := range s.snapshot() {
		a.mu.Lock()
		if !a.gone() {
			errs = append(errs, s.finalizeLocked(a, false, &later))
		}
		a.mu.Unlock()
	}
	s.closeEvicted()
	errs = append(errs, syncFiles(s.opts.Dir, later))
	return errors.Join(errs...)
}

// OpenFiles returns the number of artifact files open now.
func (s *Store) OpenFiles() int { return int(s.nOpen.Load()) }

// Active returns the number of artifacts in memory (written to and not
// finalized).
func (s *Store) Active() int {
	n := 0
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.Lock()
		n += len(sh.arts)
		sh.mu.Unlock()
	}
	return n
}

// IsActive reports whether the artifact of k is in memory: written to and
// not finalized.
func (s *Store) IsActive(k Key) bool { return s.lookup(k) != nil }
