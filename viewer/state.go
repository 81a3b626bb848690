package viewer

import (
	"io/fs"
	"time"

	"github.com/agenttrace/agenttrace/artifact"
)

// StateStopped is the state of a run whose writer went away without
// ending it (a crash, a kill -9): it has open spans and no trailer, and
// its input has gained nothing for the idle time (see [Liveness]).
const StateStopped = "stopped"

// Liveness is what tells a run that is still being written from one whose
// writer went away: a writer appends a record whenever a span starts or
// ends, so an open run whose input gained nothing for a long time has
// stopped without an end.
type Liveness struct {
	// Written is when the run's input last gained data: its file's
	// modification time. Zero when unknown (a file given whole, as
	// "agenttrace html" reads it): the run is never taken as stopped.
	Written time.Time
	// Idle is how long an open run's input may gain nothing before it
	// is taken as stopped; 0 never.
	Idle time.Duration
	// Now is when the state is decided; zero: the time of the call.
	Now time.Time
}

// LivenessOf is the liveness of a run read from the file fi describes,
// the one rule "agenttrace html" and serve both take: the file's
// modification time is when the run last gained data, and idle is how
// long it may gain nothing before an open run is taken as stopped. A nil
// fi, or one of anything but a regular file (standard input, a pipe),
// gives the zero Liveness: such a run is never taken as stopped.
func LivenessOf(fi fs.FileInfo, idle time.Duration) Liveness {
	if fi == nil || !fi.Mode().IsRegular() {
		return Liveness{}
	}
	return Liveness{Written: fi.ModTime(), Idle: idle}
}

// Stale tells whether the input has gained nothing for the idle time.
func (lv Liveness) Stale() bool {
	if lv.Idle <= 0 || lv.Written.IsZero() {
		return false
	}
	now := lv.Now
	if now.IsZero() {
		now = time.Now()
	}
	return now.Sub(lv.Written) >= lv.Idle
}

// StateOf is the one rule of a run's state, which the run page, the runs
// list and the MCP server all take: done when a trailer closed the run or
// nothing in it is open (no parent pending, no span in flight); else
// stopped when its input has been idle for lv's idle time; else running.
func StateOf(open, closed bool, lv Liveness) string {
	switch {
	case closed || !open:
		return StateDone
	case lv.Stale():
		return StateStopped
	}
	return StateRunning
}

// StateText is what a run's state says to a person: for a stopped run,
// with the time of its last record (last; zero when it has none), in UTC
// as artifacts write times.
func StateText(state string, last time.Time) string {
	switch state {
	case StateRunning:
		return "● running"
	case StateStopped:
		if last.IsZero() {
			return "stopped without an end"
		}
		return "stopped without an end; last record at " + last.UTC().Format("2006-01-02 15:04:05Z")
	}
	return "done"
}

// lastRecord is the time of a run's last record: the latest start or end
// of its spans; zero when it has none.
func lastRecord(lists ...[]artifact.Record) time.Time {
	var last uint64
	for _, recs := range lists {
		for i := range recs {
			sp := recs[i].Span
			last = max(last, uint64(sp.StartTimestamp()), uint64(sp.EndTimestamp()))
		}
	}
	if last == 0 {
		return time.Time{}
	}
	return time.Unix(0, int64(last)).UTC()
}
