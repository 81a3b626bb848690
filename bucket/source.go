package bucket

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/klauspost/compress/zstd"

	"github.com/agenttrace/agenttrace/artifact"
)

// maxInMemory is the largest artifact Put reads whole into memory, so that
// it is read once: hashed, then sent from the same bytes (most runs are a
// few to a few hundred kilobytes). A larger one is read twice from its
// file (hashed, then sent), holding no more than a copy buffer. A
// variable for the tests of the streamed path.
var maxInMemory int64 = 8 << 20

// maxHeader bounds the header line Put looks for at a file's start.
const maxHeader = 1 << 20

// source is the artifact file Put uploads: its header, its hash, and its
// bytes when they fit in memory.
type source struct {
	f    *os.File
	size int64
	meta *artifact.Meta
	sum  string            // hex SHA-256 of the bytes (uncompressed)
	raw  [sha256.Size]byte // the same, when the bytes are in memory
	data []byte            // the whole file, or nil: read f
	buf  *[]byte
	z    *[]byte           // data compressed, made once for every generation tried
	zsum [sha256.Size]byte // SHA-256 of *z
}

// inMemory are the buffers of artifacts read whole, and of their
// compressed bytes.
var inMemory = sync.Pool{New: func() any { return new([]byte) }}

// load reads the artifact in f: whole when it fits in memory, else its
// header and its hash in a streamed pass.
func load(f *os.File) (*source, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	src := &source{f: f, size: st.Size()}
	var head []byte
	if src.size <= maxInMemory {
		src.buf = inMemory.Get().(*[]byte)
		if int64(cap(*src.buf)) < src.size {
			*src.buf = make([]byte, src.size)
		}
		src.data = (*src.buf)[:src.size]
		if _, err := io.ReadFull(io.NewSectionReader(f, 0, src.size), src.data); err != nil {
			src.release()
			return nil, err
		}
		src.raw = sha256.Sum256(src.data)
		src.sum = hex.EncodeToString(src.raw[:])
		head = src.data[:min(len(src.data), maxHeader)]
	} else {
		buf := buffers.Get().(*[64 << 10]byte)
		defer buffers.Put(buf)
		n, err := f.ReadAt(buf[:], 0)
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		head = buf[:n]
		if bytes.IndexByte(head, '\n') < 0 {
			// A header longer than a copy buffer: read up to maxHeader.
			head = make([]byte, maxHeader)
			n, err := f.ReadAt(head, 0)
			if err != nil && !errors.Is(err, io.EOF) {
				return nil, err
			}
			head = head[:n]
		}
		h := sha256.New()
		if err := copyPooled(h, io.NewSectionReader(f, 0, src.size)); err != nil {
			return nil, err
		}
		src.sum = hex.EncodeToString(h.Sum(nil))
	}
	line, _, _ := bytes.Cut(head, []byte("\n"))
	meta, err := artifact.DecodeHeader(line)
	if err != nil || meta.StartedAt.IsZero() {
		src.release()
		return nil, fmt.Errorf("%w: no header with started_at", ErrBadArtifact)
	}
	src.meta = meta
	return src, nil
}

// compressed returns the data compressed with zstd and its SHA-256,
// compressing and hashing once.
func (s *source) compressed() ([]byte, [sha256.Size]byte) {
	if s.z == nil {
		s.z = inMemory.Get().(*[]byte)
		e := encoders.Get().(*zstd.Encoder)
		*s.z = e.EncodeAll(s.data, (*s.z)[:0])
		encoders.Put(e)
		s.zsum = sha256.Sum256(*s.z)
	}
	return *s.z, s.zsum
}

// release gives the buffers back.
func (s *source) release() {
	for _, b := range []**[]byte{&s.buf, &s.z} {
		if *b != nil {
			inMemory.Put(*b)
			*b = nil
		}
	}
	s.data = nil
}
