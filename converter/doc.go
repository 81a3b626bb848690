// Package converter is agenttrace's conversion core: the artifact's record
// model, OTLP (pdata) to JSONL and back, and the streaming reader and
// writer that every other part of agenttrace uses — the SDK bridge, the
// collector exporter, the CLI and the viewer. There is one copy of this
// logic; adapters call it.
//
// # The artifact
//
// An artifact is JSON Lines: a meta header, one record per span, and an
// optional summary trailer (docs/format.md is the specification). A record
// holds a whole span — ids, times, status, every attribute with its type,
// events, links, resource and scope — so OTLP -> JSONL -> OTLP is exact, and
// JSONL -> OTLP -> JSONL gives back the same bytes. GenAI facts (model,
// usage, tool, arguments, messages, ...) are promoted to named fields by the
// rules of package semconv, whichever dialect the span spoke; the record
// remembers the attribute each came from.
//
// # Writing
//
// [Writer] writes a header, records and a trailer, one Write call per line,
// so an artifact can be appended to and a crash leaves at most a torn last
// line. [Records] turns ptrace.Traces into records in artifact order;
// [MetaFor] makes the header for them; [Split] groups them per trace or per
// conversation. [Tally] is the one place counts, tokens and budget are
// computed.
//
// # Reading
//
// [Reader] reads line by line with a bounded buffer (16 MiB per line by
// default): a bad line is reported with its line number ([LineError]) and
// skipped, unknown kinds are counted and skipped, and only a header of a
// newer version stops it. [Reader.ReadTraces] is the fast path straight to
// ptrace.Traces; [ToTraces] turns records back into OTLP. Records without
// OTel identity (the older tool-dispatch traces) get deterministic ids under
// a synthesized root span.
//
// [Detect] tells an input's format from its content (artifact, OTLP/JSON,
// OTLP/JSON lines, OTLP protobuf) and [ReadOTLP] reads the OTLP ones with
// pdata. [GuardOTLP] checks OTLP bytes before pdata sees them: nesting
// (pdata's decoder overflows its stack on deep values, which ends the
// process), and for files strict OTLP/JSON; every path that hands OTLP to
// pdata calls it.
//
// Types in this package are not safe for concurrent use unless they say
// so; the functions are.
package converter
