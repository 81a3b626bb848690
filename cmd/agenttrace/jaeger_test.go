package main

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// jaegerConfig is the config the deploy docs tell people to run Jaeger
// with; the test runs that very file, on free ports.
const jaegerConfig = "../../deploy/jaeger/jaeger-loopback.yaml"

// TestJaeger sends artifacts to a real Jaeger v2 (all-in-one, in-memory,
// built by deploy/jaeger/build.sh) over OTLP/gRPC and OTLP/HTTP, and reads
// them back through Jaeger's query API: every span arrives with its
// parent, name, attributes as tags, events as logs, status and service.
// The expectations come from the artifacts themselves.
//
// AGENTTRACE_JAEGER is the path of the jaeger binary; without it the test
// is skipped, unless AGENTTRACE_REQUIRE_JAEGER=1 (as in CI), which makes
// a missing binary a failure.
func TestJaeger(t *testing.T) {
	bin := os.Getenv("AGENTTRACE_JAEGER")
	if bin == "" {
		if os.Getenv("AGENTTRACE_REQUIRE_JAEGER") == "1" {
			t.Fatal("AGENTTRACE_REQUIRE_JAEGER=1 but AGENTTRACE_JAEGER is not set; build Jaeger with deploy/jaeger/build.sh")
		}
		t.Skip("AGENTTRACE_JAEGER is not set; AGENTTRACE_JAEGER=$(deploy/jaeger/build.sh) runs this test")
	}
	t.Parallel()
	j := startJaeger(t, bin)

	sends := []struct{ path, protocol, endpoint string }{
		{sendArtifact, "grpc", j.otlpGRPC},
		{"../../testdata/golden/conversation.jsonl", "http", j.otlpHTTP},
	}
	for _, s := range sends {
		r := agenttrace(t, "", "send", s.path, "--protocol", s.protocol, "--endpoint", s.endpoint, "--insecure")
		require.Equal(t, 0, r.code, "send %s over %s: %s", s.path, s.protocol, r.stderr)
	}

	var errorSpans, toolSpans, usageSpans int
	for _, s := range sends {
		want := readArtifact(t, s.path)
		for traceID, spans := range spansByTrace(want) {
			got := j.awaitTrace(t, traceID, len(spans))
			for _, w := range spans {
				g, ok := got.span(w.span.SpanID())
				if !assert.True(t, ok, "span %s (%s) of %s is missing", w.span.SpanID(), w.span.Name(), s.path) {
					continue
				}
				checkJaegerSpan(t, got, g, w)
				if w.span.Status().Code() == ptrace.StatusCodeError {
					errorSpans++
				}
				if _, ok := w.span.Attributes().Get("gen_ai.tool.name"); ok {
					toolSpans++
				}
				if _, ok := w.span.Attributes().Get("gen_ai.usage.input_tokens"); ok {
					usageSpans++
				}
			}
		}
	}
	// The inputs were chosen to cover these; without them the comparisons
	// above would not show that Jaeger got them right.
	assert.Positive(t, errorSpans, "no failed span was checked")
	assert.Positive(t, toolSpans, "no tool span was checked")
	assert.Positive(t, usageSpans, "no span with token usage was checked")

	checkShiftToNow(t, j, sends[0].path, sends[1].path)
	j.checkLoopbackOnly(t)
}

// shiftedRun is the run TestJaeger sends with --shift-to-now; its
// service is that of the runs sent without it.
const shiftedRun = "../../testdata/golden/genai-v141.jsonl"

// checkShiftToNow: a run sent with --shift-to-now is found by Jaeger's
// trace search over the last hour, the lookback its UI searches by
// default, with its spans' durations and distances kept; the runs sent
// as they were recorded (old, listed in unshifted) are stored but not
// found by that search, which is why the flag exists.
func checkShiftToNow(t *testing.T, j *jaeger, unshifted ...string) {
	t.Helper()
	want := readArtifact(t, shiftedRun)
	byTrace := spansByTrace(want)
	require.Len(t, byTrace, 1, "%s: one trace", shiftedRun)
	var traceID string
	for id := range byTrace {
		traceID = id
	}
	service, _ := byTrace[traceID][0].resource.Attributes().Get("service.name")

	r := agenttrace(t, "", "send", shiftedRun, "--protocol", "http", "--endpoint", j.otlpHTTP, "--insecure", "--shift-to-now")
	require.Equal(t, 0, r.code, "send %s --shift-to-now: %s", shiftedRun, r.stderr)

	// The search the UI makes by default: the service, the last hour.
	var found []string
	j.poll(t, 30*time.Second, "the shifted run in a search of the last hour", func() (bool, error) {
		end := time.Now()
		ids, err := j.search(service.Str(), end.Add(-time.Hour), end)
		found = ids
		return slices.Contains(ids, traceID), err
	})
	for _, path := range unshifted {
		for id := range spansByTrace(readArtifact(t, path)) {
			assert.NotContains(t, found, id, "%s, sent as recorded, is older than an hour", path)
		}
	}

	// Moved, not changed: durations and the distances between starts.
	got := j.awaitTrace(t, traceID, len(byTrace[traceID]))
	var wantFirst, gotFirst uint64 = ^uint64(0), ^uint64(0)
	for _, w := range byTrace[traceID] {
		wantFirst = min(wantFirst, uint64(w.span.StartTimestamp())/1000)
	}
	for _, g := range got.Spans {
		gotFirst = min(gotFirst, g.StartTime)
	}
	for _, w := range byTrace[traceID] {
		g, ok := got.span(w.span.SpanID())
		if !assert.True(t, ok, "span %s is missing", w.span.SpanID()) {
			continue
		}
		assert.Equal(t, uint64(w.span.EndTimestamp()-w.span.StartTimestamp())/1000, g.Duration, "span %s: duration", w.span.SpanID())
		assert.Equal(t, uint64(w.span.StartTimestamp())/1000-wantFirst, g.StartTime-gotFirst, "span %s: start within the run", w.span.SpanID())
	}
}

// search runs Jaeger's trace search (GET /api/traces, as its UI does) for
// a service between start and end, and returns the trace ids found.
func (j *jaeger) search(service string, start, end time.Time) ([]string, error) {
	q := url.Values{
		"service": {service},
		"start":   {strconv.FormatInt(start.UnixMicro(), 10)},
		"end":     {strconv.FormatInt(end.UnixMicro(), 10)},
		"limit":   {"100"},
	}
	u := "http://" + j.query + "/api/traces?" + q.Encode()
	resp, err := http.Get(u)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", u, resp.Status)
	}
	var body jaegerResponse
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		return nil, fmt.Errorf("GET %s: %w", u, err)
	}
	ids := make([]string, 0, len(body.Data))
	for _, tr := range body.Data {
		ids = append(ids, tr.TraceID)
	}
	return ids, nil
}

// wantSpan is a span of the artifact with its resource.
type wantSpan struct {
	span     ptrace.Span
	resource pcommon.Resource
}

// spansByTrace groups the spans of td by trace id (hex, as Jaeger's API
// takes it).
func spansByTrace(td ptrace.Traces) map[string][]wantSpan {
	out := map[string][]wantSpan{}
	for _, rs := range td.ResourceSpans().All() {
		for _, ss := range rs.ScopeSpans().All() {
			for _, sp := range ss.Spans().All() {
				id := sp.TraceID().String()
				out[id] = append(out[id], wantSpan{span: sp, resource: rs.Resource()})
			}
		}
	}
	return out
}

// checkJaegerSpan compares one span as Jaeger's query API returns it
// (see docs: OTLP to Jaeger JSON) with the span of the artifact.
func checkJaegerSpan(t *testing.T, tr *jaegerTrace, g *jaegerSpan, w wantSpan) {
	t.Helper()
	sp := w.span
	what := fmt.Sprintf("span %s (%s)", sp.SpanID(), sp.Name())
	assert.Equal(t, sp.Name(), g.OperationName, what)
	assert.Equal(t, uint64(sp.StartTimestamp())/1000, g.StartTime, what+": start")
	assert.Equal(t, uint64(sp.EndTimestamp()-sp.StartTimestamp())/1000, g.Duration, what+": duration")

	// The parent is references[0], CHILD_OF; links follow as FOLLOWS_FROM.
	var refs []jaegerRef
	if !sp.ParentSpanID().IsEmpty() {
		refs = append(refs, jaegerRef{RefType: "CHILD_OF", TraceID: sp.TraceID().String(), SpanID: sp.ParentSpanID().String()})
	}
	for _, l := range sp.Links().All() {
		refs = append(refs, jaegerRef{RefType: "FOLLOWS_FROM", TraceID: l.TraceID().String(), SpanID: l.SpanID().String()})
	}
	if len(refs) == 0 {
		assert.Empty(t, g.References, what+": references") // [] or null
	} else {
		assert.Equal(t, refs, g.References, what+": references")
	}

	// Every attribute is a tag of the matching type; arrays and maps
	// become JSON strings.
	for k, v := range sp.Attributes().All() {
		tag, ok := g.tag(k)
		if assert.True(t, ok, "%s: tag %s is missing", what, k) {
			assert.Equal(t, jaegerValue(v), tag.typed(), "%s: tag %s", what, k)
		}
	}
	status := sp.Status()
	switch status.Code() {
	case ptrace.StatusCodeError:
		assert.Equal(t, jaegerTyped{"bool", "true"}, g.mustTag(t, "error").typed(), what)
		assert.Equal(t, jaegerTyped{"string", "ERROR"}, g.mustTag(t, "otel.status_code").typed(), what)
		if status.Message() != "" {
			assert.Equal(t, jaegerTyped{"string", status.Message()}, g.mustTag(t, "otel.status_description").typed(), what)
		}
	case ptrace.StatusCodeOk:
		assert.Equal(t, jaegerTyped{"string", "OK"}, g.mustTag(t, "otel.status_code").typed(), what)
		fallthrough
	default:
		_, failed := g.tag("error")
		assert.False(t, failed, what+": error tag on a span that did not fail")
	}
	if sp.Kind() != ptrace.SpanKindUnspecified {
		assert.Equal(t, jaegerTyped{"string", strings.ToLower(sp.Kind().String())}, g.mustTag(t, "span.kind").typed(), what)
	}

	// Events are logs, named by an "event" field.
	if assert.Len(t, g.Logs, sp.Events().Len(), what+": logs") {
		for i, ev := range sp.Events().All() {
			log := g.Logs[i]
			assert.Equal(t, uint64(ev.Timestamp())/1000, log.Timestamp, what+": log time")
			var names []jaegerTyped
			for _, f := range log.Fields {
				if f.Key == "event" {
					names = append(names, f.typed())
				}
			}
			assert.Equal(t, []jaegerTyped{{"string", ev.Name()}}, names, what+": log name")
		}
	}

	// The resource's service.name is the process's service.
	proc, ok := tr.Processes[g.ProcessID]
	if assert.True(t, ok, what+": process %q", g.ProcessID) {
		name, _ := w.resource.Attributes().Get("service.name")
		assert.Equal(t, name.Str(), proc.ServiceName, what)
	}
}

// jaegerTyped is a tag's type and value, the value in a canonical text
// form so that numbers compare exactly.
type jaegerTyped struct{ Type, Value string }

// jaegerValue is how Jaeger shows an OTLP attribute value.
func jaegerValue(v pcommon.Value) jaegerTyped {
	switch v.Type() {
	case pcommon.ValueTypeStr:
		return jaegerTyped{"string", v.Str()}
	case pcommon.ValueTypeInt:
		return jaegerTyped{"int64", strconv.FormatInt(v.Int(), 10)}
	case pcommon.ValueTypeDouble:
		return jaegerTyped{"float64", strconv.FormatFloat(v.Double(), 'g', -1, 64)}
	case pcommon.ValueTypeBool:
		return jaegerTyped{"bool", strconv.FormatBool(v.Bool())}
	case pcommon.ValueTypeBytes:
		return jaegerTyped{"binary", base64.StdEncoding.EncodeToString(v.Bytes().AsRaw())}
	default: // maps and arrays: their JSON, as a string
		return jaegerTyped{"string", v.AsString()}
	}
}

// Jaeger's JSON trace model, as far as the test reads it.
type (
	jaegerResponse struct {
		Data   []jaegerTrace     `json:"data"`
		Errors []json.RawMessage `json:"errors"`
	}
	jaegerTrace struct {
		TraceID   string                   `json:"traceID"`
		Spans     []jaegerSpan             `json:"spans"`
		Processes map[string]jaegerProcess `json:"processes"`
	}
	jaegerSpan struct {
		SpanID        string      `json:"spanID"`
		OperationName string      `json:"operationName"`
		References    []jaegerRef `json:"references"`
		StartTime     uint64      `json:"startTime"`
		Duration      uint64      `json:"duration"`
		Tags          []jaegerKV  `json:"tags"`
		Logs          []struct {
			Timestamp uint64     `json:"timestamp"`
			Fields    []jaegerKV `json:"fields"`
		} `json:"logs"`
		ProcessID string `json:"processID"`
	}
	jaegerRef struct {
		RefType string `json:"refType"`
		TraceID string `json:"traceID"`
		SpanID  string `json:"spanID"`
	}
	jaegerKV struct {
		Key   string          `json:"key"`
		Type  string          `json:"type"`
		Value json.RawMessage `json:"value"`
	}
	jaegerProcess struct {
		ServiceName string `json:"serviceName"`
	}
)

func (tr *jaegerTrace) span(id pcommon.SpanID) (*jaegerSpan, bool) {
	for i := range tr.Spans {
		if tr.Spans[i].SpanID == id.String() {
			return &tr.Spans[i], true
		}
	}
	return nil, false
}

func (s *jaegerSpan) tag(key string) (jaegerKV, bool) {
	for _, kv := range s.Tags {
		if kv.Key == key {
			return kv, true
		}
	}
	return jaegerKV{}, false
}

func (s *jaegerSpan) mustTag(t *testing.T, key string) jaegerKV {
	t.Helper()
	kv, ok := s.tag(key)
	assert.True(t, ok, "span %s (%s): tag %s is missing", s.SpanID, s.OperationName, key)
	return kv
}

// typed is the tag in jaegerValue's form: strings unquoted, numbers as
// written (Jaeger writes int64 tags as JSON numbers, exactly).
func (kv jaegerKV) typed() jaegerTyped {
	var s string
	if err := json.Unmarshal(kv.Value, &s); err == nil {
		return jaegerTyped{kv.Type, s}
	}
	if kv.Type == "float64" {
		if f, err := strconv.ParseFloat(string(kv.Value), 64); err == nil {
			return jaegerTyped{kv.Type, strconv.FormatFloat(f, 'g', -1, 64)}
		}
	}
	return jaegerTyped{kv.Type, string(kv.Value)}
}

// jaeger is a running Jaeger all-in-one process.
type jaeger struct {
	cmd                       *exec.Cmd
	otlpGRPC, otlpHTTP, query string          // host:port
	health                    string          // host:port
	ports                     map[string]bool // every port it was given
	exited                    chan struct{}   // closed when the process has ended
	log                       *syncBuffer
}

// startJaeger runs bin with the deploy config on free loopback ports and
// waits until its health check says it is ready. Cleanup stops it and, if
// the test failed, logs its output.
func startJaeger(t *testing.T, bin string) *jaeger {
	t.Helper()
	ports := freePorts(t, 5)
	j := &jaeger{
		otlpGRPC: fmt.Sprintf("127.0.0.1:%d", ports[0]),
		otlpHTTP: fmt.Sprintf("127.0.0.1:%d", ports[1]),
		query:    fmt.Sprintf("127.0.0.1:%d", ports[2]),
		health:   fmt.Sprintf("127.0.0.1:%d", ports[4]),
		ports:    map[string]bool{},
		exited:   make(chan struct{}),
		log:      &syncBuffer{},
	}
	for _, p := range ports {
		j.ports[strconv.Itoa(p)] = true
	}
	config, err := filepath.Abs(jaegerConfig)
	require.NoError(t, err)
	j.cmd = exec.Command(bin, "--config", config)
	j.cmd.Env = append(os.Environ(),
		fmt.Sprintf("JAEGER_OTLP_GRPC_PORT=%d", ports[0]),
		fmt.Sprintf("JAEGER_OTLP_HTTP_PORT=%d", ports[1]),
		fmt.Sprintf("JAEGER_QUERY_HTTP_PORT=%d", ports[2]),
		fmt.Sprintf("JAEGER_QUERY_GRPC_PORT=%d", ports[3]),
		fmt.Sprintf("JAEGER_HEALTH_PORT=%d", ports[4]),
	)
	j.cmd.Stdout, j.cmd.Stderr = j.log, j.log
	require.NoError(t, j.cmd.Start(), "start %s", bin)
	go func() {
		_ = j.cmd.Wait()
		close(j.exited)
	}()
	t.Cleanup(func() {
		// SIGTERM lets Jaeger shut down cleanly; one that hangs is killed.
		_ = j.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-j.exited:
		case <-time.After(10 * time.Second):
			_ = j.cmd.Process.Kill()
			<-j.exited
		}
		if t.Failed() {
			t.Logf("jaeger output:\n%s", j.log.String())
		}
	})

	// Startup takes tens of milliseconds; the deadline is for a loaded
	// machine loading a 120 MB binary.
	j.poll(t, 60*time.Second, "the health check at "+j.health+"/status", func() (bool, error) {
		resp, err := http.Get("http://" + j.health + "/status")
		if err != nil {
			return false, nil // not listening yet
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK, nil
	})
	return j
}

// poll calls ready until it reports true, failing the test if the
// deadline passes or Jaeger exits first.
func (j *jaeger) poll(t *testing.T, timeout time.Duration, what string, ready func() (bool, error)) {
	t.Helper()
	deadline := time.After(timeout)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		ok, err := ready()
		require.NoError(t, err, what)
		if ok {
			return
		}
		select {
		case <-j.exited:
			t.Fatalf("jaeger exited while waiting for %s (its output follows)", what)
		case <-deadline:
			t.Fatalf("timed out after %s waiting for %s", timeout, what)
		case <-tick.C:
		}
	}
}

// awaitTrace polls the query API until the trace has n spans: spans are
// stored asynchronously (after the batch processor's timeout), so the
// first reads may find nothing or part of the trace.
func (j *jaeger) awaitTrace(t *testing.T, traceID string, n int) *jaegerTrace {
	t.Helper()
	var tr jaegerTrace
	url := "http://" + j.query + "/api/traces/" + traceID
	j.poll(t, 30*time.Second, fmt.Sprintf("%d spans at %s", n, url), func() (bool, error) {
		resp, err := http.Get(url)
		if err != nil {
			return false, err
		}
		defer resp.Body.Close()
		if resp.StatusCode == http.StatusNotFound {
			return false, nil
		}
		if resp.StatusCode != http.StatusOK {
			return false, fmt.Errorf("GET %s: %s", url, resp.Status)
		}
		var body jaegerResponse
		if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
			return false, fmt.Errorf("GET %s: %w", url, err)
		}
		if len(body.Data) != 1 {
			return false, nil
		}
		tr = body.Data[0]
		if len(tr.Spans) > n {
			return false, fmt.Errorf("GET %s: %d spans, want %d", url, len(tr.Spans), n)
		}
		return len(tr.Spans) == n, nil
	})
	require.Equal(t, traceID, tr.TraceID)
	return &tr
}

// checkLoopbackOnly asserts that every socket Jaeger listens on is on a
// loopback address and one of the ports the test gave it: the deploy
// config must leave nothing open to the network (Jaeger's defaults open
// the query service on every interface). It reads /proc, so it runs on
// Linux only.
func (j *jaeger) checkLoopbackOnly(t *testing.T) {
	t.Helper()
	pid := j.cmd.Process.Pid
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if os.IsNotExist(err) {
		t.Log("no /proc: listening addresses not checked")
		return
	}
	require.NoError(t, err)
	inodes := map[string]bool{}
	for _, fd := range fds {
		link, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name()))
		if err == nil && strings.HasPrefix(link, "socket:[") {
			inodes[strings.TrimSuffix(strings.TrimPrefix(link, "socket:["), "]")] = true
		}
	}
	var listening []string
	for _, table := range []string{"tcp", "tcp6", "udp", "udp6"} {
		raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/net/%s", pid, table))
		require.NoError(t, err)
		for _, line := range strings.Split(string(raw), "\n")[1:] {
			f := strings.Fields(line)
			if len(f) < 10 || !inodes[f[9]] {
				continue
			}
			// TCP sockets in state 0A listen; any UDP socket receives.
			if strings.HasPrefix(table, "tcp") && f[3] != "0A" {
				continue
			}
			ip, port := procAddr(t, f[1])
			addr := net.JoinHostPort(ip.String(), strconv.Itoa(port))
			listening = append(listening, table+" "+addr)
			assert.True(t, ip.IsLoopback(), "jaeger listens on %s %s, not loopback", table, addr)
			assert.True(t, j.ports[strconv.Itoa(port)], "jaeger listens on %s %s, a port the test did not give it", table, addr)
		}
	}
	assert.Len(t, listening, len(j.ports), "jaeger's listening sockets: %v", listening)
}

// procAddr decodes an address of /proc/net/tcp: the IP as hex of 32-bit
// words in host (little-endian) order, then the port in hex.
func procAddr(t *testing.T, s string) (net.IP, int) {
	t.Helper()
	ipHex, portHex, ok := strings.Cut(s, ":")
	require.True(t, ok, s)
	raw, err := hex.DecodeString(ipHex)
	require.NoError(t, err, s)
	for i := 0; i+4 <= len(raw); i += 4 {
		raw[i], raw[i+1], raw[i+2], raw[i+3] = raw[i+3], raw[i+2], raw[i+1], raw[i]
	}
	port, err := strconv.ParseUint(portHex, 16, 16)
	require.NoError(t, err, s)
	return net.IP(raw), int(port)
}

// freePorts returns n distinct TCP ports free on 127.0.0.1 right now. The
// listeners are closed before Jaeger binds the ports, so another process
// could take one in between; on a test machine that is rare, and Jaeger
// then fails to start with a clear "address already in use".
func freePorts(t *testing.T, n int) []int {
	t.Helper()
	var (
		ports []int
		liss  []net.Listener
	)
	for range n {
		lis, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		liss = append(liss, lis)
		ports = append(ports, lis.Addr().(*net.TCPAddr).Port)
	}
	for _, lis := range liss {
		require.NoError(t, lis.Close())
	}
	return ports
}

// syncBuffer is a bytes.Buffer safe for the writes of a child process's
// output copiers and the test's reads.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
