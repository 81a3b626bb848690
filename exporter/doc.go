// Package agenttraceexporter is an OpenTelemetry Collector exporter (type
// agenttrace) that writes traces as agenttrace JSONL artifacts: one file per
// trace, per conversation (gen_ai.conversation.id) or per value of a
// resource attribute, each with a meta header, one record per span and a
// summary trailer with counts, tokens and budget. The conversion is package
// converter's, the redaction package redact's, and the files package
// store's (the same store the SDK span processor and convert --split write
// through); this package maps the collector's configuration, batches,
// errors and self-telemetry onto them.
//
// Spans of one trace arriving in many batches, out of order, redelivered
// by the sending queue, or after a collector restart, land in the same
// artifact under one header, each span once. The trailer goes out with the
// root span; the artifact is finalized (synced, file closed) once its root
// span has ended and nothing arrived for finalize_after; a late span
// reopens it, appends, and a new trailer follows. An artifact that cannot
// be written fails only its own spans (a partial failure exporterhelper
// retries); what a crash left unfinished is finished after a restart.
//
// The same component in a logs pipeline puts each log record (the
// official GenAI instrumentations' prompts and answers) into its trace's
// artifact after its spans, whichever pipeline delivers first, with the
// same deduplication, adoption and finalization (package store,
// Store.WriteLogs; the rules are in README.md).
package agenttraceexporter // import "github.com/agenttrace/agenttrace/exporter"

// The generated_* files and internal/metadata were written by hand as
// mdatagen would generate them (mdatagen could not be installed here).
//go:generate mdatagen metadata.yaml
