// Package agenttraceexporter is an OpenTelemetry Collector exporter (type
// agenttrace) that writes traces as agenttrace JSONL artifacts: one file per
// trace, per conversation (gen_ai.conversation.id) or per value of a
// resource attribute, each with a meta header, one record per span and a
// summary trailer with counts, tokens and budget. The conversion is package
// converter's, the redaction package redact's; this package only routes
// spans to artifacts and manages the files.
//
// Spans of one trace arriving in many batches, out of order, redelivered
// by the sending queue, or after a collector restart, land in the same
// artifact under one header, each span once. The artifact is finalized
// (trailer written, file closed) once its root span has ended and nothing
// arrived for finalize_after; a late span reopens it, appends, and a new
// trailer follows.
package agenttraceexporter // import "github.com/agenttrace/agenttrace/exporter"

// The generated_* files and internal/metadata were written by hand as
// mdatagen would generate them (mdatagen could not be installed here).
//go:generate mdatagen metadata.yaml
