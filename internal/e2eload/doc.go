// Package e2eload is test support for the end-to-end tests that run real
// collectors (cmd/otelcol-agenttrace's kill -9, full-disk and group_by
// tests, deploy/twotier's two tiers): load sent through the real Go SDK
// (batch span processor, OTLP/gRPC with retries), a count of the spans the
// collector acknowledged and of those the SDK gave up on, polling for a
// condition, and the checks every artifact must pass after a clean stop
// (every line JSON, a header first, a trailer last that counts the
// file's records and tokens, read without a problem). It lives in one
// place so that every durability test measures "acknowledged", "lost" and
// "valid" the same way.
package e2eload
