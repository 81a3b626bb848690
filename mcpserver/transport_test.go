package mcpserver

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The streamable HTTP transport serves the Go SDK's client, and refuses
// requests addressed to another name (DNS rebinding) or sent by a web
// page of another origin.
func TestStreamableHTTP(t *testing.T) {
	dir := t.TempDir()
	name, _ := simRun(t, dir, 1, 0)
	s, err := New(dir)
	require.NoError(t, err)
	ts := httptest.NewServer(s.HTTPHandler())
	defer func() {
		ts.Close()
		require.NoError(t, s.Close(context.Background()))
	}()

	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agenttrace-test", Version: "1"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.URL, DisableStandaloneSSE: true}, nil)
	require.NoError(t, err)
	var l RunList
	call(t, cs, MaxAnswerBytes, "list_runs", map[string]any{}, &l)
	require.Len(t, l.Runs, 1)
	assert.Equal(t, name, l.Runs[0].Run)
	require.NoError(t, cs.Close())

	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	for _, tc := range []struct {
		name       string
		host       string
		origin     string
		wantStatus int
	}{
		{"loopback", "", "", http.StatusOK},
		{"same origin page", "", ts.URL, http.StatusOK},
		{"rebinding name", "evil.example:80", "", http.StatusForbidden},
		{"other origin page", "", "http://evil.example", http.StatusForbidden},
		{"other local port", "", "http://127.0.0.1:1", http.StatusForbidden},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(initialize))
			require.NoError(t, err)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			if tc.host != "" {
				req.Host = tc.host
			}
			if tc.origin != "" {
				req.Header.Set("Origin", tc.origin)
			}
			resp, err := ts.Client().Do(req)
			require.NoError(t, err)
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			assert.Equal(t, tc.wantStatus, resp.StatusCode, "%s", body)
			if tc.wantStatus == http.StatusOK {
				assert.Contains(t, string(body), `"serverInfo"`)
			}
		})
	}
}

// ServeIO ends when its context does, with the client still connected,
// and when the client closes its input.
func TestServeIOEnds(t *testing.T) {
	s, err := New(t.TempDir())
	require.NoError(t, err)
	defer func() { require.NoError(t, s.Close(context.Background())) }()

	ctx, cancel := context.WithCancel(context.Background())
	in, w := io.Pipe()
	defer w.Close()
	done := make(chan error, 1)
	go func() { done <- s.ServeIO(ctx, in, io.Discard) }()
	cancel()
	require.NoError(t, <-done)

	in2, w2 := io.Pipe()
	go func() { done <- s.ServeIO(context.Background(), in2, io.Discard) }()
	require.NoError(t, w2.Close())
	<-done // the client went away: no leak, whatever the error
}
