//go:build linux

package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/internal/e2eload"
)

// steadyRate is the load of TestGroupByResourceRSS, in spans a second:
// the rate at which issue 13 measured the growth.
const steadyRate = 10_000

// startSteadyLoad is startLoad at a steady rate: four goroutines each
// send an agent run (invoke_agent over three chat calls, service
// "kill-nine") every 4×4/rate seconds, on a schedule, so the rate holds
// whatever the collector's speed (a late run is sent at once, not
// skipped).
func startSteadyLoad(t *testing.T, grpcAddr string, rate int) (exp *e2eload.Sender, started func() int64, stop func()) {
	t.Helper()
	l := e2eload.Start(t, grpcAddr, e2eload.Options{Service: "kill-nine", Scope: "agenttrace/steady", Agent: "steady", Rate: rate})
	return l.Sender, l.Generated, l.Stop
}

// rssBytes reads the resident set size of process pid from /proc.
func rssBytes(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10, err
		}
	}
	return 0, fmt.Errorf("/proc/%d/status: no VmRSS", pid)
}

// TestGroupByResourceRSS: the distribution with the shipped config and
// group_by: resource:service.name (rotate_bytes 8 MiB, rotate_after 5s)
// under steady load from the Go SDK (10,000 spans a second, every span of
// one service, so one artifact lives as long as the traffic) for ~8 s
// (AGENTTRACE_LONG=1: 30 s), its RSS read from /proc every second. Before rotation this grew
// ~70 MB a minute at 10k spans/s and the file got no trailer until the
// collector stopped. Now the RSS of the second half does not keep growing
// (the last sample at most 1.2 × the half-way one + 16 MiB), the artifact
// was rotated while traffic went on, and after a clean stop every file
// has a header, a trailer counting its records and tokens, no span is in
// two files, and every acknowledged span is in one.
func TestGroupByResourceRSS(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end: builds and runs the collector")
	}
	duration := 8 * time.Second
	if os.Getenv("AGENTTRACE_LONG") == "1" {
		duration = 30 * time.Second
	}
	bin := buildDistribution(t)
	root := t.TempDir()
	dir := filepath.Join(root, "runs")
	grpcAddr, httpAddr := freePort(t), freePort(t)
	col := startShippedLog(t, bin, dir, dir+".queue", grpcAddr, httpAddr, filepath.Join(root, "collector.log"),
		"--config", "yaml:exporters::agenttrace::group_by: resource:service.name",
		"--config", "yaml:exporters::agenttrace::rotate_bytes: 8388608",
		"--config", "yaml:exporters::agenttrace::rotate_after: 5s")
	pid := col.cmd.Process.Pid

	exp, started, stopLoad := startSteadyLoad(t, grpcAddr, steadyRate)
	e2eload.Await(t, time.Minute, "the first acknowledgements", func() bool { return exp.Acked() > 0 })
	begin, ackedAtBegin := time.Now(), exp.Acked()
	var rss []int64
	tick := time.NewTicker(time.Second)
	for range int(duration / time.Second) {
		<-tick.C
		v, err := rssBytes(pid)
		require.NoError(t, err, "the collector is running")
		rss = append(rss, v)
	}
	tick.Stop()
	elapsed, ackedInWindow := time.Since(begin), exp.Acked()-ackedAtBegin
	stopLoad()
	acked := exp.AckedSpans()

	drained := e2eload.Poll(time.Minute, func() bool { return e2eload.AllWritten(acked, dir) })
	assert.True(t, drained, "every acknowledged span in an artifact within a minute of the last")
	col.stop(t)

	// Every file: a header, a trailer that counts it, spans once.
	seen := map[string]string{}
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	rotated := 0
	for _, e := range ents {
		name := e.Name()
		if !assert.True(t, name == "service.name-kill-nine.jsonl" || strings.HasPrefix(name, "service.name-kill-nine.R") && strings.HasSuffix(name, ".jsonl"), "unexpected file %s", name) {
			continue
		}
		if strings.Contains(name, ".R") {
			rotated++
		}
		art := e2eload.CheckArtifact(t, filepath.Join(dir, name))
		if art == nil {
			continue
		}
		assert.Equal(t, 1, count(art.Kinds, "meta"), "%s: one header", name)
		for _, id := range art.SpanIDs() {
			if prev, dup := seen[id]; dup {
				t.Errorf("span %s in %s and %s", id, prev, name)
			}
			seen[id] = name
		}
	}
	lost := 0
	for id := range acked {
		if _, ok := seen[id]; !ok {
			lost++
		}
	}
	assert.Zero(t, lost, "acknowledged spans lost")
	assert.Positive(t, rotated, "the artifact was rotated while traffic went on")

	half, last := rss[len(rss)/2], rss[len(rss)-1]
	sorted := slices.Clone(rss)
	slices.Sort(sorted)
	t.Logf("group_by resource:service.name for %v: %d spans acknowledged in the window (%.0f spans/s; %d in all, %d generated), %d files (%d rotated), %d lost; RSS min %.0f / median %.0f / max %.0f MiB, half-way %.0f, last %.0f; samples (MiB) %s",
		elapsed.Round(time.Millisecond), ackedInWindow, float64(ackedInWindow)/elapsed.Seconds(), len(acked), started(),
		len(ents), rotated, lost, mib(sorted[0]), mib(sorted[len(sorted)/2]), mib(sorted[len(sorted)-1]), mib(half), mib(last), mibList(rss))
	assert.LessOrEqual(t, last, half*12/10+16<<20, "RSS does not keep growing under steady traffic")
}

func mib(b int64) float64 { return float64(b) / (1 << 20) }

func mibList(v []int64) string {
	var b bytes.Buffer
	for i, x := range v {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%.0f", mib(x))
	}
	return b.String()
}
