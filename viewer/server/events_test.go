package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/viewer/server"
)

// fast makes live streams poll often, so tests await events quickly.
var fast = server.WithPollInterval(5 * time.Millisecond)

// The page shows the complete lines; the stream it is given brings every
// later line exactly once, in order, however the writer splits them.
func TestRunPageThenLiveStreamLoseNothing(t *testing.T) {
	lines := artifactLines(t, filepath.Join(golden, "agent-run.jsonl"))
	require.Len(t, lines, 14) // meta, 12 records, summary
	dir := t.TempDir()
	path := filepath.Join(dir, "live.jsonl")
	head := strings.Join(lines[:4], "")
	half := len(lines[4]) / 2
	appendFile(t, path, head+lines[4][:half]) // a torn last line
	ts := start(t, dir, fast)

	resp, page := ts.get(t, "/run/live.jsonl")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, "text/html; charset=utf-8", resp.Header.Get("Content-Type"))
	require.Equal(t, "base-uri 'none'; form-action 'none'; frame-ancestors 'none'", resp.Header.Get("Content-Security-Policy"))
	require.Equal(t, "nosniff", resp.Header.Get("X-Content-Type-Options"))
	live, offset := ts.liveURL(t, "live.jsonl")
	require.Equal(t, "/events/live.jsonl?offset="+strconv.Itoa(len(head)), live)
	require.EqualValues(t, len(head), offset, "the page holds the complete lines only")
	require.Contains(t, page, live, "the page follows the stream the Link header names")
	for i, l := range lines[1:6] {
		var rec struct {
			SpanID string `json:"span_id"`
		}
		require.NoError(t, json.Unmarshal([]byte(l), &rec))
		require.NotEmpty(t, rec.SpanID)
		if i < 3 {
			require.Contains(t, page, rec.SpanID, "a complete line is on the page")
		} else {
			require.NotContains(t, page, rec.SpanID, "a torn or later line is left to the stream")
		}
	}

	es := ts.openEvents(t, live, "")
	end := offset
	expectLine := func(line string) {
		t.Helper()
		end += int64(len(line))
		ev := es.next(t)
		require.Equal(t, event{id: strconv.FormatInt(end, 10), name: "record", data: strings.TrimSuffix(line, "\n")}, ev)
	}

	appendFile(t, path, lines[4][half:]) // the torn line completed
	expectLine(lines[4])
	appendFile(t, path, lines[5][:10]) // a line written in two halves
	appendFile(t, path, lines[5][10:])
	expectLine(lines[5])
	appendFile(t, path, strings.Join(lines[6:], "")) // many lines in one write
	for _, l := range lines[6:] {
		expectLine(l)
	}
	// Nothing was sent twice: the next event is the next line.
	marker := `{"kind":"note","marker":1}` + "\n"
	appendFile(t, path, marker)
	expectLine(marker)
}

// A reconnecting EventSource sends the id of the last event it got and
// resumes right after it, whatever offset its URL says.
func TestLiveStreamResumesFromLastEventID(t *testing.T) {
	lines := artifactLines(t, filepath.Join(golden, "conversation.jsonl"))
	dir := t.TempDir()
	copyFile(t, filepath.Join(golden, "conversation.jsonl"), dir, "c.jsonl")
	ts := start(t, dir, fast)

	es := ts.openEvents(t, "/events/c.jsonl?offset=0", "")
	require.Equal(t, strings.TrimSuffix(lines[0], "\n"), es.next(t).data)
	second := es.next(t)
	require.Equal(t, strings.TrimSuffix(lines[1], "\n"), second.data)
	es.close()

	es = ts.openEvents(t, "/events/c.jsonl?offset=0", second.id)
	for _, l := range lines[2:] {
		ev := es.next(t)
		require.Equal(t, strings.TrimSuffix(l, "\n"), ev.data)
	}
}

// Blank lines and lines that are not a JSON object (a torn line a
// restarted writer closed off with a newline) are skipped, as a reader
// skips them; CRLF endings are accepted.
func TestLiveStreamSkipsWhatReadersSkip(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.jsonl")
	appendFile(t, path, "")
	ts := start(t, dir, fast)
	es := ts.openEvents(t, "/events/r.jsonl?offset=0", "")
	appendFile(t, path, "\n  \n{\"kind\":\"cal\n{\"kind\":\"meta\"}\r\n[1]\n{\"a\":\r1}\n")
	require.Equal(t, `{"kind":"meta"}`, es.next(t).data)
	// A bare CR between JSON tokens ends an event-stream line; the client
	// gets LF instead, the same JSON.
	require.Equal(t, "{\"a\":\n1}", es.next(t).data)
}

// When the file stops being the one the page shows, the stream says so
// once, with an event named reset, and sends nothing more.
func TestLiveStreamResets(t *testing.T) {
	lines := artifactLines(t, filepath.Join(golden, "agent-run.jsonl"))
	content := strings.Join(lines[:5], "")
	for _, tc := range []struct {
		name   string
		offset int
		change func(t *testing.T, path string)
		reason string
	}{
		{"truncated", len(content), func(t *testing.T, path string) {
			require.NoError(t, os.Truncate(path, int64(len(lines[0]))))
		}, "truncated"},
		{"replaced", len(content), func(t *testing.T, path string) {
			other := path + ".tmp"
			require.NoError(t, os.WriteFile(other, []byte(content+lines[5]), 0o644))
			require.NoError(t, os.Rename(other, path))
		}, "replaced"},
		{"removed", len(content), func(t *testing.T, path string) {
			require.NoError(t, os.Remove(path))
		}, "replaced"},
		{"offset past the end", len(content) + 1, nil, "truncated"},
		{"offset inside a line", len(content) - 1, nil, "offset"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "r.jsonl")
			appendFile(t, path, content)
			ts := start(t, dir, fast)
			es := ts.openEvents(t, "/events/r.jsonl?offset="+strconv.Itoa(tc.offset), "")
			if tc.change != nil {
				tc.change(t, path)
			}
			ev := es.next(t)
			require.Equal(t, event{name: "reset", data: `{"reason":"` + tc.reason + `"}`}, ev)
		})
	}
}

// A client that goes away ends its stream: the handler returns and the
// connection closes (and TestMain finds no goroutine left).
func TestLiveStreamEndsWhenClientLeaves(t *testing.T) {
	dir := t.TempDir()
	copyFile(t, filepath.Join(golden, "agent-run.jsonl"), dir, "a.jsonl")
	s, err := server.New(dir, fast)
	require.NoError(t, err)
	closed := make(chan struct{}, 1)
	hs := httptest.NewUnstartedServer(s.Handler())
	hs.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		// The server sets StateClosed once the handler has returned.
		if st == http.StateClosed {
			closed <- struct{}{}
		}
	}
	hs.Start()
	t.Cleanup(hs.Close)
	t.Cleanup(func() { require.NoError(t, s.Shutdown(context.Background())) })
	ts := &testServer{Server: s, ts: hs, url: hs.URL}

	es := ts.openEvents(t, "/events/a.jsonl?offset=0", "")
	es.next(t) // streaming
	es.close()
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("the stream's handler did not end after its client left")
	}
}

// Shutdown ends open streams, makes Serve return, and refuses what
// comes after.
func TestShutdownEndsStreams(t *testing.T) {
	dir := t.TempDir()
	copyFile(t, filepath.Join(golden, "agent-run.jsonl"), dir, "a.jsonl")
	s, err := server.New(dir, fast)
	require.NoError(t, err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	served := make(chan error, 1)
	go func() { served <- s.Serve(ln) }()

	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+ln.Addr().String()+"/events/a.jsonl?offset=0", nil)
	require.NoError(t, err)
	resp, err := client.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	es := &sse{resp: resp, r: bufio.NewReader(resp.Body), cancel: cancel}
	es.next(t) // streaming

	sctx, scancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer scancel()
	require.NoError(t, s.Shutdown(sctx))
	for {
		if _, err := es.read(); err != nil {
			require.True(t, errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF), "%v", err)
			break
		}
	}
	require.ErrorIs(t, <-served, http.ErrServerClosed)
	require.NoError(t, s.Shutdown(sctx), "Shutdown again")

	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "http://127.0.0.1/", nil))
	require.Equal(t, http.StatusServiceUnavailable, rec.Code)
	ln2, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	require.ErrorIs(t, s.Serve(ln2), http.ErrServerClosed)
}

func TestLiveStreamBadOffset(t *testing.T) {
	dir := t.TempDir()
	copyFile(t, filepath.Join(golden, "agent-run.jsonl"), dir, "a.jsonl")
	ts := start(t, dir)
	for _, q := range []string{"?offset=-1", "?offset=x", "?offset=1e3"} {
		resp, _ := ts.get(t, "/events/a.jsonl"+q)
		require.Equal(t, http.StatusBadRequest, resp.StatusCode, q)
	}
}
