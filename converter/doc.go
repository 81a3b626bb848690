// Package converter turns what instrumented agents emit into artifacts
// (package artifact) and reads artifacts as conversations.
//
// [Detect] tells an input's format from its content (artifact, OTLP/JSON,
// OTLP/JSON lines, OTLP protobuf, for traces and for logs) and [ReadOTLP]
// and [ReadOTLPLogs] read the OTLP ones with pdata. [GuardOTLP] checks OTLP
// bytes before pdata sees them: nesting (pdata's decoder overflows its
// stack on deep values, which ends the process), and for files strict
// OTLP/JSON; every path that hands OTLP to pdata calls it.
//
// [ModelCalls] pairs a batch's model calls with their conversations the one
// way every reader of conversations shares (a wrapper and its leaf call,
// input inherited from an ancestor: [Wrappers], [InheritModels]);
// [ModelCallsWithLogs] and [LogsAsEvents] do so when the content came as
// log records. [Failures] says which records failed, counting a model call
// that failed with its span.
//
// The format's own types and line encoding (Record, Meta, Reader, Writer,
// Tally, ...) are package artifact's.
package converter
