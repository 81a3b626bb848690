package agenttraceexporter

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/consumer/consumererror"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.uber.org/zap"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/bucket"
	"github.com/agenttrace/agenttrace/catalog"
	"github.com/agenttrace/agenttrace/redact"
	"github.com/agenttrace/agenttrace/semconv"
	"github.com/agenttrace/agenttrace/store"
)

// errShutdown is returned for batches that arrive after Shutdown.
var errShutdown = errors.New("agenttrace exporter: shut down")

// orphanFactor: an artifact whose root span never arrived is finalized
// after this many finalize_after of idleness, so state for traces that
// lost their root stays bounded.
const orphanFactor = store.DefaultOrphanFactor

// agenttraceExporter hands batches to the artifact store, which owns the
// files. pushTraces is safe for the sending queue's concurrent consumers:
// batches writing to different artifacts never wait for each other.
type agenttraceExporter struct {
	cfg    *Config
	logger *zap.Logger
	tel    *telemetry
	st     *store.Store
	keeper *catalog.Keeper   // nil without catalog or retention
	bkt    *bucket.Bucket    // with a bucket configured
	pub    *bucket.Publisher // uploads what st finalizes to bkt
}

func newExporter(c *Config, logger *zap.Logger, tel *telemetry) *agenttraceExporter {
	if tel == nil {
		tel, _ = newTelemetry(nil)
	}
	return &agenttraceExporter{cfg: c, logger: logger, tel: tel}
}

// storeOptions maps the configuration onto the store's.
func (e *agenttraceExporter) storeOptions() store.Options {
	c := e.cfg
	opts := store.Options{
		Dir:           c.Directory,
		MaxOpenFiles:  c.MaxOpenFiles,
		RecordCap:     c.MaxRecordsPerArtifact,
		RotateBytes:   c.RotateBytes,
		RotateAfter:   c.RotateAfter,
		FinalizeAfter: c.FinalizeAfter,
		// The directory is this collector's: what a crash left in it is
		// finished here.
		Recover: true,
		// The store redacts resources, scopes, spans and log records, and
		// its headers say so.
		Redactor: redact.New(c.Redact.Keys, c.Redact.Secrets),
		OnError:  func(err error) { e.logger.Error("finalizing artifact", zap.Error(err)) },
		Hooks:    e.tel.hooks(e.logger),
		LogHooks: e.tel.logHooks(),
	}
	if c.Budget.Tokens > 0 || c.Budget.USD > 0 {
		opts.Header.Budget = &artifact.Budget{Tokens: c.Budget.Tokens, USD: c.Budget.USD, WarnThreshold: c.Budget.WarnThreshold}
	}
	switch {
	case c.GroupBy == GroupByConversation:
		opts.Route = store.ByConversation
	case strings.HasPrefix(c.GroupBy, GroupByResourcePrefix):
		opts.Route, opts.Attribute = store.ByAttribute, c.groupAttr()
	}
	switch c.Fsync {
	case FsyncAlways:
		opts.Fsync = store.FsyncAlways
	case FsyncNever:
		opts.Fsync = store.FsyncNever
	}
	return opts
}

func (e *agenttraceExporter) start(ctx context.Context, _ component.Host) error {
	if err := semconv.LoadDialects(e.cfg.Dialects...); err != nil {
		return fmt.Errorf("dialects: %w", err)
	}
	opts := e.storeOptions()
	// With a bucket, the catalog is the bucket's, kept by the publisher
	// (the directory is a staging area, and retention is refused).
	if c := e.cfg; (c.Catalog.Enabled && c.Bucket == "") || c.Retention.retention().Enabled() {
		e.keeper = catalog.NewKeeper(c.Directory, catalog.KeeperOptions{Retention: c.Retention.retention(),
			OnError: func(err error) { e.logger.Warn("run catalog", zap.Error(err)) }})
		count := opts.Hooks.Finalized
		opts.Hooks.Finalized = func(path string) {
			count(path)
			e.keeper.Finalized(path)
		}
	}
	if e.cfg.Bucket != "" {
		b, err := bucket.Open(ctx, e.cfg.Bucket)
		if err != nil {
			return fmt.Errorf("bucket: %w", err)
		}
		e.bkt = b
		var cat *bucket.CatalogOptions
		if e.cfg.Catalog.Enabled {
			cat = &bucket.CatalogOptions{}
		}
		e.pub = b.Publisher(bucket.PublisherOptions{
			Catalog: cat,
			Zstd:    e.cfg.Compression == CompressionZstd,
			OnError: func(err error) {
				e.tel.uploadFailed()
				e.logger.Warn("uploading artifact", zap.Error(err))
			},
			Uploaded: e.tel.uploaded,
		})
		opts.Hooks.Finalized = e.pub.Hook(opts.Hooks.Finalized)
	}
	st, err := store.New(opts)
	if err != nil {
		return errors.Join(fmt.Errorf("directory: %w", err), e.closeBucket(ctx))
	}
	e.st = st
	if e.keeper != nil {
		e.keeper.Start(catalog.TakeAndRemove(st.Take)) // no writer adopts a file being removed
	}
	if e.pub != nil {
		if err := e.pub.Start(st, e.cfg.Directory); err != nil {
			e.logger.Warn("uploading what an earlier run left", zap.Error(err))
		}
	}
	return nil
}

// shutdown writes every open artifact's trailer and closes every file,
// then, with a bucket, uploads what is left to upload (what ctx leaves no
// time for stays in the directory for the next start). It is safe without
// start; later batches are refused.
func (e *agenttraceExporter) shutdown(ctx context.Context) error {
	if e.st == nil {
		return e.closeBucket(ctx)
	}
	err := e.st.Close() // finalizes: the keeper and the publisher hear of every run
	return errors.Join(err, e.keeper.Close(ctx), e.closeBucket(ctx))
}

// closeBucket stops the publisher (uploading what is queued, as ctx
// allows) and closes the bucket.
func (e *agenttraceExporter) closeBucket(ctx context.Context) error {
	if e.bkt == nil {
		return nil
	}
	var err error
	if e.pub != nil {
		err = e.pub.Shutdown(ctx)
	}
	err = errors.Join(err, e.bkt.Close())
	e.bkt, e.pub = nil, nil
	return err
}

// pushTraces writes a batch. When some artifacts cannot be written, the
// others are, and only the spans of the failed ones are returned to
// exporterhelper for retrying (a partial failure); spans already written
// are recognized by their ids and skipped on a retry.
func (e *agenttraceExporter) pushTraces(_ context.Context, td ptrace.Traces) error {
	if e.st == nil {
		return consumererror.NewPermanent(errShutdown)
	}
	rp := recordSlices.Get().(*[]artifact.Record)
	recs := artifact.AppendRecords((*rp)[:0], td)
	err := e.st.Write(recs) // holds none of recs once it returns
	if cap(recs) <= maxPooledRecords {
		clear(recs) // the batch's memory is not the pool's to keep
		*rp = recs[:0]
		recordSlices.Put(rp)
	}
	var we *store.WriteError
	switch {
	case err == nil:
		return nil
	case errors.Is(err, store.ErrClosed):
		return consumererror.NewPermanent(errShutdown)
	case errors.As(err, &we):
		if errors.Is(err, store.ErrNotAppendable) {
			// Retrying will not change the file.
			return consumererror.NewPermanent(err)
		}
		return consumererror.NewTraces(err, failedTraces(we.Failed))
	}
	return err
}

// recordSlices holds the record slices of batches written, for the next
// batch: a batch's records are 80 bytes a span, allocated afresh they were
// about a sixth of what the exporter allocates.
var recordSlices = sync.Pool{New: func() any { return new([]artifact.Record) }}

// maxPooledRecords caps the slices kept: one huge batch does not pin its
// records' worth of memory.
const maxPooledRecords = 1 << 14

// failedTraces is a batch of copies of the spans of recs: the batch the
// exporter was given is not its own to take spans out of.
func failedTraces(recs []artifact.Record) ptrace.Traces {
	for i := range recs {
		sp := ptrace.NewSpan()
		recs[i].Span.CopyTo(sp)
		recs[i].Span = sp
	}
	return artifact.ToTraces(recs)
}
