package report

import (
	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/converter"
	"github.com/agenttrace/agenttrace/pricing"
)

// DefaultTop is how many of the largest responses a report lists unless
// told otherwise: enough to spot the outliers, short enough to read.
const DefaultTop = 5

// Option configures a report.
type Option interface{ apply(*config) }

type config struct {
	top      int
	trailers []trailer
	prices   *pricing.Table
	logs     []artifact.LogRecord
	batch    *converter.Batch
	open     []artifact.Record
}

// trailer is one artifact's summary trailer and the records read from
// that artifact.
type trailer struct {
	sum  *artifact.Summary
	recs []artifact.Record
}

type optionFunc func(*config)

func (f optionFunc) apply(c *config) { f(c) }

// WithTop sets how many of the largest responses the report lists;
// n <= 0 lists none.
func WithTop(n int) Option {
	return optionFunc(func(c *config) { c.top = max(n, 0) })
}

// WithTrailer gives the report the summary trailer of one artifact, sum
// (nil for none), and the records read from it, recs (which must also be
// among the records reported). Give it once per artifact.
//
// When the trailer accounts for more records than the artifact holds (a
// producer dropped them: a full queue, a record cap; or lines could not
// be read), the report's Tokens and Budget are the trailer's, which count
// those records, rather than the records' sums, which would silently
// understate a run; Dropped counts the missing records and Notes say their
// details are not in the file. Truncated values the trailer counts are
// reported too. A trailer that accounts for no more than the records
// changes nothing: the records are the better source, and disagreements
// are for `agenttrace validate`.
func WithTrailer(sum *artifact.Summary, recs []artifact.Record) Option {
	return optionFunc(func(c *config) {
		if sum != nil {
			c.trailers = append(c.trailers, trailer{sum: sum, recs: recs})
		}
	})
}

// WithPrices prices model calls with t instead of the vendored
// genai-prices data (pricing.Default): for tests, or data refreshed apart
// from a release.
func WithPrices(t *pricing.Table) Option {
	return optionFunc(func(c *config) { c.prices = t })
}

// WithBatch gives the report the batch of the very records it reports
// (converter.NewBatch of the same slice), whose wrappers and span index a
// caller that asks the batch other questions (the page: its folds,
// conversations and failures) has computed already: the report then
// reads them from it rather than computing them again.
func WithBatch(b *converter.Batch) Option {
	return optionFunc(func(c *config) { c.batch = b })
}

// WithOpen gives the report the run's spans that started and have not
// ended (start records, "in_flight"): none is counted, but an agent among
// them is the agent of the model calls that ended under it, so a live
// run's calls are not put under NoAgent while their agent still runs.
func WithOpen(open []artifact.Record) Option {
	return optionFunc(func(c *config) { c.open = open })
}

func newConfig(opts []Option) config {
	c := config{top: DefaultTop}
	for _, o := range opts {
		o.apply(&c)
	}
	return c
}
