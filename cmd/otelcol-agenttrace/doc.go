// Regenerate main.go, main_*.go, components.go and go.mod of this directory
// from the repository root with the OpenTelemetry Collector Builder:
//
//	go install go.opentelemetry.io/collector/cmd/builder@v0.162.0
//	builder --config deploy/builder-config.yaml --skip-compilation
//	gofmt -w cmd/otelcol-agenttrace   # the builder's output is not gofmt-clean
//
// (the builder tidies go.mod itself, with the tests' requirements) and
// build with plain `go build` here. Do not edit the generated files by
// hand; change deploy/builder-config.yaml instead.

// Command otelcol-agenttrace is an OpenTelemetry Collector distribution with
// the agenttrace exporter (see ../../exporter), the core OTLP receiver, the
// batch and memory_limiter processors and the otlp, otlphttp and debug
// exporters. Example configurations are in deploy/collector.
package main
