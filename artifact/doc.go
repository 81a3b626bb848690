// Package artifact is the agenttrace artifact format (docs/format.md) as a
// library: its types, its line encoding, and its conformance check.
//
// An artifact is JSON Lines: a meta header ([Meta]), one record per span
// ([Record]: the span whole, with its resource and scope) or log record
// ([LogRecord]), and an optional summary trailer ([Summary]). A record holds
// a whole span — ids, times, status, every attribute with its type, events,
// links — so OTLP -> JSONL -> OTLP is exact, and JSONL -> OTLP -> JSONL
// gives back the same bytes. GenAI facts (model, usage, tool, messages, ...)
// are promoted to named fields by the rules of package semconv, whichever
// dialect the span spoke; the record remembers the attribute each came from.
//
// # Writing
//
// [Writer] writes a header, records and a trailer, one Write call per line,
// so an artifact can be appended to and a crash leaves at most a torn last
// line; [Encoder] is its line encoding, for writers that place the bytes
// themselves (package store). [Records] lays ptrace.Traces out as records
// in artifact order and [MetaFor] makes their header. [Tally] is the one
// place counts, tokens, cost and budget are computed, for the trailer and
// for everyone who reports them.
//
// # Reading
//
// [Reader] reads line by line with a bounded buffer (16 MiB per line by
// default): a bad line is reported with its line number ([LineError]) and
// skipped, unknown kinds are counted and skipped, and only a header of a
// newer version stops it. [Reader.ReadTraces] is the fast path straight to
// ptrace.Traces; [ToTraces] turns records back into OTLP. Records without
// OTel identity (the older tool-dispatch traces) get deterministic ids
// under a synthesized root span.
//
// # Checking
//
// [Validate] reads one artifact to the end and returns every way it
// departs from the format, each at its line, and what is valid but worth
// saying (values truncated when written, dropped spans, lines of a kind
// this version does not know). `agenttrace validate` is Validate with the
// problems printed; the viewer, the collector exporter and a user's CI can
// call it on what they hold.
//
// Package converter, above this one, converts other shapes (OTLP files,
// logs) to artifacts and pairs model calls with their conversations.
//
// Types in this package are not safe for concurrent use unless they say
// so; the functions are.
package artifact
