package store

import (
	"errors"
	"fmt"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"

	"github.com/agenttrace/agenttrace/artifact"
)

// heldTrace is the log records held for one trace.
type heldTrace struct {
	since time.Time
	recs  []artifact.LogRecord
	ids   map[logID]struct{}
}

// hold keeps a copy of rec until its trace's artifact exists.
func (s *Store) hold(tid pcommon.TraceID, rec artifact.LogRecord, id logID, now time.Time) {
	ls := &s.logs
	ls.mu.Lock()
	if ls.held == nil {
		ls.held = make(map[pcommon.TraceID]*heldTrace)
	}
	ht := ls.held[tid]
	if ht == nil {
		ht = &heldTrace{since: now, ids: make(map[logID]struct{})}
		ls.held[tid] = ht
		ls.order = append(ls.order, tid)
	}
	if _, dup := ht.ids[id]; dup {
		ls.mu.Unlock()
		call(s.logHooks().Duplicates, 1)
		return
	}
	ht.ids[id] = struct{}{}
	ht.recs = append(ht.recs, copyLog(rec))
	ls.nHeld++
	ls.pending.Store(int64(ls.nHeld))
	ls.mu.Unlock()
	call(s.logHooks().Held, 1)
}

// copyLog copies rec, which belongs to a batch the caller keeps.
func copyLog(rec artifact.LogRecord) artifact.LogRecord {
	lr := plog.NewLogRecord()
	rec.Log.CopyTo(lr)
	res := pcommon.NewResource()
	rec.Resource.CopyTo(res)
	sc := pcommon.NewInstrumentationScope()
	rec.Scope.CopyTo(sc)
	rec.Log, rec.Resource, rec.Scope = lr, res, sc
	return rec
}

// takeHeld removes the log records held for the traces pick selects.
func (s *Store) takeHeld(pick func(tid pcommon.TraceID, ht *heldTrace, over int) bool) map[pcommon.TraceID][]artifact.LogRecord {
	ls := &s.logs
	ls.mu.Lock()
	defer ls.mu.Unlock()
	var out map[pcommon.TraceID][]artifact.LogRecord
	keep := ls.order[:0]
	max := s.opts.MaxHeldLogs
	if max <= 0 {
		max = DefaultMaxHeldLogs
	}
	for _, tid := range ls.order {
		ht := ls.held[tid]
		if ht == nil {
			continue
		}
		if !pick(tid, ht, ls.nHeld-max) {
			keep = append(keep, tid)
			continue
		}
		if out == nil {
			out = make(map[pcommon.TraceID][]artifact.LogRecord)
		}
		out[tid] = ht.recs
		ls.nHeld -= len(ht.recs)
		delete(ls.held, tid)
	}
	clear(ls.order[len(keep):])
	ls.order = keep
	ls.pending.Store(int64(ls.nHeld))
	return out
}

// releaseDue writes the held log records of the traces of recs (just
// written: their artifacts exist now), those held longer than
// HoldLogs, and the oldest past MaxHeldLogs. The caller holds s.life.
func (s *Store) releaseDue(now time.Time, recs []artifact.Record) error {
	if s.logs.pending.Load() == 0 {
		return nil
	}
	touched := make(map[pcommon.TraceID]bool)
	for i := range recs {
		touched[recs[i].Span.TraceID()] = true
	}
	convs := s.conversationsOf(recs)
	hold := s.opts.HoldLogs
	if hold == 0 {
		hold = s.opts.FinalizeAfter
	}
	due := s.takeHeld(func(tid pcommon.TraceID, ht *heldTrace, over int) bool {
		switch {
		case over > 0, hold > 0 && now.Sub(ht.since) >= hold:
			return true
		}
		return touched[tid]
	})
	return s.writeReleased(due, convs)
}

// conversationsOf is, grouping by conversation, the conversation each
// trace of recs names: a Write that finalizes a conversation's artifact
// at once (its root ended) forgets which traces it held before the log
// records held for them are released, and they would go to a trace's
// file of their own instead of their conversation's.
func (s *Store) conversationsOf(recs []artifact.Record) map[pcommon.TraceID]string {
	if s.opts.Route != ByConversation || len(recs) == 0 {
		return nil
	}
	return namedConversations(recs)
}

// writeReleased writes released log records to their traces' artifacts
// (a trace's conversation's, from convs when the store no longer knows
// it); those that fail are held again.
func (s *Store) writeReleased(due map[pcommon.TraceID][]artifact.LogRecord, convs map[pcommon.TraceID]string) error {
	var errs []error
	now := time.Now()
	for tid, recs := range due {
		k := TraceKey(tid)
		if s.opts.Route == ByConversation {
			if c, ok := s.convOf(tid); ok {
				k = ConversationKey(c)
			} else if c, ok := convs[tid]; ok {
				k = ConversationKey(c)
			}
		}
		if err := s.writeLogsTo(k, recs); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", k, err))
			var scratch []byte
			for i := range recs {
				var id logID
				id, scratch = idOf(&recs[i], scratch)
				s.hold(tid, recs[i], id, now)
			}
		}
	}
	return errors.Join(errs...)
}

// releaseAfterWrite is the end of a span Write: the log records held for
// its traces (whose artifacts it made) follow their spans. The caller
// holds s.life.
func (s *Store) releaseAfterWrite(recs []artifact.Record) {
	if s.closed || s.logs.pending.Load() == 0 {
		return
	}
	s.handle(s.releaseDue(time.Now(), recs))
}

// flushHeld writes every held log record (Close): nothing held is lost.
func (s *Store) flushHeld() error {
	s.life.RLock()
	defer s.life.RUnlock()
	if s.closed {
		return nil
	}
	return s.writeReleased(s.takeHeld(func(pcommon.TraceID, *heldTrace, int) bool { return true }), nil)
}

// HeldLogs returns the number of log records held for traces whose
// artifact does not exist yet.
func (s *Store) HeldLogs() int { return int(s.logs.pending.Load()) }
