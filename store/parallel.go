package store

import (
	"runtime"
	"sync"

	"github.com/agenttrace/agenttrace/converter"
	"github.com/agenttrace/agenttrace/semconv"
)

// minShare is the fewest records worth a goroutine of their own: below
// it, starting one costs more than encoding them.
const minShare = 96

// encodeWorkers is how many goroutines encode n records of one artifact.
func encodeWorkers(n int) int {
	return min(runtime.GOMAXPROCS(0), n/minShare)
}

// maxKeptReadings bounds the readings a pooled encoder keeps between
// groups: a reading is some kilobytes.
const maxKeptReadings = 1024

// encodeParallel encodes the records todo of recs (indexes, in order)
// under meta on workers goroutines, each a contiguous share, and appends
// the lines to buf in order. The tally t counts them afterwards, in
// order, as the serial path would: encoding is what takes the time, and
// it needs no shared state. It returns buf and the records written and
// dropped (no cut fit them in a line).
func encodeParallel(buf []byte, meta *converter.Meta, recs []converter.Record, todo []int32, t *converter.Tally, workers int) ([]byte, int64, int64) {
	shares := make([]*encoder, workers)
	per := (len(todo) + workers - 1) / workers
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := w*per, min((w+1)*per, len(todo))
		e := encoders.Get().(*encoder)
		shares[w] = e
		job := func() { e.encodeShare(meta, recs, todo[lo:hi]) }
		if w == workers-1 {
			job() // this goroutine takes the last share
			continue
		}
		wg.Go(job)
	}
	wg.Wait()
	var written, dropped int64
	for w, e := range shares {
		buf = append(buf, e.buf...)
		lo := w * per
		for j := range e.trunc {
			rec := &recs[todo[lo+j]]
			if e.trunc[j] < 0 {
				t.AddDropped(rec.Span, &e.rds[j])
				dropped++
				continue
			}
			t.AddReading(rec.Span, &e.rds[j])
			t.Truncate(e.trunc[j])
			written++
		}
		e.buf = e.buf[:0]
		if cap(e.rds) > maxKeptReadings {
			e.rds = nil
		}
		encoders.Put(e)
	}
	return buf, written, dropped
}

// encodeShare encodes the records idx of recs into e.buf, keeping each
// one's reading and cut count for the tally.
func (e *encoder) encodeShare(meta *converter.Meta, recs []converter.Record, idx []int32) {
	e.enc.SetDefaults(meta)
	e.buf = e.buf[:0]
	if cap(e.rds) < len(idx) {
		e.rds = make([]semconv.Reading, len(idx))
	}
	e.rds = e.rds[:len(idx)]
	e.trunc = e.trunc[:0]
	for j, i := range idx {
		rec := &recs[i]
		// The encoder reads the span into the reading the tally takes
		// later: neither a second reading nor a copy of one (a reading is
		// some kilobytes, with pointers).
		e.buf = e.enc.AppendRecordReading(e.buf, rec, &e.rds[j])
		n := e.enc.Truncated()
		if e.enc.Skipped() {
			n = -1
		}
		e.trunc = append(e.trunc, n)
	}
}
