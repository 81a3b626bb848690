// Package seaweedtest runs a real S3-compatible server on loopback for
// tests: SeaweedFS's all-in-one `weed mini` (Apache-2.0, built from the Go
// module proxy by deploy/seaweedfs/build.sh), not a mock, so that what the
// bucket support relies on (create-only writes with If-None-Match: *,
// listing, ETags) is what a real server does.
//
// AGENTTRACE_SEAWEEDFS is the path of the `weed` binary; without it a test
// that needs the server is skipped, unless AGENTTRACE_REQUIRE_SEAWEEDFS=1
// (as in CI), which makes a missing binary a failure:
//
//	AGENTTRACE_SEAWEEDFS=$(deploy/seaweedfs/build.sh) go test ./...
//
// Every port of the server (master, volume, filer, S3, admin and their
// gRPC ports) is a free one picked at start, so tests that start servers
// run in parallel with each other and with anything on the default ports.
// The server runs anonymously (no identities), so any client, signed or
// not, may read and write; the process is stopped and waited for at the
// test's cleanup, leaving no goroutine behind.
package seaweedtest
