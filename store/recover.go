package store

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/agenttrace/agenttrace/artifact"
)

// tailSize is how much of an artifact's end recover reads to tell whether
// its last line is a trailer.
const tailSize = 64 << 10

// recoverDir finds the artifacts of the folder that a process which
// stopped without finalizing them (a crash, a kill) left without a
// trailer, and takes them back into the store as if just written at their
// file's modification time: the finalizer then finalizes those whose root
// ended once FinalizeAfter has passed, the others as orphans, and Close
// whatever is left; with FinalizeAfter 0 (no finalizer), each is finalized
// as it is taken. A file modified less than RecoverIdle ago is looked at
// again once it is that old. It stops early when the store closes.
func (s *Store) recoverDir() {
	ents, err := os.ReadDir(s.opts.Dir)
	if err != nil {
		s.handle(fmt.Errorf("recover %s: %w", s.opts.Dir, err))
		return
	}
	names := make([]string, 0, len(ents))
	for _, ent := range ents {
		name := ent.Name()
		if ent.Type().IsRegular() && strings.HasSuffix(name, Ext) && !strings.HasPrefix(name, ".") {
			names = append(names, name)
		}
	}
	for len(names) > 0 {
		var later []string
		var due time.Time
		for _, name := range names {
			select {
			case <-s.stop:
				return
			default:
			}
			if at := s.recoverFile(name); !at.IsZero() {
				later = append(later, name)
				if due.IsZero() || at.Before(due) {
					due = at
				}
			}
		}
		if len(later) > 0 {
			t := time.NewTimer(time.Until(due))
			select {
			case <-s.stop:
				t.Stop()
				return
			case <-t.C:
			}
		}
		names = later
	}
}

// recoverFile finishes the file of the folder named name when a crash left
// it without a trailer, and returns when to look at it again: the zero
// time unless it was modified less than RecoverIdle ago (another process
// sharing the folder may be writing it: a line it is writing must not be
// taken for a torn one).
func (s *Store) recoverFile(name string) time.Time {
	path := filepath.Join(s.opts.Dir, name)
	info, err := os.Lstat(path)
	if err != nil || !info.Mode().IsRegular() {
		return time.Time{}
	}
	if at := info.ModTime().Add(s.opts.RecoverIdle); s.opts.RecoverIdle > 0 && time.Now().Before(at) {
		return at
	}
	done, err := hasTrailer(path)
	if err != nil || done {
		return time.Time{}
	}
	if base, ok := rotatedBase(name); ok {
		if k, ok := s.keyOfFile(base, path); ok && k.Kind == KindAttribute {
			s.life.RLock()
			if !s.closed {
				s.handle(s.finishRotated(k, path))
			}
			s.life.RUnlock()
		}
		return time.Time{}
	}
	k, ok := s.keyOfFile(name, path)
	if !ok {
		return time.Time{}
	}
	s.life.RLock()
	if !s.closed {
		s.take(k, info.ModTime())
	}
	s.life.RUnlock()
	return time.Time{}
}

// take adopts the artifact of k, left unfinished on disk, dated by its
// file's modification time at; with FinalizeAfter 0 it is finalized at
// once, as it would have been when its root or last span was written.
func (s *Store) take(k Key, at time.Time) {
	defer s.closeEvicted() // with a.mu let go: it may be among them
	a := s.get(k)
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.st != stNew {
		return // written to since start: the finalizer has it
	}
	ok, err := s.adoptInto(a)
	if err != nil {
		s.handle(fmt.Errorf("recover %s: %w", a.path, err))
	}
	if !ok {
		// Gone since it was listed (folded into a conversation's), set
		// aside, or empty: nothing to finish, and no file to make.
		a.to(stGone)
		s.forget(a)
		return
	}
	a.lastWrite.Store(at.UnixNano())
	if s.opts.FinalizeAfter == 0 {
		if err := s.finalizeLocked(a, false, nil); err != nil {
			s.handle(fmt.Errorf("recover %s: %w", a.path, err))
		}
	}
}

// finishRotated writes the trailer of a rotated file (see rotate) left
// without one: the trailer goes to disk before the rename, but with
// FsyncNever a power cut may keep the rename and lose the trailer, and an
// earlier version renamed a file whose trailer failed. No record goes to a
// rotated file again, so it is finalized at once, apart from the live
// artifact of its key.
func (s *Store) finishRotated(k Key, path string) error {
	defer s.closeEvicted() // with a.mu let go: it may be among them
	a := newArtifact(k, path)
	a.mu.Lock()
	defer a.mu.Unlock()
	ok, err := s.adoptInto(a)
	if err != nil || !ok {
		return err
	}
	err = errors.Join(s.finalizeLocked(a, true, nil), s.closeFile(a))
	s.hooks.finalized(path)
	if err != nil {
		return fmt.Errorf("recover %s: %w", path, err)
	}
	return nil
}

// rotatedBase returns the name of the artifact a rotated file named name
// (<base>.R<unix ns>.jsonl) was rotated from, and false for any other.
func rotatedBase(name string) (string, bool) {
	b := strings.TrimSuffix(name, Ext)
	i := strings.LastIndex(b, ".R")
	if i <= 0 || i+2 == len(b) {
		return "", false
	}
	for _, c := range b[i+2:] {
		if c < '0' || c > '9' {
			return "", false
		}
	}
	return b[:i] + Ext, true
}

// hasTrailer reports whether the last complete line of the file at path
// is a trailer.
func hasTrailer(path string) (bool, error) {
	f, err := openNoFollow(path, os.O_RDONLY)
	if err != nil {
		return false, err
	}
	defer f.Close()
	return trailerLast(f)
}

// trailerLast reports whether the last complete line of f is a trailer;
// it reads f at an offset, leaving f where it was.
func trailerLast(f *os.File) (bool, error) {
	st, err := f.Stat()
	if err != nil {
		return false, err
	}
	off := max(st.Size()-tailSize, 0)
	tail := make([]byte, st.Size()-off)
	if _, err := f.ReadAt(tail, off); err != nil && !errors.Is(err, io.EOF) {
		return false, err
	}
	tail = bytes.TrimRight(tail, "\n")
	last := tail[bytes.LastIndexByte(tail, '\n')+1:]
	return bytes.Contains(last, []byte(`"kind":"summary"`)), nil
}

// keyOfFile returns the key whose artifact is named name, read from the
// name (a trace) or the header (a conversation, an attribute value), and
// false when no key of this store names it so.
func (s *Store) keyOfFile(name, path string) (Key, bool) {
	base := strings.TrimSuffix(name, Ext)
	var tid pcommon.TraceID
	if len(base) == 2*len(tid) {
		if n, err := fmtHex(tid[:], base); err == nil && n == len(tid) {
			return TraceKey(tid), true
		}
	}
	f, err := openNoFollow(path, os.O_RDONLY)
	if err != nil {
		return Key{}, false
	}
	defer f.Close()
	r := artifact.NewReader(io.LimitReader(f, tailSize))
	_, _ = r.Next()
	m := r.Meta()
	if m == nil {
		return Key{}, false
	}
	var k Key
	switch {
	case s.opts.Route == ByConversation && m.ConversationID != "":
		k = ConversationKey(m.ConversationID)
	case s.opts.Route == ByAttribute:
		v, ok := m.Resource.Attributes().Get(s.opts.Attribute)
		if !ok {
			return Key{}, false
		}
		k = AttributeKey(v.AsString())
	default:
		return Key{}, false
	}
	return k, FileName(k, s.opts.Attribute) == name
}

// fmtHex decodes lowercase hex s into dst.
func fmtHex(dst []byte, s string) (int, error) {
	if len(s) != 2*len(dst) {
		return 0, errors.New("length")
	}
	for i := range dst {
		hi, lo := unhex(s[2*i]), unhex(s[2*i+1])
		if hi < 0 || lo < 0 {
			return 0, errors.New("not lowercase hex")
		}
		dst[i] = byte(hi<<4 | lo)
	}
	return len(dst), nil
}

func unhex(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	}
	return -1
}
