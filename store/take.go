package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// TakenDir is the folder, inside a store's Dir, that Take moves finalized
// artifacts to. The store never adopts, recovers or lists a file there (its
// name starts with a dot, and it is a folder).
const TakenDir = ".taken"

// ErrNotOwned is returned by Take for a path that is not an artifact file
// of the store's folder.
var ErrNotOwned = errors.New("not an artifact of the store's folder")

// Take moves the finalized artifact at path out of the store's way, to
// TakenDir, and returns where it went, for a publisher (a bucket upload)
// that then owns the file. It reports false, with no error, and leaves the
// file alone when the artifact is live (a late record adopted it since it
// was finalized: it will be finalized again, and the Finalized hook tells
// so), when its last line is no trailer (a crash left it; recovery will
// finalize it), or when there is no file at path (taken already). A
// record that arrives for the run after the file is taken starts a fresh
// file under the same name: the run's next generation.
//
// Take holds the artifact's lock while it looks and renames, so no writer
// adopts the file meanwhile. It may be called after Close.
func (s *Store) Take(path string) (taken string, ok bool, err error) {
	f, taken, ok, err := s.TakeFile(path)
	if f != nil {
		_ = f.Close()
	}
	return taken, ok, err
}

// TakeFile is Take that also hands over the taken file, open for reading
// at its start (the caller closes it): a publisher reads it without
// opening it again. The file is nil when ok is false.
func (s *Store) TakeFile(path string) (f *os.File, taken string, ok bool, err error) {
	if s.opts.Dir == "" {
		return nil, "", false, fmt.Errorf("take %s: %w (the store writes no folder)", path, ErrNotOwned)
	}
	dir, name := filepath.Split(path)
	if filepath.Clean(dir) != s.dir || !strings.HasSuffix(name, Ext) || strings.HasPrefix(name, ".") {
		return nil, "", false, fmt.Errorf("take %s: %w %s", path, ErrNotOwned, s.dir)
	}
	s.life.RLock()
	defer s.life.RUnlock()
	if _, rotated := rotatedBase(name); rotated || s.closed {
		// No record goes to a rotated file again; after Close, to none.
		return s.moveTaken(path, name)
	}
	k, known := s.keyOfFile(name, path)
	if !known {
		// No key of this store names the file: no writer adopts it.
		return s.moveTaken(path, name)
	}
	for {
		a := s.get(k)
		a.mu.Lock()
		if a.gone() {
			a.mu.Unlock()
			continue
		}
		if a.loaded() || a.st == stShed {
			a.mu.Unlock()
			return nil, "", false, nil // live: finalized again later
		}
		f, taken, ok, err = s.moveTaken(path, name)
		s.dropResume(k)
		// The placeholder get made (or a writer's, not loaded yet) goes:
		// a writer waiting for it looks again, and starts a fresh file.
		a.to(stGone)
		s.forget(a)
		a.mu.Unlock()
		return f, taken, ok, err
	}
}

// moveTaken renames the artifact file at path, named name, into TakenDir
// when its last line is a trailer, and returns it open, read from the
// one open that checked the trailer.
func (s *Store) moveTaken(path, name string) (*os.File, string, bool, error) {
	f, err := openNoFollow(path, os.O_RDONLY)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, "", false, nil
	}
	if err != nil {
		return nil, "", false, fmt.Errorf("take %s: %w", path, err)
	}
	done, err := trailerLast(f)
	if err != nil || !done {
		_ = f.Close()
		if err != nil {
			err = fmt.Errorf("take %s: %w", path, err)
		}
		return nil, "", false, err
	}
	td := filepath.Join(s.dir, TakenDir)
	if !s.takenDir.Load() {
		if err := os.MkdirAll(td, 0o755); err != nil {
			_ = f.Close()
			return nil, "", false, fmt.Errorf("take %s: %w", path, err)
		}
		s.takenDir.Store(true)
	}
	to := filepath.Join(td, strconv.FormatInt(time.Now().UnixNano(), 10)+"."+name)
	if renameClosed {
		// Windows renames no open file.
		_ = f.Close()
	}
	if err := os.Rename(path, to); err != nil {
		if errors.Is(err, fs.ErrNotExist) && s.takenDir.Swap(false) {
			// The folder went (removed by hand): make it again.
			if !renameClosed {
				_ = f.Close()
			}
			return s.moveTaken(path, name)
		}
		if !renameClosed {
			_ = f.Close()
		}
		return nil, "", false, fmt.Errorf("take %s: %w", path, err)
	}
	if renameClosed {
		if f, err = openNoFollow(to, os.O_RDONLY); err != nil {
			return nil, "", false, fmt.Errorf("take %s: %w", path, err)
		}
	}
	return f, to, true, nil
}

// renameClosed: a file is closed before it is renamed (Windows).
const renameClosed = runtime.GOOS == "windows"

// dropResume forgets the kept state of k's artifact: its file is gone.
func (s *Store) dropResume(k Key) {
	c := &s.resume
	c.mu.Lock()
	if st := c.by[k]; st != nil {
		c.ids -= st.ids
		delete(c.by, k)
	}
	c.mu.Unlock()
}

// TakenName returns the artifact file name a file of TakenDir was taken
// from (Take names it <unix ns>.<name>), and false for any other name.
func TakenName(taken string) (string, bool) {
	ns, name, ok := strings.Cut(filepath.Base(taken), ".")
	if !ok || ns == "" || !strings.HasSuffix(name, Ext) || strings.HasPrefix(name, ".") {
		return "", false
	}
	for _, c := range ns {
		if c < '0' || c > '9' {
			return "", false
		}
	}
	return name, true
}
