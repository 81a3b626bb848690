// Package otlpguard applies converter.GuardOTLP where OTLP bytes arrive
// over the network and are decoded before agenttrace's own code runs: a
// gRPC codec (for grpc.ForceServerCodecV2) that checks an export request
// before pdata unmarshals it, and an HTTP middleware that checks a request
// body before the handler behind it reads it. The collector
// distribution's agenttrace_guard extension uses both, in front of
// upstream's otlp receiver (serve --otlp decodes raw bytes in its own
// handlers and calls converter.GuardOTLP there).
//
// Trace, log and metric requests are checked (agenttrace reads no
// metrics, but the collector decodes them with the same recursive code).
// The check is the lenient one (nesting, JSON syntax, data after the
// document): OTLP asks receivers to ignore fields they do not know, and
// ids are the receiver's to judge.
package otlpguard
