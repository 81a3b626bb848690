package store

// shed lets go of the state in memory of a, a trace's artifact whose
// root ended and whose trailer is the last line on disk, when the store
// waits FinalizeAfter before finalizing it: its header, tally and span
// set are dropped (stShed), while a itself stays live, its file open
// until the open-file bound closes it, so that it is finalized (hooks,
// sync) when it would have been.
// A late record adopts the file, which holds all of it, as a record
// after finalization does; most traces get none. Kept in memory for
// FinalizeAfter, each ended trace's state was some kilobytes of fresh
// memory (the heap only grows while traces end faster than they are
// finalized), and on a virtual machine first touching fresh memory
// costs more than writing the trace. a.mu is held.
//
// Only what adopting the file gives back exactly is let go: a trace's
// artifact of a folder routed by trace (a conversation's fold reads the
// header in memory), with no record dropped or cut short (the file's
// trailer says how many, not their usage).
func (s *Store) shed(a *runFile) {
	if a.st != stTrailed || a.key.Kind != KindTrace || a.path == "" || s.opts.FinalizeAfter <= 0 ||
		s.opts.Route != ByTrace || !a.rootEnded.Load() || a.broken != nil {
		return
	}
	if sum := a.tally.Summary(nil); sum.Dropped != 0 || sum.Truncated != 0 {
		return
	}
	a.memory, a.size = nil, 0
	a.to(stShed)
}
