package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/golang-lru/v2/simplelru"
	"golang.org/x/sync/singleflight"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/converter"
	"github.com/agenttrace/agenttrace/importer"
	"github.com/agenttrace/agenttrace/store"
	"github.com/agenttrace/agenttrace/viewer"
)

// A served file need not be an artifact: a transcript log, a trajectory
// log, streaming trace events, OTLP/JSON lines or any other shape
// "agenttrace convert" reads (importer.Detect, the one detection rule)
// is converted on the server by its importer into the artifact "convert"
// would write of it (its records in end order under the store's header,
// no trailer: nothing says the log is finished), and that artifact is
// what the list, the run page, /data, /raw and the catalog read, so an
// imported run is listed, named, totalled and shown as an artifact is.
// The conversion is cached by the file's size and modification time, as
// the runs are: a file that grew is converted again, whole.
//
// A growing log is followed as an artifact is: the live stream (events.go)
// tails the file itself, from the end of the last complete line converted,
// and every complete line it gains makes the page fetch /data again. A
// line-shaped log is converted up to its last newline: a line being
// written is waited for, not reported. Lines the importer cannot read are
// the run's problems, each with file and line, on the page and counted in
// the list.

// errImportTooLarge is a file of another shape too large to convert on
// the server: "agenttrace convert" streams it into an artifact.
var errImportTooLarge = errors.New("too large to convert here: convert it with agenttrace convert and serve the artifact")

// imported is what converting a served file of another shape made.
type imported struct {
	shape importer.Shape
	data  []byte // the artifact (header and records)
	// upto is how many bytes of the file were converted: the end of its
	// last complete line for a line-shaped log, else the whole file. The
	// live stream goes on from there.
	upto int64
	// problems are the lines the importer could not read
	// (artifact.LineError, "file:line: problem"); skipped counts them
	// all, listed or not.
	problems []error
	skipped  int64
	// unknown counts the records of types the shape does not define, by
	// type: skipped, and said on the page, as convert notes them.
	unknown map[string]int64
	size    int64     // the file's size when converted
	modTime time.Time // and its modification time
	growing bool      // read as a file still being written (convertFile)
}

// runProblems are im's problems as a page shows them.
func (im *imported) runProblems() []viewer.Problem {
	out := make([]viewer.Problem, 0, len(im.problems))
	for _, p := range im.problems {
		var le *artifact.LineError
		if errors.As(p, &le) {
			out = append(out, viewer.Problem{Line: le.Line, Message: le.Err.Error()})
			continue
		}
		out = append(out, viewer.Problem{Message: p.Error()})
	}
	for _, typ := range slices.Sorted(maps.Keys(im.unknown)) {
		out = append(out, viewer.Problem{Message: fmt.Sprintf("note: %d record(s) of unknown type %q skipped", im.unknown[typ], typ)})
	}
	return out
}

// importCache keeps the conversions last made, bounded by their bytes,
// keyed by path, size and modification time like the runs (runKey).
type importCache struct {
	mu    sync.Mutex
	lru   *simplelru.LRU[runKey, *imported]
	bytes int64
	max   int64 // the most bytes held; a larger file is refused
	// flight makes one conversion per version at a time: the list, the
	// run page and its /data ask for the same file at once.
	flight singleflight.Group
	// idle is serve's idle time (WithIdle): a file that gained data more
	// recently is still being written, and what it leaves open at its end
	// is in flight (importer.ForGrowing), not failed; 0: always so.
	idle time.Duration
}

func newImportCache(max int64) *importCache {
	c := &importCache{max: max}
	c.lru, _ = simplelru.NewLRU[runKey, *imported](math.MaxInt32, func(_ runKey, v *imported) { c.bytes -= int64(len(v.data)) })
	return c
}

// memFile is a converted artifact read as a file is.
type memFile struct {
	*bytes.Reader
	info fs.FileInfo
}

func (m memFile) Stat() (fs.FileInfo, error) { return m.info, nil }
func (memFile) Close() error                 { return nil }

// memInfo is the FileInfo of a converted artifact: its size, the served
// file's name and modification time.
type memInfo struct {
	fs.FileInfo // the served file's
	size        int64
}

func (m memInfo) Size() int64 { return m.size }

// shapeOf tells the shape of a's file from its first bytes, as convert
// does (importer.Detect).
func shapeOf(a *servedRun) (importer.Shape, []byte, error) {
	head := make([]byte, min(int64(converter.DetectSize), a.fi.Size()))
	n, err := a.f.ReadAt(head, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return importer.Unknown, nil, fmt.Errorf("read %s: %w", a.rel, err)
	}
	head = head[:n]
	return importer.Detect(head), head, nil
}

// swap makes a read as the artifact its file converts to, when the file
// is of another shape agenttrace reads: a.f becomes the converted
// artifact in memory (the file is closed), a.fi its size, a.imp says what
// was converted. An artifact, or a file of no shape agenttrace knows
// (listed with its bad lines, as before), is left as it is.
//
// A file not named *.jsonl (a .json or .pb file) is a run only when it
// converts: any other is refused with errNotArtifact.
func (c *importCache) swap(a *servedRun) error {
	shape, head, err := shapeOf(a)
	if err != nil {
		return err
	}
	if shape == importer.Artifact || shape == importer.Unknown || a.fi.Size() == 0 {
		if path.Ext(a.rel) != ext {
			return fmt.Errorf("%s: %w", a.rel, errNotArtifact)
		}
		return nil
	}
	im, err := c.get(a, shape, head)
	if err != nil {
		return err
	}
	if err := a.f.Close(); err != nil {
		return fmt.Errorf("close %s: %w", a.rel, err)
	}
	a.f = memFile{Reader: bytes.NewReader(im.data), info: memInfo{FileInfo: a.fi, size: int64(len(im.data))}}
	a.fi = memInfo{FileInfo: a.fi, size: int64(len(im.data))}
	a.imp = im
	return nil
}

// get returns the conversion of a's file as it is now, from the cache or
// made now.
func (c *importCache) get(a *servedRun, shape importer.Shape, head []byte) (*imported, error) {
	k := fileKey(a, c.idle)
	if v, ok := c.cached(k); ok {
		return v, nil
	}
	v, err, _ := c.flight.Do(fmt.Sprintf("%s\x00%d\x00%d\x00%t", k.rel, k.size, k.mtime, k.stale), func() (any, error) {
		if v, ok := c.cached(k); ok {
			return v, nil // converted by a flight that ended just before
		}
		if a.fi.Size() > c.max {
			return nil, fmt.Errorf("%s: %d bytes of %s: %w", a.rel, a.fi.Size(), shape, errImportTooLarge)
		}
		im, err := convertFile(a, shape, head, !k.stale)
		if err != nil {
			return nil, err
		}
		c.add(k, im)
		return im, nil
	})
	if err != nil {
		return nil, err
	}
	return v.(*imported), nil
}

// cached is the conversion of version k, when it is kept.
func (c *importCache) cached(k runKey) (*imported, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Get(k)
}

// add keeps im, dropping the older versions of its file, then the least
// recently used conversions until the total fits.
func (c *importCache) add(k runKey, im *imported) {
	n := int64(len(im.data))
	if n > c.max {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, old := range c.lru.Keys() {
		if old.rel == k.rel && old != k {
			c.lru.Remove(old)
		}
	}
	c.lru.Add(k, im)
	c.bytes += n
	for c.bytes > c.max {
		if _, _, ok := c.lru.RemoveOldest(); !ok {
			break
		}
	}
}

// convertFile converts a's file of shape with its importer into an
// artifact: the records sorted as convert sorts them (ATIF subagents
// linked), under the header the store makes for a run written whole. A
// file still growing is read as one (importer.ForGrowing): what it leaves
// open is in flight, and the page shows it running, not failed.
func convertFile(a *servedRun, shape importer.Shape, head []byte, growing bool) (*imported, error) {
	forShape := importer.For
	if growing {
		forShape = importer.ForGrowing
	}
	read, ok := forShape(shape)
	if !ok {
		return nil, fmt.Errorf("%s: %w", a.rel, converter.ErrUnknownFormat)
	}
	size := a.fi.Size()
	im := &imported{shape: shape, upto: size, size: size, modTime: a.fi.ModTime(), growing: growing}
	lines := lineShaped(shape, head)
	if lines {
		end, err := lastLineEnd(a, size)
		if err != nil {
			return nil, err
		}
		im.upto = end
	}
	recs, st, err := importRange(a, read, im.upto)
	if err != nil && !lines && shape != importer.OTLPProto && shape != importer.OTLPStream {
		// A JSON document that does not read is being written, or is
		// broken: it shows no record until it reads. While its last line
		// has no newline it is waited for; after, the reason is its
		// problem. Its live stream goes on from its last complete line,
		// so the next line written shows it again.
		end, lerr := lastLineEnd(a, size)
		if lerr != nil {
			return nil, lerr
		}
		recs, st = nil, importer.Stats{}
		if end == size {
			st.Problems, st.Skipped = []error{fmt.Errorf("%s: the %s document does not read: %w", a.rel, shape, err)}, 1
		}
		im.upto, err = end, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s (%s): %w", a.rel, shape, err)
	}
	im.problems, im.skipped, im.unknown = st.Problems, st.Skipped, st.Unknown
	importer.AsOneRun(recs)
	var buf bytes.Buffer
	w := artifact.NewWriter(&buf, store.Header(store.Key{Kind: store.KindRun}, recs, store.HeaderOptions{Whole: true}))
	if err := w.WriteHeader(); err != nil {
		return nil, fmt.Errorf("%s: convert: %w", a.rel, err)
	}
	for i := range recs {
		if err := w.Write(&recs[i]); err != nil {
			return nil, fmt.Errorf("%s: convert: %w", a.rel, err)
		}
	}
	// No trailer (Writer.Close): nothing says the log is finished.
	im.data = buf.Bytes()
	return im, nil
}

// importRange reads the first n bytes of a's file with read.
func importRange(a *servedRun, read importer.Func, n int64) ([]artifact.Record, importer.Stats, error) {
	var recs []artifact.Record
	st, err := read(io.NewSectionReader(a.f, 0, n), a.rel, func(rec *artifact.Record) error {
		recs = append(recs, *rec)
		return nil
	})
	return recs, st, err
}

// lineShaped reports whether a file of shape, starting with head, is one
// JSON value (or server-sent event) per line, which a writer appends to:
// its last line, until its newline comes, is being written.
func lineShaped(shape importer.Shape, head []byte) bool {
	switch shape {
	case importer.Transcript, importer.Trajectory, importer.OTLPJSONLine:
		return true
	case importer.Events:
		t := bytes.TrimLeft(bytes.TrimPrefix(head, []byte{0xEF, 0xBB, 0xBF}), " \t\r\n")
		if bytes.HasPrefix(t, []byte("data:")) {
			return true
		}
		line, _, found := bytes.Cut(t, []byte{'\n'})
		return found && len(t) > 0 && t[0] == '{' && json.Valid(bytes.TrimSpace(line))
	}
	return false
}

// importVer is what tells two versions of a converted file apart in the
// run cache's key, whose size and mtime are the converted artifact's.
func (im *imported) ver() string {
	return "import:" + strconv.FormatInt(im.size, 10) + ":" + strconv.FormatInt(im.modTime.UnixNano(), 10) + ":" + strconv.FormatBool(im.growing)
}

// openRun opens the artifact rel for a page, the list or the catalog: a
// file of another shape is read as the artifact it converts to (swap).
func (s *Server) openRun(rel string) (*servedRun, error) {
	a, err := openArtifact(s.root, rel)
	if err != nil {
		return nil, err
	}
	if err := s.imports.swap(a); err != nil {
		a.f.Close()
		return nil, err
	}
	return a, nil
}

// fileOf is the *os.File of an artifact opened for a live stream (never
// swapped): nil for one read from memory.
func fileOf(a *servedRun) *os.File {
	f, _ := a.f.(*os.File)
	return f
}

// importedRun gives run, read from a's converted artifact, the problems
// of the conversion and returns where its live stream goes on: the end of
// what was converted of the file. For an artifact it returns offset.
func (a *servedRun) importedRun(run *viewer.Run, offset int64) int64 {
	if a.imp == nil {
		return offset
	}
	run.Problems = append(a.imp.runProblems(), run.Problems...)
	return a.imp.upto
}

// foreignLines reports whether a's file is of another shape agenttrace
// reads, as its live stream opens it.
func foreignLines(a *servedRun) bool {
	shape, _, err := shapeOf(a)
	return err == nil && shape != importer.Artifact && shape != importer.Unknown
}

// followable reports whether a live stream may follow a's file: an
// artifact, or a file of another name whose content agenttrace reads.
func followable(a *servedRun) bool {
	return path.Ext(a.rel) == ext || foreignLines(a)
}

// artifactName is the name a download of a's artifact takes: a's, ending
// in .jsonl (a converted .json or .pb file is downloaded as its artifact).
func (a *servedRun) artifactName() string {
	return strings.TrimSuffix(a.rel, path.Ext(a.rel)) + ext
}
