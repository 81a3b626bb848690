// Package twotier holds the end-to-end test of the two-tier layout of
// deploy/k8s, run on loopback with real binaries: a tier-1 gateway built
// with the OpenTelemetry Collector Builder from builder-config.yaml (the
// contrib `loadbalancing` exporter, routing by trace id, static resolver)
// in front of two otelcol-agenttrace collectors, each with the shipped
// tier-2 config, under load from the Go SDK. It checks that every span the
// SDK saw acknowledged is in exactly one artifact, that each trace is whole
// in one collector's folder, and what a `kill -9` of either tier costs.
//
// The test is slow (the first build of the gateway takes minutes) and runs
// only with AGENTTRACE_TWOTIER=1:
//
//	AGENTTRACE_TWOTIER=1 go test -v -count=1 -timeout 30m ./deploy/twotier/
//
// docs/benchmarks.md ("Two tiers") has the figures of one run.
package twotier
