package server_test

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/internal/artifacttest"
	"github.com/agenttrace/agenttrace/viewer/server"
)

// golden is where the converter's reference artifacts are.
const golden = "../../testdata/golden"

// copyFile copies src into dir under name.
func copyFile(t *testing.T, src, dir, name string) string {
	t.Helper()
	data, err := os.ReadFile(src)
	require.NoError(t, err)
	dst := filepath.Join(dir, filepath.FromSlash(name))
	require.NoError(t, os.MkdirAll(filepath.Dir(dst), 0o755))
	require.NoError(t, os.WriteFile(dst, data, 0o644))
	return dst
}

// testServer is a Server on a real loopback listener (httptest binds
// 127.0.0.1), shut down when the test ends.
type testServer struct {
	*server.Server
	ts   *httptest.Server
	url  string // http://127.0.0.1:PORT
	addr string // 127.0.0.1:PORT
}

func start(t *testing.T, dir string, opts ...server.Option) *testServer {
	t.Helper()
	s, err := server.New(dir, opts...)
	require.NoError(t, err)
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	// Cleanups run last-in first-out: the Server's streams end before
	// httptest waits for its requests.
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		require.NoError(t, s.Shutdown(ctx))
	})
	// A large folder's first walk goes on in the background past the
	// first request (the list says it is reading): the tests start from a
	// folder whose runs are read.
	require.Eventually(t, func() bool {
		resp, err := ts.Client().Get(ts.URL + "/version")
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return err == nil && resp.StatusCode == http.StatusOK && string(b) != "indexing"
	}, 2*time.Minute, 20*time.Millisecond, "the folder's first walk")
	return &testServer{Server: s, ts: ts, url: ts.URL, addr: ts.Listener.Addr().String()}
}

// get fetches path and returns the response with its body read.
func (ts *testServer) get(t *testing.T, path string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, ts.url+path, nil)
	require.NoError(t, err)
	resp, err := ts.ts.Client().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, string(body)
}

// raw sends target as the request line, byte for byte, with the given
// Host, and returns the status and body. Go's client would clean the path
// or refuse it; an attacker's would not.
func raw(t *testing.T, addr, target, host string) (int, string) {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	require.NoError(t, err)
	defer conn.Close()
	require.NoError(t, conn.SetDeadline(time.Now().Add(10*time.Second)))
	req := "GET " + target + " HTTP/1.1\r\n"
	if host != "" {
		req += "Host: " + host + "\r\n"
	}
	req += "Connection: close\r\n\r\n"
	_, err = io.WriteString(conn, req)
	require.NoError(t, err)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(body)
}

// artifactLines returns the lines (newlines included) artifact.Writer
// writes for the records of src, read with artifact.Reader: what a
// producer appends, one line at a time, to a live artifact.
func artifactLines(t *testing.T, src string) []string {
	t.Helper()
	recs, meta := artifacttest.Read(t, src)
	var buf bytes.Buffer
	w := artifact.NewWriter(&buf, meta)
	require.NoError(t, w.WriteHeader())
	for i := range recs {
		require.NoError(t, w.Write(&recs[i]))
	}
	require.NoError(t, w.Close())
	lines := strings.SplitAfter(buf.String(), "\n")
	return lines[:len(lines)-1] // after the last newline: nothing
}

// appendFile appends s to path in one write.
func appendFile(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	require.NoError(t, err)
	_, err = io.WriteString(f, s)
	require.NoError(t, err)
	require.NoError(t, f.Close())
}

// event is one Server-Sent Event.
type event struct {
	id, name, data string
}

// sse reads a live stream.
type sse struct {
	resp   *http.Response
	r      *bufio.Reader
	cancel context.CancelFunc
}

// openEvents opens path (an /events URL) and checks the response. The
// stream is bounded by a deadline, so a read that waits for an event
// that never comes fails the test instead of hanging it. lastID, when
// not empty, is sent as Last-Event-ID, as a reconnecting EventSource does.
func (ts *testServer) openEvents(t *testing.T, path, lastID string) *sse {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, ts.url+path, nil)
	require.NoError(t, err)
	req.Header.Set("Accept", "text/event-stream")
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := ts.ts.Client().Do(req)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, "text/event-stream; charset=utf-8", resp.Header.Get("Content-Type"))
	s := &sse{resp: resp, r: bufio.NewReader(resp.Body), cancel: cancel}
	t.Cleanup(s.close)
	return s
}

func (s *sse) close() {
	s.cancel()
	s.resp.Body.Close()
}

// next returns the next event, skipping comments and blocks that only
// set the retry delay. It fails on the end of the stream.
func (s *sse) next(t *testing.T) event {
	t.Helper()
	ev, err := s.read()
	require.NoError(t, err)
	return ev
}

// read is next, returning the error (io.EOF at the end of the stream).
func (s *sse) read() (event, error) {
	var (
		ev   event
		data []string
		has  bool
	)
	for {
		line, err := s.r.ReadString('\n')
		if err != nil {
			return event{}, err
		}
		line = strings.TrimSuffix(line, "\n")
		if line == "" {
			if has {
				ev.data = strings.Join(data, "\n")
				return ev, nil
			}
			continue
		}
		if strings.HasPrefix(line, ":") {
			continue
		}
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "id":
			ev.id, has = value, true
		case "event":
			ev.name, has = value, true
		case "data":
			data, has = append(data, value), true
		}
	}
}

// linkRe finds the live URL in a viewer page's Link header.
var linkRe = regexp.MustCompile(`^<(/events/[^>]+)>; rel="alternate"; type="text/event-stream"$`)

// liveURL returns the live source the viewer page of rel follows, and
// the offset it starts from.
func (ts *testServer) liveURL(t *testing.T, rel string) (string, int64) {
	t.Helper()
	resp, _ := ts.get(t, "/run/"+rel)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	m := linkRe.FindStringSubmatch(resp.Header.Get("Link"))
	require.NotNil(t, m, "Link: %s", resp.Header.Get("Link"))
	_, q, _ := strings.Cut(m[1], "?offset=")
	off, err := strconv.ParseInt(q, 10, 64)
	require.NoError(t, err)
	return m[1], off
}
