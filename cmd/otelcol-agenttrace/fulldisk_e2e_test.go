package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/internal/e2eload"
	"github.com/agenttrace/agenttrace/internal/tmpfs"
)

// TestFullDisk: the distribution with the shipped config writes its
// artifacts to a small tmpfs that fills up under SDK load (the sending
// queue is elsewhere, so the receiver keeps acknowledging into it); then
// space is freed. Afterwards every line of every artifact is one JSON
// value (no glued lines), every trailer counts its file, no span is in two
// places, and every acknowledged span is in its artifact: the failed
// writes were truncated back and retried from the queue. The tmpfs is
// large enough for every artifact once the ballast is gone (tmpfs gives
// each small file a page of its own: at 4 MiB the artifacts themselves
// filled it, and what was never written was lost at shutdown).
func TestFullDisk(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end: builds and runs the collector")
	}
	disk := tmpfs.Mount(t, 64<<20)
	bin := buildDistribution(t)
	dir := filepath.Join(disk, "runs")
	require.NoError(t, os.Mkdir(dir, 0o755))
	ballast := tmpfs.Fill(t, disk, 256<<10)
	grpcAddr, httpAddr := freePort(t), freePort(t)

	col := startShippedQueue(t, bin, dir, filepath.Join(t.TempDir(), "queue"), grpcAddr, httpAddr)
	exp, started, stopLoad := startLoad(t, grpcAddr)

	begin := time.Now()
	e2eload.Await(t, 2*time.Minute, "the disk full", func() bool { return tmpfs.FreeBytes(t, disk) < 8<<10 })
	fullAt, ackedAtFull := time.Now(), exp.Acked()
	// The queue keeps acknowledging while the exporter cannot write.
	e2eload.Await(t, 2*time.Minute, "acknowledgements with the disk full", func() bool { return exp.Acked() >= ackedAtFull+6000 })
	ackedWhileFull := exp.Acked() - ackedAtFull
	require.NoError(t, os.Remove(ballast))
	freedAt := time.Now()
	target := exp.Acked() + 2000
	e2eload.Await(t, 2*time.Minute, "acknowledgements after space was freed", func() bool { return exp.Acked() >= target })
	stopLoad()
	acked := exp.AckedSpans()

	drained := e2eload.Poll(time.Minute, func() bool { return e2eload.AllWritten(acked, dir) })
	caughtUp := time.Since(freedAt)
	assert.True(t, drained, "every acknowledged span in an artifact within a minute of the last")
	col.stop(t)

	seen, files, lost := checkArtifacts(t, dir, acked)
	log, _ := os.ReadFile(col.log)
	assert.Contains(t, string(log), "no space left on device", "the exporter's writes failed while the disk was full")
	if t.Failed() {
		// What the collector said of the data it gave up on.
		for _, l := range strings.Split(string(log), "\n") {
			if strings.Contains(l, "Dropping") || strings.Contains(l, "ermanent") || strings.Contains(l, "rror") && !strings.Contains(l, "no space left") {
				t.Logf("collector: %.600s", l)
				break
			}
		}
		t.Logf("collector log (last 2 KB):\n%s", log[max(0, len(log)-2048):])
	}
	t.Logf("full disk: %d spans acknowledged (%d generated), %d of them while the disk was full (%v full), %d in artifacts, %d lost, %d artifacts; all written %v after space was freed; collector log %d bytes; disk full after %v",
		len(acked), started(), ackedWhileFull, freedAt.Sub(fullAt).Round(time.Millisecond), len(seen), lost, files,
		caughtUp.Round(time.Millisecond), len(log), fullAt.Sub(begin).Round(time.Millisecond))
}
