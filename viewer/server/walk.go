package server

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// dirBatch is how many entries of a directory the walk reads at a time: a
// store's folder is flat, 100,000 runs in one directory, and is walked in
// the memory of a batch.
const dirBatch = 512

// runFile tells whether a file of this name is one the list shows: a
// run's artifact (*.jsonl), or a .json or .pb file, listed when its
// content is a shape agenttrace reads (servedName, inputs.go). Hidden
// files were left out before.
func runFile(name string) bool { return servedName(name) }

// each calls fn with each regular run file (runFile) under the directory,
// as the walk finds it, until fn returns false or ctx ends; hidden files
// and directories are skipped. A directory's entries are read dirBatch at
// a time and its subdirectories walked after it, in name order, so the
// walk holds a batch of entries and the names of the subdirectories of
// the directories it is in, never the folder's files. Symbolic links to
// files are listed when they stay inside the directory (the root refuses
// the others); links to directories are not followed, so the walk ends.
func (l *lister) each(ctx context.Context, fn func(rel string, fi fs.FileInfo) bool) {
	l.eachIn(ctx, ".", fn)
}

// eachIn walks the directory dir (slash-separated, relative to the root);
// false when the walk is to stop.
func (l *lister) eachIn(ctx context.Context, dir string, fn func(rel string, fi fs.FileInfo) bool) bool {
	f, err := l.root.Open(filepath.FromSlash(dir))
	if err != nil {
		l.log.Warn("cannot list", "path", dir, "err", err)
		return true
	}
	var subdirs []string
	more := func() bool {
		defer f.Close()
		for {
			if ctx.Err() != nil {
				return false
			}
			des, err := f.ReadDir(dirBatch)
			for _, d := range des {
				name := d.Name()
				if strings.HasPrefix(name, ".") {
					continue
				}
				p := path.Join(dir, name)
				switch {
				case d.IsDir():
					subdirs = append(subdirs, p)
				case runFile(name):
					if fi, ok := l.stat(p, d); ok && !fn(p, fi) {
						return false
					}
				}
			}
			if errors.Is(err, io.EOF) {
				return true
			}
			if err != nil {
				l.log.Warn("cannot list", "path", dir, "err", err)
				return true
			}
		}
	}()
	if !more {
		return false
	}
	slices.Sort(subdirs)
	for _, sub := range subdirs {
		if !l.eachIn(ctx, sub, fn) {
			return false
		}
	}
	return true
}

// stat returns the file info of the walk's entry d at p, and whether it
// is a regular file to list. A regular file is stat'ed from its directory
// entry (the walk is inside the root); a link is followed through the
// root, which refuses one leading out.
func (l *lister) stat(p string, d fs.DirEntry) (fs.FileInfo, bool) {
	var fi fs.FileInfo
	var err error
	if d.Type().IsRegular() {
		fi, err = d.Info()
	} else {
		fi, err = l.root.Stat(filepath.FromSlash(p))
	}
	if err != nil {
		if d.Type()&fs.ModeSymlink == 0 {
			l.log.Warn("cannot list", "path", p, "err", err)
		}
		return nil, false
	}
	return fi, fi.Mode().IsRegular()
}
