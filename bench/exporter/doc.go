// Package exporterbench measures the agenttrace collector exporter against
// the contrib fileexporter and against a plain create-and-append floor
// (issue 11, point 5; results in docs/benchmarks.md, section "Exporter vs
// contrib fileexporter").
//
// It is its own module, outside go.work, so that the contrib fileexporter
// and its dependencies never enter the exporter's or the workspace's module
// graph. Run it with the workspace off:
//
//	cd bench/exporter
//	GOWORK=off go test -run '^$' -bench . -benchtime 2s -count 6 > bench.txt
//	benchstat -col /impl bench.txt
//
// The package has no non-test code: everything is in its tests.
package exporterbench
