// Package report turns agenttrace records into the reports a person reads
// after a run: where the tokens went (by model, by tool, by agent), how the
// model calls ended, what failed, and which responses were the largest.
//
// Reports are built from [artifact.Record]s, so they work the same on an
// artifact, on OTLP, and on any dialect semconv understands. Totals and the
// budget come from [artifact.Tally], the one place agenttrace computes
// them, so a report never disagrees with an artifact's summary trailer.
// When a trailer accounts for records its artifact does not hold (a
// producer dropped them), the report takes its totals and budget from the
// trailer ([WithTrailer]) and says how many records were dropped: the one
// number a budget exists for is never understated.
// Only inference records count toward tokens: agent and wrapper spans repeat
// the usage of the model calls under them.
//
// A report is a plain struct with JSON tags, for scripts, and has a text
// rendering for a terminal.
package report
