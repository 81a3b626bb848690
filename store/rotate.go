package store

import "time"

// rotateDue tells whether a, an artifact of a resource attribute value just
// written to, is to be rotated: its file reached Options.RotateBytes, or it
// has been written to for Options.RotateAfter since this store's first
// write to it. Under steady traffic such an artifact is never idle, so
// without this it would get its trailer only at Close. a.mu is held.
func (s *Store) rotateDue(a *runFile) bool {
	if a.key.Kind != KindAttribute {
		return false
	}
	if s.opts.RotateBytes > 0 && a.size >= s.opts.RotateBytes {
		return true
	}
	if s.opts.RotateAfter <= 0 {
		return false
	}
	now := time.Now()
	if a.born == 0 {
		a.born = now.UnixNano()
		return false
	}
	return time.Duration(now.UnixNano()-a.born) >= s.opts.RotateAfter
}
