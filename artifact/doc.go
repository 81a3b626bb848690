// Package artifact holds what the agenttrace artifact format (docs/format.md)
// says a file must be, as a library: Validate reads one artifact to the end
// and returns every way it departs from the format, each at its line, and
// what is valid but worth saying (values truncated when written, dropped
// spans, lines of a kind this version does not know).
//
// The format's types and line encoding still live in package converter,
// which this package builds on; the plan (issue 27) is to move them here,
// below a converter that only converts, so that a reader of artifacts
// needs nothing of pdata conversion. Validate's signature does not change
// with that move.
//
// `agenttrace validate` is Validate with the problems printed; the viewer
// and the collector exporter can call it on what they hold, and so can a
// user's CI.
package artifact
