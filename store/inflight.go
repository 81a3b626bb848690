package store

import (
	"errors"
	"fmt"

	"github.com/agenttrace/agenttrace/artifact"
)

// WriteInFlight appends recs, spans that have started and not ended, as
// in-flight records (artifact.Record.InFlight: "in_flight":true, no
// finished_at) to their artifacts, so that a reader of a live run sees a
// call while it runs. They are lines only: no span id is remembered (the
// span's ended record is not a duplicate of its start record), and they
// count in no tally, budget, record cap or trailer, so an artifact's
// totals are what they would be without them. Each span's ended record,
// written later by Write, supersedes its start record
// (artifact.Settle). What fails is returned; nothing is counted as
// dropped, since the span itself is still to come.
func (s *Store) WriteInFlight(recs []artifact.Record) error {
	s.life.RLock()
	defer s.life.RUnlock()
	if s.closed {
		return ErrClosed
	}
	if len(recs) == 0 {
		return nil
	}
	for i := range recs {
		recs[i].InFlight = true
	}
	if s.opts.Redactor != nil {
		redactOrigins(s.opts.Redactor, recs)
	}
	// Prepared and redacted up front, not in the encoder's walk as Write
	// does: start records are few, and this path stays apart from it.
	s.pending().now(recs)
	rt := routings.Get().(*routing)
	defer rt.release()
	groups, err := s.route(rt, recs)
	if err != nil {
		return err
	}
	defer s.closeEvicted()
	var errs []error
	for _, g := range groups {
		if g.key.Kind == KindTrace && g.key.Trace.IsEmpty() {
			continue // no artifact to name: its ended record says so
		}
		if err := s.writeInFlightGroup(g.key, g.recs); err != nil {
			errs = append(errs, fmt.Errorf("%s: in-flight records: %w", g.key, err))
		}
	}
	return errors.Join(errs...)
}

// writeInFlightGroup appends recs to the live artifact of k (lockLive).
func (s *Store) writeInFlightGroup(k Key, recs []artifact.Record) error {
	a := s.lockLive(k)
	err := s.appendInFlight(a, recs)
	s.settleFile(a)
	a.mu.Unlock()
	return err
}

// appendInFlight encodes recs and appends them to a, its header first
// when its file has none yet: no span set, tally or cap is touched.
// a.mu is held.
func (s *Store) appendInFlight(a *runFile, recs []artifact.Record) error {
	if a.broken != nil {
		return a.broken
	}
	if !a.loaded() {
		if err := s.load(a, recs); err != nil {
			return err
		}
	}
	e := encoders.Get().(*encoder)
	defer putEncoder(e)
	e.encodeChunk(a.meta, recs, prepare{}, !a.headerOnDisk())
	if err := s.append(a, e.buf); err != nil {
		return err
	}
	a.to(stOpen)
	return nil
}
