package agenttraceexporter

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"go.opentelemetry.io/collector/config/configoptional"
	"go.opentelemetry.io/collector/config/configretry"
	"go.opentelemetry.io/collector/exporter/exporterhelper"

	"github.com/agenttrace/agenttrace/bucket"
	"github.com/agenttrace/agenttrace/catalog"
	"github.com/agenttrace/agenttrace/semconv"
)

// Fsync modes: when artifact data is forced to disk.
const (
	// FsyncTraceEnd syncs an artifact when it is finalized (its trailer
	// written). The default.
	FsyncTraceEnd = "trace_end"
	// FsyncAlways syncs every artifact a batch wrote to before the batch is
	// acknowledged.
	FsyncAlways = "always"
	// FsyncNever leaves syncing to the operating system.
	FsyncNever = "never"
)

// Compressions of the objects uploaded to a bucket.
const (
	CompressionNone = "none"
	CompressionZstd = "zstd"
)

// Grouping: which artifact a span goes to.
const (
	GroupByTrace        = "trace"
	GroupByConversation = "conversation"
	// GroupByResourcePrefix is followed by a resource attribute name, as in
	// resource:service.name.
	GroupByResourcePrefix = "resource:"
)

// Config is the agenttrace exporter's configuration.
type Config struct {
	// Directory is where artifacts are written; required. It is created on
	// start when missing. No span can name a file outside it.
	Directory string `mapstructure:"directory"`
	// GroupBy says which artifact a span belongs to: "trace" (the default,
	// <trace id>.jsonl), "conversation" (conv-<gen_ai.conversation.id>.jsonl;
	// traces naming no conversation get their own artifact) or
	// "resource:<attribute>" (<attribute>-<value>.jsonl; resources without
	// the attribute fall back to one artifact per trace).
	GroupBy string `mapstructure:"group_by"`
	// FinalizeAfter is how long an artifact whose root span has ended must
	// stay idle before its trailer is written and its file closed.
	FinalizeAfter time.Duration `mapstructure:"finalize_after"`
	// MaxOpenFiles bounds the artifact files held open at once; the least
	// recently written is closed first and reopened when needed.
	MaxOpenFiles int `mapstructure:"max_open_files"`
	// Fsync is trace_end (default), always or never.
	Fsync string `mapstructure:"fsync"`
	// Budget is the token and cost budget written into every artifact's
	// header.
	Budget BudgetConfig `mapstructure:"budget"`
	// Redact says what is removed from spans before they are written.
	Redact RedactConfig `mapstructure:"redact"`
	// MaxRecordsPerArtifact caps the records of one artifact; spans past it
	// are counted as dropped in the trailer (their usage still counts).
	// 0 means no cap.
	MaxRecordsPerArtifact int64 `mapstructure:"max_records_per_artifact"`
	// RotateBytes rotates the artifacts of group_by resource:<attribute>,
	// which otherwise live as long as traffic goes on: one whose file
	// reaches this size is finalized and renamed to
	// <name>.R<unix ns>.jsonl, and the next span starts a new one. 0 never
	// rotates.
	RotateBytes int64 `mapstructure:"rotate_bytes"`
	// RotateAfter rotates them by age: one written to for this long is
	// finalized and renamed as by rotate_bytes on its next write, so that
	// files get trailers under steady traffic. 0 never rotates by age.
	RotateAfter time.Duration `mapstructure:"rotate_after"`
	// Bucket, when set, is a gocloud URL of a bucket (s3://, gs://,
	// azblob://, file://) the finalized artifacts are uploaded to, the
	// directory being their staging area: each is uploaded create-only
	// under <prefix>/dt=YYYY-MM-DD/service=<name>/<id>.jsonl and removed
	// from the directory once the upload is confirmed (docs/storage.md).
	// Credentials come from the cloud SDK's default chain.
	Bucket string `mapstructure:"bucket"`
	// Compression of the uploaded objects: none (the default) or zstd
	// (.jsonl.zst).
	Compression string `mapstructure:"compression"`
	// Dialects are dialect files (docs/dialects.md) laid over the
	// embedded dialect table on start, so that spans of a library it does
	// not know are read right: kinds, models, usage for the budget. The
	// table is the collector process's: every agenttrace exporter reads
	// with the files the last one started with.
	Dialects []string `mapstructure:"dialects"`

	// Catalog keeps the run catalog (one Parquet row per run:
	// docs/catalog.md), read back by agenttrace runs and serve: the
	// directory's (directory/catalog/) as artifacts are finalized, or,
	// with a bucket, the bucket's (<prefix>/catalog/) as runs are
	// uploaded (the directory then keeps none). Off by default: each run
	// is read once more, off the write path.
	Catalog CatalogConfig `mapstructure:"catalog"`
	// Retention bounds the directory: runs that ended longer ago than
	// max_age, and the oldest runs while the finalized artifacts hold more
	// than max_bytes, are removed with their catalog rows (it keeps the
	// catalog, whatever catalog.enabled says). For a bucket, use its
	// lifecycle rules (docs/catalog.md).
	Retention     RetentionConfig                                          `mapstructure:"retention"`
	TimeoutConfig exporterhelper.TimeoutConfig                             `mapstructure:",squash"`
	QueueConfig   configoptional.Optional[exporterhelper.QueueBatchConfig] `mapstructure:"sending_queue"`
	RetryConfig   configretry.BackOffConfig                                `mapstructure:"retry_on_failure"`

	// prevent unkeyed literal initialization
	_ struct{}
}

// CatalogConfig turns the run catalog on.
type CatalogConfig struct {
	Enabled bool `mapstructure:"enabled"`
}

// RetentionConfig bounds the directory; 0 bounds nothing.
type RetentionConfig struct {
	MaxAge   time.Duration `mapstructure:"max_age"`
	MaxBytes int64         `mapstructure:"max_bytes"`
}

// retention is the catalog's form of r.
func (r RetentionConfig) retention() catalog.Retention {
	return catalog.Retention{MaxAge: r.MaxAge, MaxBytes: r.MaxBytes}
}

// BudgetConfig is a token budget, a cost budget, or both. A resource or
// root-span attribute agenttrace.budget.tokens overrides Tokens for its
// trace, and agenttrace.budget.usd overrides USD.
type BudgetConfig struct {
	// Tokens is the budget in tokens (input + output of model calls); 0
	// means no budget.
	Tokens int64 `mapstructure:"tokens"`
	// USD is the cost budget in dollars, written as the header's
	// budget_usd; the trailers judge the run's known model-call costs
	// against it (docs/format.md §10). 0 means no cost budget.
	USD float64 `mapstructure:"usd"`
	// WarnThreshold is the fraction of Tokens (and of USD) at which a run
	// is near its budget; 0 means the default, 0.8.
	WarnThreshold float64 `mapstructure:"warn_threshold"`
}

// RedactConfig says what is redacted before anything is written.
type RedactConfig struct {
	// Keys are attribute keys (and JSON field names) whose values are
	// replaced, matched whole and ignoring case.
	Keys []string `mapstructure:"keys"`
	// Secrets turns on the scan for API keys, tokens and credentials in
	// every string; on by default.
	Secrets bool `mapstructure:"secrets"`
}

// Enabled reports whether anything can be redacted: named keys or the
// secret scan.
func (r RedactConfig) Enabled() bool { return len(r.Keys) > 0 || r.Secrets }

// groupAttr returns the resource attribute of group_by resource:<attr>,
// or "" for the other groupings.
func (c *Config) groupAttr() string {
	return strings.TrimPrefix(c.GroupBy, GroupByResourcePrefix)
}

// Validate checks the configuration; its errors name the YAML keys.
func (c *Config) Validate() error {
	var errs []error
	if strings.TrimSpace(c.Directory) == "" {
		errs = append(errs, errors.New("directory: must be set"))
	}
	switch {
	case c.GroupBy == GroupByTrace, c.GroupBy == GroupByConversation:
	case strings.HasPrefix(c.GroupBy, GroupByResourcePrefix):
		if strings.TrimSpace(c.groupAttr()) == "" {
			errs = append(errs, fmt.Errorf("group_by: %q names no resource attribute (resource:service.name, for example)", c.GroupBy))
		}
	default:
		errs = append(errs, fmt.Errorf("group_by: %q is not one of trace, conversation, resource:<attribute>", c.GroupBy))
	}
	if c.FinalizeAfter <= 0 {
		errs = append(errs, fmt.Errorf("finalize_after: must be positive, got %s", c.FinalizeAfter))
	}
	if c.MaxOpenFiles < 1 {
		errs = append(errs, fmt.Errorf("max_open_files: must be at least 1, got %d", c.MaxOpenFiles))
	}
	switch c.Fsync {
	case FsyncTraceEnd, FsyncAlways, FsyncNever:
	default:
		errs = append(errs, fmt.Errorf("fsync: %q is not one of trace_end, always, never", c.Fsync))
	}
	if c.Budget.Tokens < 0 {
		errs = append(errs, fmt.Errorf("budget.tokens: must not be negative, got %d", c.Budget.Tokens))
	}
	if !(c.Budget.USD >= 0) || math.IsInf(c.Budget.USD, 0) {
		errs = append(errs, fmt.Errorf("budget.usd: must be a number of dollars, 0 or more, got %g", c.Budget.USD))
	}
	if c.Budget.WarnThreshold < 0 || c.Budget.WarnThreshold > 1 {
		errs = append(errs, fmt.Errorf("budget.warn_threshold: must be between 0 and 1, got %g", c.Budget.WarnThreshold))
	}
	for i, k := range c.Redact.Keys {
		if strings.TrimSpace(k) == "" {
			errs = append(errs, fmt.Errorf("redact.keys[%d]: must not be empty", i))
		}
	}
	if c.MaxRecordsPerArtifact < 0 {
		errs = append(errs, fmt.Errorf("max_records_per_artifact: must not be negative, got %d", c.MaxRecordsPerArtifact))
	}
	if c.RotateBytes < 0 {
		errs = append(errs, fmt.Errorf("rotate_bytes: must not be negative, got %d", c.RotateBytes))
	}
	if c.RotateAfter < 0 {
		errs = append(errs, fmt.Errorf("rotate_after: must not be negative, got %v", c.RotateAfter))
	}
	if err := c.Retention.retention().Validate(); err != nil {
		errs = append(errs, fmt.Errorf("retention: %w", err))
	}
	if c.Bucket != "" {
		if err := bucket.CheckURL(c.Bucket); err != nil {
			errs = append(errs, fmt.Errorf("bucket: %w", err))
		}
		if c.Retention.retention().Enabled() {
			// The directory is a staging area then: its runs leave it
			// once uploaded (the bucket's lifecycle rules are its
			// retention, docs/catalog.md).
			errs = append(errs, errors.New("bucket: retention bounds the directory's runs, which a bucket's uploads take away: use the bucket's lifecycle rules (docs/catalog.md)"))
		}
	}
	switch c.Compression {
	case "", CompressionNone, CompressionZstd:
		if c.Compression == CompressionZstd && c.Bucket == "" {
			errs = append(errs, errors.New("compression: zstd compresses uploads, and no bucket is set"))
		}
	default:
		errs = append(errs, fmt.Errorf("compression: %q is not one of none, zstd", c.Compression))
	}
	for i, p := range c.Dialects {
		// Parsed here so a mistake stops the collector at its config
		// check, with the file and line, rather than at start.
		if _, err := semconv.LoadDialect(p); err != nil {
			errs = append(errs, fmt.Errorf("dialects[%d]: %w", i, err))
		}
	}
	return errors.Join(errs...)
}
