package bucket

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"

	"github.com/klauspost/compress/zstd"
	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/agenttrace/agenttrace/artifact"
)

// OpenRun returns the artifact of the run key names (any of its
// generations' keys, compressed or not; laid out as Key says or in any
// folder of the bucket) as one stream: its generations merged, in order,
// zstd decoded. A record that two generations hold (a span a collector
// sent again after the run was uploaded) comes once. The header is the
// first generation's; the trailer counts the merged records, so that
// `agenttrace tokens` of the stream is the run's. A run of one generation
// is its object's bytes as they are. A missing run is an error wrapping
// fs.ErrNotExist.
func (b *Bucket) OpenRun(ctx context.Context, key string) (io.ReadCloser, error) {
	dir, name := path.Split(key)
	k, err := parseName(name)
	if err != nil {
		return nil, fmt.Errorf("%w: %q: %w", ErrNotArtifactKey, key, err)
	}
	gens, err := b.generations(ctx, dir, k.ID)
	if err != nil {
		return nil, err
	}
	if len(gens) == 0 {
		return nil, fmt.Errorf("bucket %s: %s: %w", b.name, key, fs.ErrNotExist)
	}
	if len(gens) == 1 {
		return b.openObject(ctx, gens[0])
	}
	pr, pw := io.Pipe()
	m := &merged{PipeReader: pr, done: make(chan struct{})}
	go func() {
		defer close(m.done)
		pw.CloseWithError(b.merge(ctx, gens, pw))
	}()
	return m, nil
}

// merged is a merged run's stream; Close stops the merge and waits for it.
type merged struct {
	*io.PipeReader
	done chan struct{}
}

func (m *merged) Close() error {
	err := m.PipeReader.Close()
	<-m.done
	return err
}

// OpenURL opens the run of one object's URL (the URL of any of its
// generations), as OpenRun does, and closes the bucket with the stream.
func OpenURL(ctx context.Context, rawURL string) (io.ReadCloser, error) {
	u, prefix, name, shown, secrets, err := splitObjectURL(rawURL)
	if err != nil {
		return nil, err
	}
	b, err := openPrefixed(ctx, u, prefix, shown, secrets)
	if err != nil {
		return nil, err
	}
	rc, err := b.OpenRun(ctx, name)
	if err != nil {
		_ = b.Close()
		return nil, err
	}
	return &withBucket{ReadCloser: rc, b: b}, nil
}

type withBucket struct {
	io.ReadCloser
	b *Bucket
}

func (w *withBucket) Close() error {
	return errors.Join(w.ReadCloser.Close(), w.b.Close())
}

// openObject opens one generation's object, decoded.
func (b *Bucket) openObject(ctx context.Context, o object) (io.ReadCloser, error) {
	r, err := b.b.NewReader(ctx, o.Key, nil)
	if err != nil {
		return nil, b.wrap("read "+o.Key, err)
	}
	if !o.Name.Zstd {
		return r, nil
	}
	d, err := zstd.NewReader(r, zstd.WithDecoderConcurrency(1))
	if err != nil {
		r.Close()
		return nil, fmt.Errorf("bucket %s: %s: zstd: %w", b.name, o.Key, err)
	}
	return &decoded{d: d, r: r}, nil
}

// decoded is a zstd object's decoded stream.
type decoded struct {
	d *zstd.Decoder
	r io.Closer
}

func (z *decoded) Read(p []byte) (int, error) { return z.d.Read(p) }

func (z *decoded) Close() error {
	z.d.Close()
	return z.r.Close()
}

// merge writes gens as one artifact to w: the first one's header, every
// record once (spans by trace and span id, log records by span, time and
// body), a trailer of what was written with the drops and truncations the
// generations' trailers count.
func (b *Bucket) merge(ctx context.Context, gens []object, w io.Writer) error {
	m := merger{w: w, spans: map[artifact.SpanKey]struct{}{}, logs: map[logKey]struct{}{}}
	for _, g := range gens {
		rc, err := b.openObject(ctx, g)
		if err != nil {
			return err
		}
		err = m.add(rc, g.Key)
		if cerr := rc.Close(); err == nil && cerr != nil {
			err = b.wrap("read "+g.Key, cerr)
		}
		if err != nil {
			return fmt.Errorf("bucket %s: %w", b.name, err)
		}
	}
	return m.close(gens[0].Key)
}

// merger writes the records of several generations as one artifact.
type merger struct {
	w                  io.Writer
	aw                 *artifact.Writer
	spans              map[artifact.SpanKey]struct{}
	logs               map[logKey]struct{}
	dropped, truncated int64
}

// logKey tells a log record sent twice.
type logKey struct {
	span artifact.SpanKey
	time pcommon.Timestamp
	body string
}

// add writes the records of one generation not written yet.
func (m *merger) add(r io.Reader, source string) error {
	var logErr error
	var rd *artifact.Reader
	rd = artifact.NewReader(r, artifact.WithSource(source), artifact.WithLogs(func(l *artifact.LogRecord) {
		k := logKey{span: l.Key(), time: l.Log.Timestamp(), body: l.Log.Body().AsString()}
		if _, dup := m.logs[k]; dup || logErr != nil {
			return
		}
		m.logs[k] = struct{}{}
		m.start(rd.Meta())
		logErr = m.aw.WriteLog(l)
	}))
	for {
		rec, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		if logErr != nil {
			return logErr
		}
		m.start(rd.Meta())
		k := artifact.SpanKey{Trace: rec.Span.TraceID(), Span: rec.Span.SpanID()}
		if _, dup := m.spans[k]; dup {
			continue
		}
		m.spans[k] = struct{}{}
		if err := m.aw.Write(rec); err != nil {
			return err
		}
	}
	if logErr != nil {
		return logErr
	}
	m.start(rd.Meta())
	if s := rd.Summary(); s != nil {
		m.dropped += s.Dropped
		m.truncated += s.Truncated
	}
	return nil
}

// start makes the writer under the first header read.
func (m *merger) start(meta *artifact.Meta) {
	if m.aw == nil && meta != nil {
		m.aw = artifact.NewWriter(m.w, meta)
	}
}

// close writes the trailer.
func (m *merger) close(first string) error {
	if m.aw == nil {
		return fmt.Errorf("%s: %w", first, artifact.ErrNoHeader)
	}
	m.aw.Drop(m.dropped)
	m.aw.Tally().Truncate(m.truncated)
	return m.aw.Close()
}
