package bridge

import (
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/pricing"
	"github.com/agenttrace/agenttrace/semconv"
	"github.com/agenttrace/agenttrace/store"
)

// An Option configures a Processor. Options are sealed: only this package
// makes them.
type Option interface{ apply(*config) }

type optionFunc func(*config)

func (f optionFunc) apply(c *config) { f(c) }

// Fsync says when an artifact is synced to disk: the store's policy
// (store.Fsync), so the SDK processor, the collector exporter and serve
// speak of one thing.
type Fsync = store.Fsync

const (
	// FsyncTurn syncs an artifact each time a turn ends, before the next
	// batch is taken: when a model call or a tool call ends, or the
	// trace's local root (store.TurnEnds defines a turn), and on flush
	// and shutdown. A batch that holds the end of a turn is written at
	// once rather than after the batch timeout, so an OS crash or a
	// power cut loses at most the turn in progress. The default.
	FsyncTurn = store.FsyncTurn
	// FsyncTraceEnd syncs only when a trace's root span ends, and on
	// flush and shutdown: an OS crash loses every turn of the trace in
	// progress.
	FsyncTraceEnd = store.FsyncTraceEnd
	// FsyncAlways syncs after every batch written.
	FsyncAlways = store.FsyncAlways
	// FsyncNever leaves syncing to the operating system.
	FsyncNever = store.FsyncNever
)

// Scope says what a budget is counted over.
type Scope uint8

const (
	// PerTrace gives every trace its own budget (the default).
	PerTrace Scope = iota
	// PerConversation shares one budget among the traces of a
	// gen_ai.conversation.id.
	PerConversation
)

// BudgetEvent is a budget crossing its warn threshold or running out.
type BudgetEvent struct {
	// Key is the trace id (hex) or the conversation id the budget counts.
	Key string
	// Status is the budget after the span that crossed.
	Status artifact.BudgetStatus
	// Cost is the cost budget after the span that crossed, set when the
	// dollars crossed (WithBudgetUSD); nil when the tokens did.
	Cost *CostStatus
}

type sinkKind uint8

const (
	sinkNone sinkKind = iota
	sinkFile
	sinkDir
	sinkWriter
)

// config holds every setting, with its default, in one place.
type config struct {
	sink    sinkKind
	path    string // file or directory
	groupBy store.Route
	w       io.Writer

	publisher Publisher // WithBucket

	queueSize    int
	batchSize    int
	batchTimeout time.Duration
	blocking     bool
	filter       func(sdktrace.ReadOnlySpan) bool
	starts       bool // WithStartRecords(true)

	fsync     Fsync
	recordCap int

	budget        int64
	budgetUSD     float64
	warnThreshold float64
	scope         Scope
	onNear        func(BudgetEvent)
	onOver        func(BudgetEvent)

	redactKeys []string
	secrets    bool

	dialectPaths []string                // WithDialect
	dialects     []*semconv.DialectTable // WithDialectTable, then the paths' tables
}

func newConfig(opts []Option) (config, error) {
	c := config{
		queueSize:     2048,
		batchSize:     512,
		batchTimeout:  time.Second,
		warnThreshold: artifact.DefaultWarnThreshold,
		secrets:       true,
		fsync:         FsyncTurn,
	}
	for _, o := range opts {
		o.apply(&c)
	}
	var errs []error
	if c.sink == sinkNone {
		errs = append(errs, errors.New("no sink: use WithFile, WithDirectory or WithWriter"))
	}
	if c.publisher != nil && c.sink != sinkDir {
		errs = append(errs, errors.New("WithBucket publishes a folder's artifacts: use WithDirectory"))
	}
	if c.queueSize < 1 || c.batchSize < 1 {
		errs = append(errs, fmt.Errorf("queue size %d and batch size %d must be positive", c.queueSize, c.batchSize))
	}
	if c.budget < 0 {
		errs = append(errs, fmt.Errorf("budget %d is negative", c.budget))
	}
	if c.budgetUSD < 0 || math.IsNaN(c.budgetUSD) || math.IsInf(c.budgetUSD, 0) {
		errs = append(errs, fmt.Errorf("cost budget %v is not a number of dollars, 0 or more", c.budgetUSD))
	} else if c.budgetUSD > 0 {
		if _, err := pricing.Default(); err != nil {
			errs = append(errs, fmt.Errorf("cost budget: %w", err))
		}
	}
	if c.warnThreshold <= 0 || c.warnThreshold > 1 {
		errs = append(errs, fmt.Errorf("warn threshold %v is not in (0, 1]", c.warnThreshold))
	}
	if c.recordCap < 0 {
		errs = append(errs, fmt.Errorf("record cap %d is negative", c.recordCap))
	}
	for _, p := range c.dialectPaths {
		d, err := semconv.LoadDialect(p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		c.dialects = append(c.dialects, d)
	}
	if len(errs) == 0 && len(c.dialects) > 0 {
		errs = append(errs, semconv.UseDialects(c.dialects...))
	}
	return c, errors.Join(errs...)
}

// WithDialect lays the dialect file at path (docs/dialects.md) over the
// embedded dialect table, so that spans of a library it does not know
// are read right (kinds, models, usage for the budget). The table is the
// process's (semconv.UseDialects): the last processor created with
// dialects sets it for every reader. A file that cannot be read or
// parsed makes New fail with its name and line.
func WithDialect(path string) Option {
	return optionFunc(func(c *config) { c.dialectPaths = append(c.dialectPaths, path) })
}

// WithDialectTable is WithDialect with a table already parsed
// (semconv.ParseDialect).
func WithDialectTable(t *semconv.DialectTable) Option {
	return optionFunc(func(c *config) { c.dialects = append(c.dialects, t) })
}

// WithFile records the whole run into one artifact at path, the way a
// tool-dispatch trace records a run. An artifact already at path is
// continued, not replaced: one header, and a trailer that counts both
// runs. A file there that is not an artifact (a torn header, other
// content) is renamed aside to path.corrupt-<unix ns> first.
func WithFile(path string) Option {
	return optionFunc(func(c *config) { c.sink, c.path = sinkFile, path })
}

// WithDirectory writes one artifact per trace (<trace id>.jsonl) or, with
// store.ByConversation, per gen_ai.conversation.id
// (conv-<store.Name(id)>.jsonl), into dir; the names, headers and merging
// are package store's, the same as the collector exporter's and
// convert --split's. An artifact is finalized (trailer written, file
// closed, its memory freed) when its trace's local root span ends.
func WithDirectory(dir string, by store.Route) Option {
	return optionFunc(func(c *config) { c.sink, c.path, c.groupBy = sinkDir, dir, by })
}

// WithWriter writes one artifact to w. The Processor never closes w. A
// write w fails part-way cannot be taken back: its rest is written first
// once w takes writes again, so no line is glued onto a torn one; the
// spans of writes w refuses meanwhile are counted as dropped in the
// trailer.
func WithWriter(w io.Writer) Option {
	return optionFunc(func(c *config) { c.sink, c.w = sinkWriter, w })
}

// WithStartRecords sets whether the processor writes a start record for
// each span when it starts ("in_flight":true, no finished_at; superseded
// by its ended record), so a viewer of the live run shows calls while
// they run (default false: an artifact holds ended spans only, as the
// collector exporter's, which never sees a span start, and one written by
// a run with simulated times is the same bytes every time; turn them on
// for agents watched live with agenttrace serve).
func WithStartRecords(on bool) Option { return optionFunc(func(c *config) { c.starts = on }) }

// WithQueueSize bounds the spans waiting to be written (default 2048). When
// the queue is full OnEnd drops the span and counts it, unless WithBlocking.
func WithQueueSize(n int) Option { return optionFunc(func(c *config) { c.queueSize = n }) }

// WithBatchSize sets how many spans are written per batch (default 512).
func WithBatchSize(n int) Option { return optionFunc(func(c *config) { c.batchSize = n }) }

// WithBatchTimeout sets the longest a span waits for its batch (default 1s).
func WithBatchTimeout(d time.Duration) Option {
	return optionFunc(func(c *config) { c.batchTimeout = d })
}

// WithBlocking makes OnEnd wait for room in a full queue instead of
// dropping the span. The agent then slows down rather than lose spans.
func WithBlocking() Option { return optionFunc(func(c *config) { c.blocking = true }) }

// WithFilter keeps only the spans keep returns true for; by default every
// span of a trace is kept, GenAI or not. GenAIOnly is a ready filter.
func WithFilter(keep func(sdktrace.ReadOnlySpan) bool) Option {
	return optionFunc(func(c *config) { c.filter = keep })
}

// WithFsync sets when artifacts are synced (default FsyncTurn).
func WithFsync(f Fsync) Option { return optionFunc(func(c *config) { c.fsync = f }) }

// WithRecordCap caps the records of one artifact; spans past the cap are
// counted in the trailer (dropped), and still count toward its totals.
func WithRecordCap(n int) Option { return optionFunc(func(c *config) { c.recordCap = n }) }

// WithBudget sets a token budget (input + output tokens of model calls).
// Guard and Status hold the agent to it. The artifact's header names the
// budget the data sets, when it does (a local root span's
// agenttrace.budget.tokens, else the resource's), else this one: the same
// rule in every writer (see package store).
func WithBudget(tokens int64) Option { return optionFunc(func(c *config) { c.budget = tokens }) }

// WithBudgetUSD sets a cost budget in dollars, counted like the token
// budget (per trace or per conversation, WithBudgetScope; near at the warn
// threshold; the same callbacks, whose BudgetEvent.Cost is set) and
// enforced the same way: Guard returns ErrBudgetExceeded, and spans
// started afterwards are marked, once either budget is used up. A model
// call costs what its span reports (gen_ai.usage.cost), else its usage
// priced with the genai-prices data (package pricing); a model the data
// does not know adds nothing and is reported once (ErrUnpricedModel).
// Processor.CostStatus reports the dollars. The artifacts record the
// token budget only.
func WithBudgetUSD(usd float64) Option { return optionFunc(func(c *config) { c.budgetUSD = usd }) }

// WithWarnThreshold sets the fraction of the budget at which a run is near
// it (default 0.8).
func WithWarnThreshold(f float64) Option {
	return optionFunc(func(c *config) { c.warnThreshold = f })
}

// WithBudgetScope sets what a budget counts over (default PerTrace).
func WithBudgetScope(s Scope) Option { return optionFunc(func(c *config) { c.scope = s }) }

// WithBudgetCallbacks sets functions called once when a budget gets near
// its limit and once when it runs out. They run on the goroutine that
// ended the span that crossed, so they must be quick.
func WithBudgetCallbacks(near, over func(BudgetEvent)) Option {
	return optionFunc(func(c *config) { c.onNear, c.onOver = near, over })
}

// WithRedactKeys replaces the values of these attribute keys, and of these
// fields inside JSON-valued attributes (tool arguments and results,
// messages), with "[REDACTED]" before anything is written.
func WithRedactKeys(keys ...string) Option {
	return optionFunc(func(c *config) { c.redactKeys = append(c.redactKeys, keys...) })
}

// WithoutSecretScan turns off the built-in secret patterns (API keys,
// bearer tokens, private keys), which are on by default.
func WithoutSecretScan() Option { return optionFunc(func(c *config) { c.secrets = false }) }
