package store

import "fmt"

// state is where an artifact is in its life, as far as its file and the
// header, tally and span set in memory go (a.mu guards it). Its legal
// moves are the table transitions, the one place they are written:
//
//   - stNew to stLoaded (a fresh artifact's header, tally and span set
//     made), or to stOpen or stTrailed (its file adopted);
//   - stLoaded to stOpen (its first lines) or stTrailed (with a trailer);
//   - stOpen to stTrailed (a trailer) and back (lines after it);
//   - stOpen to stLoaded: a failed first write undone;
//   - any loaded state to stBroken, a failed write that could not be cut
//     back;
//   - any state to stGone: finalized, rotated or folded;
//   - stTrailed to stShed (an ended trace's state let go until its next
//     record or its finalization), and stShed on as stNew.
type state uint8

const (
	// stNew: made, nothing read or written yet; header, tally and span
	// set unset.
	stNew state = iota
	// stLoaded: header, tally and span set in memory, nothing on disk
	// yet (a fresh artifact before its first write).
	stLoaded
	// stOpen: the header on disk, and lines after the last trailer (or
	// no trailer yet).
	stOpen
	// stTrailed: a trailer is the last line on disk.
	stTrailed
	// stBroken: a failed write could not be cut back, so the file's end
	// is unknown: every later write fails with artifact.broken, and
	// nothing more is appended. Only finalization (forgetting it, so a
	// later record adopts the file and cuts the torn end off) leaves it.
	stBroken
	// stGone: finalized, rotated or folded, and forgotten: a writer that
	// meets it looks the key up again.
	stGone
	// stShed: a trace's artifact whose root ended, its trailer last on
	// disk, still live (not finalized: see
	// Store.shed) but holding nothing in memory: a later record adopts
	// its file as one of stNew does, and finalizing it writes nothing.
	stShed
)

var stateNames = [...]string{"new", "loaded", "open", "trailed", "broken", "gone", "shed"}

func (s state) String() string {
	if int(s) < len(stateNames) {
		return stateNames[s]
	}
	return fmt.Sprintf("state(%d)", uint8(s))
}

// transitions[from] has bit to set when an artifact may go from one state
// to the other (staying is always legal: more lines, another trailer).
// stOpen to stLoaded is the undo of a first write that failed: a
// pipeline cuts the chunks it wrote back off, the header with them.
var transitions = [...]uint8{
	stNew:     1<<stLoaded | 1<<stOpen | 1<<stTrailed | 1<<stGone,
	stLoaded:  1<<stOpen | 1<<stTrailed | 1<<stBroken | 1<<stGone,
	stOpen:    1<<stLoaded | 1<<stTrailed | 1<<stBroken | 1<<stGone,
	stTrailed: 1<<stOpen | 1<<stBroken | 1<<stGone | 1<<stShed,
	stBroken:  1 << stGone,
	stGone:    0,
	stShed:    1<<stLoaded | 1<<stOpen | 1<<stTrailed | 1<<stGone,
}

// legal reports whether an artifact may go from s to next.
func (s state) legal(next state) bool {
	return s == next || int(s) < len(transitions) && transitions[s]&(1<<next) != 0
}

// onIllegal, when set, hears a move the table does not allow; the
// package's tests set it to fail loudly. The store itself goes on: the
// table documents the design, and a store that disagreed with it in a
// user's process is better off writing than crashing.
var onIllegal func(a *runFile, from, to state)

// to moves a to state next. a.mu is held.
func (a *runFile) to(next state) {
	if f := onIllegal; f != nil && !a.st.legal(next) {
		f(a, a.st, next)
	}
	a.st = next
}

// breakWith makes a broken, every later write failing with err. a.mu is
// held.
func (a *runFile) breakWith(err error) error {
	a.to(stBroken)
	a.broken = err
	return err
}

// loaded reports whether a's header, tally and span set are in memory
// (broken ones too: they are never loaded again). a.mu is held.
func (a *runFile) loaded() bool { return a.st != stNew && a.st != stGone && a.st != stShed }

// headerOnDisk reports whether a's file holds its header. a.mu is held.
func (a *runFile) headerOnDisk() bool { return a.st == stOpen || a.st == stTrailed }

// trailerLast reports whether nothing was written since a's last
// trailer. a.mu is held.
func (a *runFile) trailerLast() bool { return a.st == stTrailed }

// gone reports whether a was finalized and forgotten. a.mu is held.
func (a *runFile) gone() bool { return a.st == stGone }

// written moves a, whose lines were just appended, to stOpen, or to
// stTrailed when a trailer was the last of them. a.mu is held.
func (a *runFile) written(trailer bool) {
	if trailer {
		a.to(stTrailed)
	} else {
		a.to(stOpen)
	}
}
