package server

import (
	"log/slog"
	"time"
)

// Defaults of the options.
const (
	// DefaultPollInterval is how often a live stream looks for new lines.
	// A quarter second feels live to a person watching and costs one
	// fstat per open page.
	DefaultPollInterval = 250 * time.Millisecond
	// DefaultHeartbeat is how often an idle live stream sends a comment,
	// so that proxies and browsers do not time the connection out and a
	// closed tab is noticed on the next write.
	DefaultHeartbeat = 15 * time.Second
	// DefaultMaxUpload is the largest file a viewer page may send to be
	// converted: a long recorded run in OTLP/JSON, with room to spare. A
	// larger one is refused (413); "agenttrace html" has no limit.
	DefaultMaxUpload = 64 << 20
	// DefaultCacheSize bounds the estimated memory of the runs kept
	// loaded (runCostFactor times their artifacts' bytes): a run opened
	// again is served from memory, and a run larger than this is shown
	// paged, never loaded whole.
	DefaultCacheSize = 512 << 20
	// DefaultMaxRunRecords is the most records a run is loaded whole
	// with; a run with more is shown paged.
	DefaultMaxRunRecords = 200_000
	// DefaultIndexLimit is the most runs a folder's list keeps in memory,
	// with every message searchable; a folder of more is listed from its
	// run catalog (built once when absent), in memory that does not grow
	// with the number of runs.
	DefaultIndexLimit = 10_000
	// DefaultPageRecords is how many records the page of a paged run
	// shows first, and the most one range request returns.
	DefaultPageRecords = 1000
	// DefaultIdle is how long a run that has not ended (spans open, no
	// trailer) may gain no new data before it shows as stopped without
	// an end: long enough for a model call or a tool that takes
	// minutes, short enough that a killed agent is not "running" for
	// the rest of the day.
	DefaultIdle = 5 * time.Minute
)

// An Option configures a Server. Options are sealed: only this package
// makes them.
type Option interface{ apply(*config) }

type optionFunc func(*config)

func (f optionFunc) apply(c *config) { f(c) }

type config struct {
	poll      time.Duration
	heartbeat time.Duration
	maxUpload int64
	// cacheSize, maxRecords and pageRecords bound a run's memory
	// (runcache.go).
	cacheSize   int64
	maxRecords  int
	pageRecords int
	// indexLimit: the most runs listed from the in-memory index.
	indexLimit int
	// idle: an open run whose file gains nothing for this long has
	// stopped without an end (viewer.Liveness).
	idle time.Duration
	log  *slog.Logger
	red  *Redaction // nil: nothing is redacted
}

func newConfig(opts []Option) config {
	c := config{poll: DefaultPollInterval, heartbeat: DefaultHeartbeat, maxUpload: DefaultMaxUpload,
		cacheSize: DefaultCacheSize, maxRecords: DefaultMaxRunRecords, pageRecords: DefaultPageRecords,
		indexLimit: DefaultIndexLimit, idle: DefaultIdle}
	for _, o := range opts {
		o.apply(&c)
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	return c
}

// WithPollInterval sets how often a live stream checks its file for new
// lines (default [DefaultPollInterval]). d <= 0 keeps the default.
func WithPollInterval(d time.Duration) Option {
	return optionFunc(func(c *config) {
		if d > 0 {
			c.poll = d
		}
	})
}

// WithHeartbeat sets how often an idle live stream sends a keep-alive
// comment (default [DefaultHeartbeat]). d <= 0 keeps the default.
func WithHeartbeat(d time.Duration) Option {
	return optionFunc(func(c *config) {
		if d > 0 {
			c.heartbeat = d
		}
	})
}

// WithIdle sets how long a run that has not ended (spans open, no
// trailer) may gain no new data before its page and the runs list show
// it as stopped without an end, with the time of its last record, rather
// than running (default [DefaultIdle]): its writer crashed or was killed.
// d <= 0 keeps the default.
func WithIdle(d time.Duration) Option {
	return optionFunc(func(c *config) {
		if d > 0 {
			c.idle = d
		}
	})
}

// WithMaxUpload sets the largest file, in bytes, a viewer page may send
// to be converted (default [DefaultMaxUpload]). n <= 0 keeps the default.
func WithMaxUpload(n int64) Option {
	return optionFunc(func(c *config) {
		if n > 0 {
			c.maxUpload = n
		}
	})
}

// WithLogger sets where the Server reports what it cannot show: artifacts
// it cannot read, lines a live stream skips, requests it refuses. The
// default discards them; a request never sees these details.
func WithLogger(l *slog.Logger) Option {
	return optionFunc(func(c *config) { c.log = l })
}

// WithCacheSize bounds, in bytes, the estimated memory of the runs the
// Server keeps loaded (default [DefaultCacheSize]); a run whose artifact
// is too large for it is shown paged. n <= 0 keeps the default.
func WithCacheSize(n int64) Option {
	return optionFunc(func(c *config) {
		if n > 0 {
			c.cacheSize = n
		}
	})
}

// WithMaxRunRecords sets the most records a run is loaded whole with
// (default [DefaultMaxRunRecords]); a run with more is shown paged: its
// trailer's summary and its first records, the rest by range. n <= 0
// keeps the default.
func WithMaxRunRecords(n int) Option {
	return optionFunc(func(c *config) {
		if n > 0 {
			c.maxRecords = n
		}
	})
}

// WithPageRecords sets how many records a paged run's page shows first,
// and the most one range request returns (default [DefaultPageRecords]).
// n <= 0 keeps the default.
func WithPageRecords(n int) Option {
	return optionFunc(func(c *config) {
		if n > 0 {
			c.pageRecords = n
		}
	})
}

// WithIndexLimit sets the most runs a folder's list keeps in an in-memory
// index (default [DefaultIndexLimit]): a folder of more runs, or one that
// holds a run catalog already (package catalog, "agenttrace catalog
// build"), is listed from its catalog, which the Server builds when
// absent and keeps current as files appear. n <= 0 keeps the default.
func WithIndexLimit(n int) Option {
	return optionFunc(func(c *config) {
		if n > 0 {
			c.indexLimit = n
		}
	})
}
