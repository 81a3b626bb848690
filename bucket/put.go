package bucket

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/klauspost/compress/zstd"
	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"

	"github.com/agenttrace/agenttrace/artifact"
)

// ErrBadArtifact is returned by Put for a file that is no artifact (no
// header to read its start and service from): retrying will not help.
var ErrBadArtifact = errors.New("not an artifact")

// hashKey is the object metadata that holds the SHA-256 of the
// artifact's bytes (uncompressed): what tells a re-upload of the same file
// from a next generation without reading the object back.
const hashKey = "agenttrace-sha256"

// maxGenerations bounds the generations Put tries for one run, so that a
// bucket that refuses every write with a precondition failure cannot keep
// it going for ever.
const maxGenerations = 100000

// Put uploads the finalized artifact in file, whose name in its store's
// folder was name, create-only: never over an existing object. The first
// upload of a run gets the run's key (see KeyOf); when the key is taken
// (spans that came after the run was uploaded, now in a file of their
// own), the next generation's (<id>.g2.jsonl, …), each its own create-only
// object. A file identical to a generation already there (a re-upload
// after a crash, before the local copy was removed) is not uploaded again:
// Put returns that generation's key and existed true. With zstd the
// object is compressed (.jsonl.zst).
func (b *Bucket) Put(ctx context.Context, file, name string, zstdOn bool) (key string, existed bool, err error) {
	f, err := os.Open(file)
	if err != nil {
		return "", false, fmt.Errorf("upload %s: %w", file, err)
	}
	defer f.Close()
	return b.PutFile(ctx, f, name, zstdOn)
}

// PutFile is Put of an open file (read at offsets from its start, so it
// may be put again after a failure), for a caller that has it open
// already (store.TakeFile). It does not close f.
func (b *Bucket) PutFile(ctx context.Context, f *os.File, name string, zstdOn bool) (key string, existed bool, err error) {
	r, err := b.put(ctx, f, name, zstdOn, nil)
	return r.key, r.existed, err
}

// putResult is what put did: the object's key, whether it was there
// already, and its size (compressed when it is) when put wrote it.
type putResult struct {
	key     string
	existed bool
	size    int64
	noteErr error // the ledger could not note the run (the upload went on)
}

// put is PutFile; with a ledger (a Publisher's), the run's partition is
// placed from what the ledger knows, and noted in it.
func (b *Bucket) put(ctx context.Context, f *os.File, name string, zstdOn bool, l *ledger) (_ putResult, err error) {
	file := f.Name()
	src, err := load(f)
	if err != nil {
		return putResult{}, fmt.Errorf("upload %s: %w", file, err)
	}
	defer src.release()
	meta := src.meta
	k := KeyOf(name, meta.StartedAt, serviceOf(meta), zstdOn)
	if err := b.placeRun(ctx, &k, l); err != nil {
		return putResult{}, err
	}
	var noteErr error
	if l != nil {
		noteErr = l.note(k.Date, k.Service, k.ID) // the upload goes on
		defer func() {
			if err != nil {
				err = errors.Join(err, noteErr) // said with the failure
			}
		}()
	}
	sum := src.sum
	// The first generation is written at once: most runs have no other,
	// and a listing costs more than a refused write.
	listed := false
	for range maxGenerations {
		key := k.String()
		size, err := b.create(ctx, key, src, zstdOn)
		if err == nil {
			b.remember(k)
			return putResult{key: key, size: size, noteErr: noteErr}, nil
		}
		if !taken(err) {
			return putResult{}, b.wrap("upload "+key, err)
		}
		// Taken: by this very file (uploaded before a crash removed
		// it), or by another generation.
		if same, err := b.sameHash(ctx, key, sum); err != nil {
			return putResult{}, err
		} else if same {
			return putResult{key: key, existed: true, noteErr: noteErr}, nil
		}
		next := k.Gen + 1
		if !listed {
			listed = true
			gens, err := b.generations(ctx, k.Dir(), k.ID)
			if err != nil {
				return putResult{}, err
			}
			for _, g := range gens {
				if g.Key == key {
					continue
				}
				if same, err := b.sameHash(ctx, g.Key, sum); err != nil {
					return putResult{}, err
				} else if same {
					return putResult{key: g.Key, existed: true, noteErr: noteErr}, nil
				}
				next = max(next, g.Name.Gen+1)
			}
		}
		k.Gen = next
	}
	return putResult{}, b.wrap("upload "+file, errors.New("no free generation"))
}

// taken reports whether err is a create-only write's refusal: the key
// exists.
func taken(err error) bool {
	return gcerrors.Code(err) == gcerrors.FailedPrecondition || s3Taken(err)
}

// serviceOf is the service a header names.
func serviceOf(m *artifact.Meta) string {
	if m.Service != "" {
		return m.Service
	}
	if v, ok := m.Resource.Attributes().Get("service.name"); ok {
		return v.AsString()
	}
	return ""
}

// create writes src to key, create-only, with its hash as metadata, and
// returns the object's size (-1 when it was streamed compressed).
func (b *Bucket) create(ctx context.Context, key string, src *source, zstdOn bool) (int64, error) {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	opts := &blob.WriterOptions{
		IfNotExist:  true,
		ContentType: "application/jsonl",
		Metadata:    map[string]string{hashKey: src.sum},
	}
	if zstdOn {
		opts.ContentType = "application/zstd"
	}
	if src.data != nil {
		// One call with the whole object: S3's driver sends it as one
		// PutObject of a known length (no pipe, no part buffer), the
		// others take it in one Write.
		body, sum := src.data, src.raw
		if zstdOn {
			body, sum = src.compressed()
		}
		if b.s3 != nil && plainKey(b.s3.prefix+key) {
			return int64(len(body)), b.s3.put(wctx, key, opts.ContentType, body, sum, opts.Metadata)
		}
		return int64(len(body)), b.b.Upload(wctx, key, bytes.NewReader(body), opts)
	}
	w, err := b.b.NewWriter(wctx, key, opts)
	if err != nil {
		return 0, err
	}
	r := io.NewSectionReader(src.f, 0, src.size)
	if zstdOn {
		err = compress(w, r)
	} else {
		err = copyPooled(w, r)
	}
	if err != nil {
		cancel() // a cancelled writer leaves no object
		_ = w.Close()
		return 0, err
	}
	size := src.size
	if zstdOn {
		size = -1
	}
	return size, w.Close()
}

// buffers are copy buffers: blob.Writer's own ReadFrom, which io.Copy
// would take, makes a buffer of a megabyte per upload.
var buffers = sync.Pool{New: func() any { return new([64 << 10]byte) }}

// copyPooled copies r to w through a pooled buffer.
func copyPooled(w io.Writer, r io.Reader) error {
	buf := buffers.Get().(*[64 << 10]byte)
	defer buffers.Put(buf)
	_, err := io.CopyBuffer(struct{ io.Writer }{w}, struct{ io.Reader }{r}, buf[:])
	return err
}

var encoders = sync.Pool{New: func() any {
	e, _ := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))
	return e
}}

// compress writes r to w compressed with zstd.
func compress(w io.Writer, r io.Reader) error {
	e := encoders.Get().(*zstd.Encoder)
	defer encoders.Put(e)
	e.Reset(w)
	if _, err := e.ReadFrom(r); err != nil {
		_ = e.Close()
		return fmt.Errorf("zstd: %w", err)
	}
	if err := e.Close(); err != nil {
		return fmt.Errorf("zstd: %w", err)
	}
	return nil
}

// sameHash reports whether the object at key holds the bytes whose
// SHA-256 is sum (an object without the hash, written by another program,
// is taken for different).
func (b *Bucket) sameHash(ctx context.Context, key, sum string) (bool, error) {
	a, err := b.b.Attributes(ctx, key)
	if gcerrors.Code(err) == gcerrors.NotFound {
		return false, nil
	}
	if err != nil {
		return false, b.wrap("read attributes of "+key, err)
	}
	return a.Metadata[hashKey] == sum, nil
}

// placeRun moves k, the first generation of a run, to the partition its
// run is in when it was uploaded before. A run's later generations stay in
// the partition of its first, whatever their own header says: the run's
// start is the first's, and a late file's header starts with its own
// first span, which may be a day later. The partition is remembered when
// this bucket uploaded the run, else taken from l (a publisher's ledger)
// when it knows the day before k's whole, else looked for the day before
// k's (a listing of the run's objects there in a cloud store, a look for
// each name it may have in a local one, where a listing walks the folder).
func (b *Bucket) placeRun(ctx context.Context, k *Key, l *ledger) error {
	if d, ok := b.recall(k.ID, k.Service); ok {
		k.Date = d
		return nil
	}
	day, err := time.Parse(time.DateOnly, k.Date)
	if err != nil {
		return err
	}
	prev := *k
	prev.Date = day.AddDate(0, 0, -1).Format(time.DateOnly)
	if l != nil {
		found, whole := l.has(prev.Date, k.Service, k.ID)
		if found {
			k.Date = prev.Date
		}
		if whole {
			return nil
		}
	}
	if b.remote {
		// One listing of the run's objects there, not a request for
		// each name it may have (plain, compressed).
		gens, err := b.generations(ctx, prev.Dir(), k.ID)
		if err != nil {
			return err
		}
		if len(gens) > 0 {
			k.Date = prev.Date
		}
		return nil
	}
	for _, z := range []bool{false, true} {
		prev.Zstd = z
		ok, err := b.b.Exists(ctx, prev.String())
		if err != nil {
			return b.wrap("look for "+prev.String(), err)
		}
		if ok {
			k.Date = prev.Date
			return nil
		}
	}
	return nil
}

// object is one generation of a run in a listing.
type object struct {
	Key  string // the whole key
	Name Key    // its name's parts (ID, Gen, Zstd)
	Size int64
	Mod  time.Time
}

// generations lists the objects of run id in the folder dir (a partition,
// or any folder of a bucket), by generation.
func (b *Bucket) generations(ctx context.Context, dir, id string) ([]object, error) {
	var out []object
	it := b.b.List(&blob.ListOptions{Prefix: dir + id + "."})
	for {
		obj, err := it.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, b.wrap("list "+dir, err)
		}
		if obj.IsDir {
			continue
		}
		k, err := parseName(obj.Key[len(dir):])
		if err != nil || k.ID != id {
			continue
		}
		out = append(out, object{Key: obj.Key, Name: k, Size: obj.Size, Mod: obj.ModTime})
	}
	sortGenerations(out)
	return out, nil
}

// sortGenerations orders a run's objects by generation (and by name, for
// one generation written both plain and compressed).
func sortGenerations(objs []object) {
	slices.SortFunc(objs, func(a, c object) int {
		if a.Name.Gen != c.Name.Gen {
			return a.Name.Gen - c.Name.Gen
		}
		return strings.Compare(a.Key, c.Key)
	})
}

// remembered are the partitions of runs this process uploaded, by
// service and id, so that a next generation finds its first at once.
type remembered struct {
	mu  sync.Mutex
	day map[string]string
}

// maxRemembered bounds what remembered holds; past it, it starts over
// (the listing of the partitions is the fallback).
const maxRemembered = 1 << 16

func (b *Bucket) remember(k Key) {
	b.runs.mu.Lock()
	defer b.runs.mu.Unlock()
	if b.runs.day == nil || len(b.runs.day) >= maxRemembered {
		b.runs.day = make(map[string]string)
	}
	b.runs.day[k.Service+"/"+k.ID] = k.Date
}

func (b *Bucket) recall(id, service string) (string, bool) {
	b.runs.mu.Lock()
	defer b.runs.mu.Unlock()
	d, ok := b.runs.day[service+"/"+id]
	return d, ok
}
