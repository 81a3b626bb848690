// Package otlpsend sends recorded traces to an OTLP endpoint (a collector,
// Jaeger, any OTLP receiver) with the OpenTelemetry Go SDK's own OTLP
// clients, over gRPC, HTTP/protobuf or HTTP/JSON.
//
// What it adds to the clients is what a person at a terminal needs:
// Resolve reads the OTLP exporter variables (OTEL_EXPORTER_OTLP_*, with
// the semantics of the SDK's envconfig) under the settings a command line
// gave, so the endpoint and protocol are known before anything is sent and
// a bad value is an error naming the variable; Sender splits traces into
// requests a server accepts, retries what the OTLP specification calls
// retryable, and stops at once, with a ConnProblem saying what to change,
// at a connection no retry can help (plaintext against TLS or the other
// way round, gRPC against an OTLP/HTTP port, an untrusted certificate, a
// refused connection).
//
// cmd/agenttrace's `send` command is the flags and the messages around it.
package otlpsend
