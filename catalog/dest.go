package catalog

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// Dest is where a catalog's files are kept: a local folder ([Dir]), or a
// bucket prefix (package bucket implements it). Keys are slash-separated
// and relative to the location of the artifacts; see the package
// documentation for the contract in full.
type Dest interface {
	// Create starts a new object at key, visible only once Close returns
	// nil; a failed write, or ctx cancelled before Close, leaves none. An
	// existing key is an error wrapping fs.ErrExist.
	Create(ctx context.Context, key string) (io.WriteCloser, error)
	// Open opens key for reading; the Object stays readable as it was
	// after key is deleted. A missing key wraps fs.ErrNotExist.
	Open(ctx context.Context, key string) (Object, error)
	// List returns the objects whose keys start with prefix, in any order.
	List(ctx context.Context, prefix string) ([]ObjectInfo, error)
	// Delete removes key; a missing key is not an error.
	Delete(ctx context.Context, key string) error
}

// Object is an opened catalog file.
type Object interface {
	io.ReaderAt
	io.Closer
	// Size is the object's length in bytes.
	Size() int64
}

// ObjectInfo names one object of a listing.
type ObjectInfo struct {
	Key  string
	Size int64
}

// Dir is a [Dest] over the local folder at the path: key k is the file
// <path>/k. Files are written under a hidden temporary name and renamed
// into place on Close, so a listing never shows a file half written.
type Dir string

// file returns the path of key, refusing keys that leave the folder.
func (d Dir) file(key string) (string, error) {
	if !fs.ValidPath(key) || key == "." {
		return "", fmt.Errorf("catalog: key %q: %w", key, fs.ErrInvalid)
	}
	return filepath.Join(string(d), filepath.FromSlash(key)), nil
}

// Create implements [Dest].
func (d Dir) Create(ctx context.Context, key string) (io.WriteCloser, error) {
	name, err := d.file(key)
	if err != nil {
		return nil, err
	}
	if _, err := os.Lstat(name); err == nil {
		return nil, fmt.Errorf("catalog: create %s: %w", name, fs.ErrExist)
	}
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return nil, fmt.Errorf("catalog: %w", err)
	}
	f, err := os.CreateTemp(filepath.Dir(name), ".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("catalog: %w", err)
	}
	return &dirWriter{ctx: ctx, f: f, name: name}, nil
}

// dirWriter writes a temporary file and links it to its name on Close.
type dirWriter struct {
	ctx  context.Context
	f    *os.File
	name string
	err  error
}

func (w *dirWriter) Write(p []byte) (int, error) {
	n, err := w.f.Write(p)
	if err != nil && w.err == nil {
		w.err = err
	}
	return n, err
}

// Close links the file to its name, unless a write failed or the context
// ended; os.Link refuses an existing name, which keeps Create's promise
// never to overwrite.
func (w *dirWriter) Close() error {
	tmp := w.f.Name()
	defer os.Remove(tmp)
	err := errors.Join(w.err, w.ctx.Err(), w.f.Sync())
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Link(tmp, w.name)
	}
	if err != nil {
		return fmt.Errorf("catalog: write %s: %w", w.name, err)
	}
	return nil
}

// Open implements [Dest].
func (d Dir) Open(_ context.Context, key string) (Object, error) {
	name, err := d.file(key)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("catalog: %w", err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("catalog: %w", err)
	}
	return &dirObject{File: f, size: fi.Size()}, nil
}

type dirObject struct {
	*os.File
	size int64
}

func (o *dirObject) Size() int64 { return o.size }

// List implements [Dest]. Hidden files (a writer's temporaries) are left
// out; a prefix whose folder does not exist lists nothing.
func (d Dir) List(ctx context.Context, prefix string) ([]ObjectInfo, error) {
	dir := path.Dir(prefix + "x") // the folder the prefix is in
	root, err := d.file(dir)
	if dir == "." {
		root, err = string(d), nil
	}
	if err != nil {
		return nil, err
	}
	var out []ObjectInfo
	err = filepath.WalkDir(root, func(p string, de fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if strings.HasPrefix(de.Name(), ".") && p != root {
			if de.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !de.Type().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(string(d), p)
		if err != nil {
			return err
		}
		key := filepath.ToSlash(rel)
		if !strings.HasPrefix(key, prefix) {
			return nil
		}
		fi, err := de.Info()
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil // removed since the folder was read
			}
			return err
		}
		out = append(out, ObjectInfo{Key: key, Size: fi.Size()})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("catalog: list %s: %w", root, err)
	}
	return out, nil
}

// Delete implements [Dest].
func (d Dir) Delete(_ context.Context, key string) error {
	name, err := d.file(key)
	if err != nil {
		return err
	}
	if err := os.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("catalog: %w", err)
	}
	return nil
}
