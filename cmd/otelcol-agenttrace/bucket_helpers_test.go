package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/internal/seaweedtest"
	"github.com/agenttrace/agenttrace/store"
)

// bucketConfig is the shipped config that uploads to a bucket.
const bucketConfig = "collector/agenttrace-bucket.yaml"

// bucketPrefix is the key prefix the tests give the bucket URL.
const bucketPrefix = "prod"

// capture is one traces request a real library sent (testdata/real), as
// it sent it (OTLP/HTTP protobuf), and the spans in it.
type capture struct {
	name  string
	body  []byte
	spans map[string]string // span id -> trace id
}

// loadCaptures reads every captured traces request of testdata/real. No
// span id is in two of them, so a span id names one acknowledged span.
func loadCaptures(t *testing.T) []capture {
	t.Helper()
	paths, err := filepath.Glob("../../testdata/real/*/payloads/*.traces.pb")
	require.NoError(t, err)
	require.NotEmpty(t, paths, "no captured payloads under testdata/real")
	sort.Strings(paths)
	seen := map[string]string{}
	var out []capture
	for _, p := range paths {
		body, err := os.ReadFile(p)
		require.NoError(t, err)
		td, err := (&ptrace.ProtoUnmarshaler{}).UnmarshalTraces(body)
		require.NoError(t, err, p)
		c := capture{name: strings.TrimPrefix(p, "../../testdata/real/"), body: body, spans: map[string]string{}}
		forEachSpan(td, func(sp ptrace.Span) {
			id := sp.SpanID().String()
			require.NotContains(t, seen, id, "span %s in %s and %s", id, seen[id], c.name)
			seen[id] = c.name
			c.spans[id] = sp.TraceID().String()
		})
		if len(c.spans) > 0 {
			out = append(out, c)
		}
	}
	return out
}

// forEachSpan calls f with every span of td.
func forEachSpan(td ptrace.Traces, f func(ptrace.Span)) {
	for i := 0; i < td.ResourceSpans().Len(); i++ {
		ss := td.ResourceSpans().At(i).ScopeSpans()
		for j := 0; j < ss.Len(); j++ {
			spans := ss.At(j).Spans()
			for k := 0; k < spans.Len(); k++ {
				f(spans.At(k))
			}
		}
	}
}

// postProto sends an OTLP/HTTP protobuf traces request; a 200 is the
// collector's acknowledgement.
func (c *collector) postProto(t *testing.T, body []byte) {
	t.Helper()
	resp, err := http.Post("http://"+c.http+"/v1/traces", "application/x-protobuf", bytes.NewReader(body))
	require.NoError(t, err)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", b)
}

// startBucketCollector runs bin with the shipped bucket config unchanged
// but for its loopback ports, its own telemetry (off) and finalize_after
// (1s, so that the test does not wait 30 s per run), staging in dir and
// uploading to bucketURL.
func startBucketCollector(t *testing.T, bin, dir, bucketURL, log string) *collector {
	t.Helper()
	cfg, err := filepath.Abs(filepath.Join(deployDir, bucketConfig))
	require.NoError(t, err)
	grpcAddr, httpAddr := freePort(t), freePort(t)
	args := []string{
		"--config", cfg,
		"--config", "yaml:receivers::otlp::protocols::grpc::endpoint: " + grpcAddr,
		"--config", "yaml:receivers::otlp::protocols::http::endpoint: " + httpAddr,
		"--config", "yaml:service::telemetry::metrics::level: none",
		"--config", "yaml:exporters::agenttrace::finalize_after: 1s",
	}
	env := append([]string{
		"AGENTTRACE_DIR=" + dir,
		"AGENTTRACE_QUEUE_DIR=" + dir + ".queue",
		"AGENTTRACE_BUCKET=" + bucketURL,
	}, seaweedtest.ClientEnv()...)
	c := startProcess(t, bin, args, env, grpcAddr, httpAddr, log)
	e2eAwaitDial(t, c, httpAddr)
	return c
}

// staged returns the artifacts (*.jsonl, at any depth) in the staging
// folder dir, by name, and whether each ends with a trailer (finalized).
func staged(t *testing.T, dir string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) {
				return nil
			}
			return err
		}
		if d.IsDir() || !strings.HasSuffix(p, ".jsonl") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil // moved or removed meanwhile
		}
		out[d.Name()] = lastKind(b) == "summary"
		return nil
	})
	require.NoError(t, err)
	return out
}

// lastKind is the "kind" of the last complete line of an artifact.
func lastKind(b []byte) string {
	b = bytes.TrimRight(b[:bytes.LastIndexByte(b, '\n')+1], "\n")
	var l struct {
		Kind string `json:"kind"`
	}
	_ = json.Unmarshal(b[bytes.LastIndexByte(b, '\n')+1:], &l)
	return l.Kind
}

// objectKey is the layout of an artifact object under the prefix
// (issue 23): <prefix>/dt=YYYY-MM-DD/service=<name>/<id>[.g<n>].jsonl.
var objectKey = regexp.MustCompile(`^` + bucketPrefix + `/dt=(\d{4}-\d{2}-\d{2})/service=([^/]+)/([0-9a-f]{32})(?:\.g(\d+))?\.jsonl$`)

// object is one artifact object of the bucket as read back.
type object struct {
	key, etag   string
	date, trace string
	gen         string // "" for the first generation
	service     string // of the header
	startedAt   time.Time
	spans       []string
	body        []byte
}

// bucketObjects reads every object under the prefix but the catalog's:
// each is laid out as objectKey says, its header names its service and
// start (the key's partition), and every line is JSON.
func bucketObjects(ctx context.Context, t *testing.T, s *seaweedtest.Server) map[string]*object {
	t.Helper()
	list, err := s.List(ctx, bucketPrefix+"/")
	require.NoError(t, err)
	out := map[string]*object{}
	for _, o := range list {
		if strings.HasPrefix(o.Key, bucketPrefix+"/catalog/") {
			continue
		}
		m := objectKey.FindStringSubmatch(o.Key)
		if !assert.NotNil(t, m, "object key %q is not laid out as <prefix>/dt=<day>/service=<name>/<trace id>[.g<n>].jsonl", o.Key) {
			continue
		}
		body, etag, err := s.Get(ctx, o.Key)
		require.NoError(t, err)
		obj := &object{key: o.Key, etag: etag, date: m[1], trace: m[3], gen: m[4], body: body}
		readObject(t, obj)
		out[o.Key] = obj
	}
	// A run's partition is its first generation's header's (service,
	// UTC day it started); later generations stay in it.
	for trace, gens := range runsOf(out) {
		g1 := gens[0]
		if !assert.Empty(t, g1.gen, "run %s: no first generation, only %s", trace, g1.key) {
			continue
		}
		assert.Equal(t, store.Name(g1.service), objectKey.FindStringSubmatch(g1.key)[2], "%s: the service partition is the header's service, named as the store names files", g1.key)
		assert.Equal(t, g1.startedAt.UTC().Format(time.DateOnly), g1.date, "%s: the day partition is the day the run started (UTC)", g1.key)
		for _, g := range gens[1:] {
			assert.Equal(t, path.Dir(g1.key), path.Dir(g.key), "%s: a later generation in its run's partition", g.key)
		}
	}
	return out
}

// readObject reads an object's header and span ids; every line must be
// JSON, the first a header, the last a trailer.
func readObject(t *testing.T, o *object) {
	t.Helper()
	sc := bufio.NewScanner(bytes.NewReader(o.body))
	sc.Buffer(nil, 16<<20)
	var kinds []string
	for sc.Scan() {
		var l struct {
			Kind      string    `json:"kind"`
			SpanID    string    `json:"span_id"`
			TraceID   string    `json:"trace_id"`
			Service   string    `json:"service"`
			StartedAt time.Time `json:"started_at"`
		}
		if !assert.NoError(t, json.Unmarshal(sc.Bytes(), &l), "%s: %s", o.key, sc.Bytes()) {
			return
		}
		kinds = append(kinds, l.Kind)
		switch {
		case l.Kind == "meta":
			o.service, o.startedAt = l.Service, l.StartedAt
		case l.Kind != "summary" && l.SpanID != "":
			assert.Equal(t, o.trace, l.TraceID, "%s: span %s of another trace", o.key, l.SpanID)
			o.spans = append(o.spans, l.SpanID)
		}
	}
	require.NoError(t, sc.Err(), o.key)
	require.NotEmpty(t, kinds, "%s: empty object", o.key)
	assert.Equal(t, "meta", kinds[0], "%s: a header first", o.key)
	assert.Equal(t, "summary", kinds[len(kinds)-1], "%s: a trailer last", o.key)
	if o.service == "" {
		o.service = "unknown_service"
	}
}

// spanPlaces returns, for every span id in the objects, the keys of the
// objects holding it.
func spanPlaces(objs map[string]*object) map[string][]string {
	out := map[string][]string{}
	for key, o := range objs {
		for _, id := range o.spans {
			out[id] = append(out[id], key)
		}
	}
	return out
}

// checkEveryAckedSpanOnce: every acknowledged span (span id -> trace id)
// is in exactly one object, of its trace; it returns the numbers lost and
// duplicated.
func checkEveryAckedSpanOnce(t *testing.T, objs map[string]*object, acked map[string]string) (lost, dup int) {
	t.Helper()
	places := spanPlaces(objs)
	for id, trace := range acked {
		keys := places[id]
		switch {
		case len(keys) == 0:
			lost++
			continue
		case len(keys) > 1:
			dup++
			t.Errorf("span %s (trace %s) in %d objects: %v", id, trace, len(keys), keys)
		}
		assert.Equal(t, trace, objs[keys[0]].trace, "span %s in its trace's object", id)
	}
	assert.Zero(t, lost, "acknowledged spans in no object")
	assert.Zero(t, dup, "acknowledged spans in more than one object")
	return lost, dup
}
