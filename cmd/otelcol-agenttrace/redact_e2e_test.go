package main

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/internal/e2eload"
)

// plantedDir holds the CLI's planted-secrets fixtures (issue 16): every
// secret family, synthetic, in an OTLP/JSON payload; see its README.
const plantedDir = "../agenttrace/testdata/redaction"

// plantedSecrets reads planted.json's secrets by family.
func plantedSecrets(t *testing.T) map[string]string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(plantedDir, "planted.json"))
	require.NoError(t, err)
	var p struct {
		Secrets map[string]string `json:"secrets"`
	}
	require.NoError(t, json.Unmarshal(raw, &p))
	require.NotEmpty(t, p.Secrets)
	return p.Secrets
}

var alnumRun = regexp.MustCompile(`[A-Za-z0-9]+`)

// secretCore is the longest run of letters and digits of s: what is looked
// for in raw bytes, so that an encoding of the punctuation around it (JSON,
// protobuf framing) cannot hide a secret that is there.
func secretCore(s string) string {
	best := ""
	for _, m := range alnumRun.FindAllString(s, -1) {
		if len(m) > len(best) {
			best = m
		}
	}
	return best
}

// plantedLogs carries the planted secrets in log records as the spans of
// the fixture carry them, in context (a secret such as a Basic
// credential's base64 or a URL's password is one only beside what names it):
// every string value of td's span and event attributes that holds one
// becomes a log record's string body, a map body's message content, and
// an attribute holding JSON, in td's first trace.
func plantedLogs(t *testing.T, td ptrace.Traces, secrets map[string]string) plog.Logs {
	t.Helper()
	var texts []string
	var walk func(v pcommon.Value)
	walk = func(v pcommon.Value) {
		switch v.Type() {
		case pcommon.ValueTypeStr:
			for _, s := range secrets {
				if strings.Contains(v.Str(), secretCore(s)) {
					texts = append(texts, v.Str())
					return
				}
			}
		case pcommon.ValueTypeMap:
			for _, e := range v.Map().All() {
				walk(e)
			}
		case pcommon.ValueTypeSlice:
			for _, e := range v.Slice().All() {
				walk(e)
			}
		}
	}
	spans := td.ResourceSpans().At(0).ScopeSpans().At(0).Spans()
	for _, sp := range spans.All() {
		for _, v := range sp.Attributes().All() {
			walk(v)
		}
		for _, ev := range sp.Events().All() {
			for _, v := range ev.Attributes().All() {
				walk(v)
			}
		}
	}
	covered := 0
	for _, s := range secrets {
		for _, text := range texts {
			if strings.Contains(text, secretCore(s)) {
				covered++
				break
			}
		}
	}
	require.Equal(t, len(secrets), covered, "the fixture's attributes carry every planted secret")

	ld := plog.NewLogs()
	rl := ld.ResourceLogs().AppendEmpty()
	rl.Resource().Attributes().PutStr("service.name", "planted-logs")
	lrs := rl.ScopeLogs().AppendEmpty().LogRecords()
	traceID := spans.At(0).TraceID()
	for _, text := range texts {
		str := lrs.AppendEmpty()
		str.SetTraceID(traceID)
		str.Body().SetStr(text)
		kv := lrs.AppendEmpty()
		kv.SetTraceID(traceID)
		m := kv.Body().SetEmptyMap()
		m.PutStr("role", "tool")
		m.PutEmptyMap("message").PutStr("content", text)
		js, err := json.Marshal(map[string]string{"content": text})
		require.NoError(t, err)
		kv.Attributes().PutStr("gen_ai.event.content", string(js))
	}
	return ld
}

// scanDir counts, for each planted secret, the files under dir whose bytes
// hold it: every file, read whole, whatever it is (artifacts, bbolt
// databases, compaction leftovers).
func scanDir(t *testing.T, dir string, secrets map[string]string) (found map[string][]string, files int) {
	t.Helper()
	found = map[string][]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files++
		for family, s := range secrets {
			if strings.Contains(string(b), secretCore(s)) {
				found[family] = append(found[family], filepath.Base(p))
			}
		}
		return nil
	})
	require.NoError(t, err)
	return found, files
}

// TestRedactionBeforeQueue is issue 22's item 4 with the real distribution
// and the shipped config (deploy/collector/agenttrace.yaml: agenttrace_redact
// first, the exporter's sending queue on file_storage): every planted
// secret, sent over OTLP/HTTP in spans (the CLI's OTLP fixture) and in log
// records (string and map bodies, JSON attributes), is in neither the
// artifacts nor any byte of the queue directory, while the collector runs
// (the queue has held the batches: the receiver answers after the queue
// persisted them) and after it stopped (the queue drained). The control
// runs the same config without the processor: the queue directory then
// holds the secrets, which shows that the scan sees what the queue held.
func TestRedactionBeforeQueue(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end: builds and runs the collector")
	}
	secrets := plantedSecrets(t)
	payload := readPayload(t, filepath.Join(plantedDir, "otlp.json"))
	td := unmarshalJSON(t, payload)
	require.Positive(t, td.SpanCount())
	logs := plantedLogs(t, td, secrets)
	traceID := td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0).TraceID()
	bin := buildDistribution(t)

	run := func(t *testing.T, extra ...string) (dir, queue string, during map[string][]string) {
		root := t.TempDir()
		dir, queue = filepath.Join(root, "runs"), filepath.Join(root, "queue")
		col := startShippedLog(t, bin, dir, queue, freePort(t), freePort(t), filepath.Join(root, "collector.log"), extra...)
		e2eload.Await(t, 30*time.Second, "collector listening on "+col.http, func() bool { return dialable(col.http) })
		s := httpSender(col)
		s.traces(t, ptraceCopy(td))
		lc := plog.NewLogs()
		logs.CopyTo(lc)
		s.logs(t, lc)
		during, files := scanDir(t, queue, secrets)
		require.Positive(t, files, "the queue directory holds the file_storage database")
		col.stop(t)
		return dir, queue, during
	}

	t.Run("shipped", func(t *testing.T) {
		dir, queue, during := run(t)
		assert.Empty(t, during, "planted secrets in the queue directory while the collector ran")
		after, _ := scanDir(t, queue, secrets)
		assert.Empty(t, after, "planted secrets in the queue directory after it drained")
		arts, files := scanDir(t, dir, secrets)
		require.Positive(t, files, "artifacts were written")
		assert.Empty(t, arts, "planted secrets in the artifacts")
		raw, err := os.ReadFile(filepath.Join(dir, traceID.String()+".jsonl"))
		require.NoError(t, err, "the planted trace's artifact")
		assert.Contains(t, string(raw), "[REDACTED]")
		assert.Contains(t, string(raw), `"log"`, "the log records reached the artifact")
	})

	t.Run("control without the processor", func(t *testing.T) {
		_, queue, during := run(t,
			"--config", "yaml:service::pipelines::traces::processors: [memory_limiter]",
			"--config", "yaml:service::pipelines::logs::processors: [memory_limiter]")
		after, _ := scanDir(t, queue, secrets)
		t.Logf("without agenttrace_redact: %d of %d families in the queue while running, %d after it drained",
			len(during), len(secrets), len(after))
		assert.NotEmpty(t, after, "the queue directory held no planted secret even unredacted: the scan proves nothing")
	})
}

// ptraceCopy returns a copy of td: the sender's marshaling must not see a
// batch another subtest changed.
func ptraceCopy(td ptrace.Traces) ptrace.Traces {
	c := ptrace.NewTraces()
	td.CopyTo(c)
	return c
}
