// Package sdkspan converts OpenTelemetry Go SDK spans into pdata traces.
//
// The rest of agenttrace speaks the collector's pdata model
// ([go.opentelemetry.io/collector/pdata/ptrace]): the converter, the semantic
// convention readers and the JSONL writer all take a [ptrace.Traces]. Two
// producers start from the Go SDK instead: the bridge span processor, which
// runs inside an agent's process and sees [sdktrace.ReadOnlySpan] values as
// they end, and the testdata generator, which drives the real SDK to produce
// reproducible OTLP fixtures. This package is the single bridge between the two
// models so that both paths produce exactly what an OTLP exporter followed by
// a collector receiver would have produced.
//
// The conversion is lossless and mirrors the otel-go OTLP exporter's
// transform (go.opentelemetry.io/otel/exporters/otlp/otlptrace, package
// internal/tracetransform), including the OTLP span-flag bits for remote
// contexts. Where the exporter drops information this package keeps it:
//
//   - link trace state is copied (the exporter leaves Span_Link.trace_state
//     empty);
//   - resources are grouped by pointer identity, then by exact attribute set
//     and schema URL (the exporter groups by the attribute-set hash only, so
//     two resources that differ only in schema URL are merged there).
//
// The conversion uses no reflection of its own and allocates only what the
// pdata model needs to hold the result, because the bridge processor calls it
// on every span an agent emits.
//
// [sdktrace.ReadOnlySpan]: https://pkg.go.dev/go.opentelemetry.io/otel/sdk/trace#ReadOnlySpan
package sdkspan
