package main

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"

	"github.com/agenttrace/agenttrace/internal/clibuild"
	"github.com/agenttrace/agenttrace/internal/e2eload"
	"github.com/agenttrace/agenttrace/internal/seaweedtest"
)

// TestBucketEndToEnd runs the distribution with the shipped bucket config
// (deploy/collector/agenttrace-bucket.yaml) against a real S3-compatible
// server on loopback (SeaweedFS, internal/seaweedtest), fed every captured
// traces request of testdata/real over OTLP/HTTP, in three groups:
//
//  1. steadily; then a late span of an uploaded run, which goes to the
//     run's next generation (<id>.g2.jsonl);
//  2. with the server down: the runs are finalized in the staging folder
//     and cannot be uploaded; the collector is killed with SIGKILL, the
//     server started again, the collector restarted;
//  3. with the server hung (SIGSTOP) while the collector uploads: killed
//     with SIGKILL mid-upload, the server resumed (it may complete the
//     upload it had received), the collector restarted.
//
// Then every acknowledged span is in exactly one object, of its trace
// (0 lost, 0 duplicated), every object is laid out by day and service,
// no object was ever replaced (ETags; a create-only PUT of a taken key is
// refused), the staging folder is empty, and `agenttrace tokens` of a run
// read back from the bucket (bucket.OpenURL, its generations merged)
// equals `tokens` of local copies of its objects.
func TestBucketEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end: builds and runs the collector and an S3 server")
	}
	weed := seaweedtest.Start(t, "runs")
	bin, cli := buildDistribution(t), clibuild.Path(t)
	ctx := context.Background()
	root := t.TempDir()
	dir := filepath.Join(root, "runs")
	bucketURL := weed.URL(bucketPrefix)
	caps := loadCaptures(t)
	require.GreaterOrEqual(t, len(caps), 9, "captured requests")
	third := len(caps) / 3
	groups := [][]capture{caps[:third], caps[third : 2*third], caps[2*third:]}

	acked := map[string]string{} // span id -> trace id, of every 200
	began := time.Now()
	phase := func(what string) { t.Logf("%v: %s", time.Since(began).Round(time.Millisecond), what) }
	runs := 0
	start := func() *collector {
		runs++
		return startBucketCollector(t, bin, dir, bucketURL, filepath.Join(root, fmt.Sprintf("collector-%d.log", runs)))
	}
	send := func(c *collector, group []capture) {
		for _, cp := range group {
			c.postProto(t, cp.body)
			for id, trace := range cp.spans {
				acked[id] = trace
			}
		}
	}

	// 1. Steadily, then a late span.
	col := start()
	send(col, groups[0])
	awaitUploaded(ctx, t, weed, dir, acked, nil)
	first := bucketObjects(ctx, t, weed)
	checkEveryAckedSpanOnce(t, first, acked)
	checkCreateOnly(ctx, t, weed, first)
	phase(fmt.Sprintf("group 1: %d requests uploaded as %d objects", len(groups[0]), len(first)))

	late := lateSpan(t, groups[0][0])
	col.postProto(t, late.body)
	for id, trace := range late.spans {
		acked[id] = trace
	}
	lateTrace := late.spans[firstKey(late.spans)]
	awaitUploaded(ctx, t, weed, dir, acked, func(keys []string) bool {
		return hasKey(keys, func(o *object) bool { return o.trace == lateTrace && o.gen == "2" })
	})

	phase("late span uploaded as a second generation")

	// 2. kill -9 between finalization and upload: the server is down.
	weed.Stop(t)
	send(col, groups[1])
	awaitFinalized(t, dir, groups[1])
	phase(fmt.Sprintf("group 2: %d requests finalized with the server down", len(groups[1])))
	col.kill9(t)
	for name, final := range staged(t, dir) {
		assert.True(t, final, "%s: staged, finalized, not uploaded", name)
	}
	weed.Restart(t)
	col = start()
	awaitUploaded(ctx, t, weed, dir, acked, nil)
	phase("group 2 uploaded after kill -9 and restarts")

	// 3. kill -9 mid-upload: the server hangs.
	weed.Pause(t)
	send(col, groups[2])
	awaitFinalized(t, dir, groups[2])
	// An upload is under way: a request of it waits in the hung
	// server's connection.
	e2eload.Await(t, time.Minute, "an upload's request held by the hung server", func() bool {
		n, err := weed.PendingBytes()
		require.NoError(t, err)
		return n > 0
	})
	phase(fmt.Sprintf("group 3: %d requests finalized, an upload's request held by the hung server", len(groups[2])))
	col.kill9(t)
	weed.Resume(t)
	// The server completes what it had received from the dead process
	// before the collector starts again.
	e2eload.Await(t, time.Minute, "the hung server's pending requests read", func() bool {
		n, err := weed.PendingBytes()
		require.NoError(t, err)
		return n == 0
	})
	before := bucketKeys(ctx, t, weed)
	col = start()
	awaitUploaded(ctx, t, weed, dir, acked, nil)
	col.stop(t)
	phase("group 3 uploaded after kill -9 and a restart")
	completed := 0
	for _, cp := range groups[2] {
		for _, trace := range cp.spans {
			if before[trace] {
				completed++
				break
			}
		}
	}
	t.Logf("group 3: %d of %d requests' runs were in the bucket before the restart (uploads of the killed collector the server completed)", completed, len(groups[2]))

	final := bucketObjects(ctx, t, weed)
	lost, dup := checkEveryAckedSpanOnce(t, final, acked)
	for key, o := range first {
		if assert.Contains(t, final, key, "an uploaded object stays") {
			assert.Equal(t, o.etag, final[key].etag, "%s: never replaced", key)
		}
	}
	assert.Empty(t, staged(t, dir), "nothing left in the staging folder")

	checked := checkMergedReads(ctx, t, cli, weed, final)
	rows := checkCatalog(t, cli, weed, final)
	t.Logf("bucket e2e: %d requests from testdata/real, %d acknowledged spans, %d objects (%d runs), %d lost, %d duplicated; tokens of %d runs read back from the bucket equal their local copies; %d catalog rows equal tokens --json of their runs",
		len(caps)+1, len(acked), len(final), len(runsOf(final)), lost, dup, checked, rows)
}

// awaitUploaded waits until every acknowledged span's trace has an
// object, the staging folder holds no artifact, and more (when not nil)
// holds of the object keys.
func awaitUploaded(ctx context.Context, t *testing.T, s *seaweedtest.Server, dir string, acked map[string]string, more func(keys []string) bool) {
	t.Helper()
	traces := map[string]bool{}
	for _, trace := range acked {
		traces[trace] = true
	}
	e2eload.Await(t, 2*time.Minute, fmt.Sprintf("%d runs uploaded and the staging folder empty", len(traces)), func() bool {
		if len(staged(t, dir)) > 0 {
			return false
		}
		list, err := s.List(ctx, bucketPrefix+"/")
		if err != nil {
			return false
		}
		var keys []string
		have := map[string]bool{}
		for _, o := range list {
			keys = append(keys, o.Key)
			if m := objectKey.FindStringSubmatch(o.Key); m != nil {
				have[m[3]] = true
			}
		}
		for trace := range traces {
			if !have[trace] {
				return false
			}
		}
		return more == nil || more(keys)
	})
}

// bucketKeys returns the trace ids that have an object.
func bucketKeys(ctx context.Context, t *testing.T, s *seaweedtest.Server) map[string]bool {
	t.Helper()
	list, err := s.List(ctx, bucketPrefix+"/")
	require.NoError(t, err)
	out := map[string]bool{}
	for _, o := range list {
		if m := objectKey.FindStringSubmatch(o.Key); m != nil {
			out[m[3]] = true
		}
	}
	return out
}

// awaitFinalized waits until the run of every trace of group is finalized
// (its trailer last) in the staging folder.
func awaitFinalized(t *testing.T, dir string, group []capture) {
	t.Helper()
	want := map[string]bool{}
	for _, c := range group {
		for _, trace := range c.spans {
			want[trace+".jsonl"] = true
		}
	}
	e2eload.Await(t, time.Minute, fmt.Sprintf("%d runs finalized in the staging folder", len(want)), func() bool {
		got := staged(t, dir)
		for name := range want {
			if !got[name] {
				return false
			}
		}
		return true
	})
}

// hasKey reports whether a key laid out as an artifact's satisfies f.
func hasKey(keys []string, f func(*object) bool) bool {
	for _, k := range keys {
		if m := objectKey.FindStringSubmatch(k); m != nil && f(&object{key: k, date: m[1], trace: m[3], gen: m[4]}) {
			return true
		}
	}
	return false
}

// checkCreateOnly: a create-only PUT (If-None-Match: *) of a taken key is
// refused by the server and the object keeps its ETag.
func checkCreateOnly(ctx context.Context, t *testing.T, s *seaweedtest.Server, objs map[string]*object) {
	t.Helper()
	require.NotEmpty(t, objs)
	key := firstKey(objs)
	_, err := s.Put(ctx, key, []byte(`{"kind":"meta"}`+"\n"), true)
	require.ErrorIs(t, err, seaweedtest.ErrPreconditionFailed, "a create-only PUT of %s", key)
	_, etag, err := s.Get(ctx, key)
	require.NoError(t, err)
	assert.Equal(t, objs[key].etag, etag, "%s kept", key)
}

// lateSpan is a request with one new span of c's first trace: a copy of
// one of its spans (the same resource, scope, start and attributes) under
// a new span id, a child of the span copied.
func lateSpan(t *testing.T, c capture) capture {
	t.Helper()
	td, err := (&ptrace.ProtoUnmarshaler{}).UnmarshalTraces(c.body)
	require.NoError(t, err)
	rs := td.ResourceSpans().At(0)
	ss := rs.ScopeSpans().At(0)
	orig := ss.Spans().At(0)
	out := ptrace.NewTraces()
	nrs := out.ResourceSpans().AppendEmpty()
	rs.Resource().CopyTo(nrs.Resource())
	nss := nrs.ScopeSpans().AppendEmpty()
	ss.Scope().CopyTo(nss.Scope())
	sp := nss.Spans().AppendEmpty()
	orig.CopyTo(sp)
	var id pcommon.SpanID
	binary.BigEndian.PutUint64(id[:], 0x1a7e5a0000000001)
	sp.SetSpanID(id)
	sp.SetParentSpanID(orig.SpanID())
	sp.SetName(orig.Name() + " (late)")
	body, err := ptraceotlp.NewExportRequestFromTraces(out).MarshalProto()
	require.NoError(t, err)
	return capture{name: "late span of " + c.name, body: body, spans: map[string]string{id.String(): sp.TraceID().String()}}
}

// firstKey is the smallest key of m.
func firstKey[V any](m map[string]V) string {
	first := ""
	for k := range m {
		if first == "" || k < first {
			first = k
		}
	}
	return first
}

// runsOf groups objects by run: trace id -> its objects, first
// generation first.
func runsOf(objs map[string]*object) map[string][]*object {
	out := map[string][]*object{}
	for _, o := range objs {
		out[o.trace] = append(out[o.trace], o)
	}
	for _, gens := range out {
		slices.SortFunc(gens, func(a, b *object) int { return genNumber(a) - genNumber(b) })
	}
	return out
}

// genNumber is an object's generation: 1 for the first (no .g suffix).
func genNumber(o *object) int {
	if o.gen == "" {
		return 1
	}
	n, _ := strconv.Atoi(o.gen)
	return n
}

// runCLI runs the agenttrace CLI with the S3 client's environment and
// returns its stdout, failing the test on a non-zero exit.
func runCLI(t *testing.T, cli string, args ...string) string {
	t.Helper()
	cmd := exec.Command(cli, args...)
	cmd.Env = append(os.Environ(), seaweedtest.ClientEnv()...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "agenttrace %s:\n%s", strings.Join(args, " "), stderr.String())
	return string(out)
}
