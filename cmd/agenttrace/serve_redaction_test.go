package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestServeRedaction is issue 16's check of serve: a folder of runs that
// no redacting writer wrote (each seed shape converted with --no-redact,
// so the files hold every planted secret), served with default flags,
// shows none of the secrets in any response (the run page, /data, /raw,
// the live stream, a file dropped through /convert, the list and its
// search) and writes none to disk from spans sent to its OTLP endpoint;
// the near misses all survive. With --no-redact every secret is shown.
func TestServeRedaction(t *testing.T) {
	t.Parallel()
	p := loadPlanted(t)
	dir := t.TempDir()
	for _, name := range redactionFixtures {
		out := filepath.Join(dir, artifactName(name))
		r := agenttrace(t, "", "convert", "--no-redact", filepath.Join(redactionDir, name), "-o", out)
		require.Equal(t, 0, r.code, r.stderr)
	}
	otlpBody := filepath.Join(t.TempDir(), "otlp.json")
	r := agenttrace(t, "", "convert", "--no-redact", filepath.Join(redactionDir, "trajectory.jsonl"), "-o", otlpBody)
	require.Equal(t, 0, r.code, r.stderr)
	spans, err := os.ReadFile(otlpBody)
	require.NoError(t, err)

	for _, tc := range []struct {
		name   string
		args   []string
		secret bool // secrets are shown
	}{
		{name: "default"},
		{name: "no-redact", args: []string{"--no-redact"}, secret: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			otlpDir := t.TempDir()
			check := func(what, out string) {
				t.Helper()
				if !tc.secret {
					p.checkRedacted(t, what, out)
					return
				}
				for family, s := range p.Secrets {
					assert.Contains(t, out, core(s), "%s: --no-redact lost the %s secret", what, family)
				}
			}
			base, _, _ := startServeRedaction(t, dir, tc.args...)
			for _, name := range redactionFixtures {
				art := artifactName(name)
				check(name+": run page", fetchOK(t, base+"run/"+art))
				check(name+": /data", fetchOK(t, base+"data/"+art))
				check(name+": /raw", fetchOK(t, base+"raw/"+art))
				check(name+": live stream", liveLines(t, base+"events/"+art, filepath.Join(dir, art)))
				check(name+": dropped on a page", postConvert(t, base, filepath.Join(redactionDir, name)))
			}
			// The search looks in names and message text, not in tool
			// results: unredacted, some secrets are found, redacted none.
			list := fetchOK(t, base)
			var found []string
			for family, s := range p.Secrets {
				if strings.Contains(fetchOK(t, base+"?q="+url.QueryEscape(core(s))), `href="/run/`) {
					found = append(found, family)
				}
				if !tc.secret { // the list names runs by their first prompt: shown as the run page shows it
					assert.NotContains(t, list, core(s))
				}
			}
			if tc.secret {
				assert.NotEmpty(t, found, "the search finds no secret even unredacted")
			} else {
				assert.Empty(t, found, "searching the runs finds these secrets")
			}

			_, otlp, stop := startServeRedaction(t, otlpDir, append([]string{"--otlp-http", "127.0.0.1:0", "--otlp-grpc", "off"}, tc.args...)...)
			resp, err := http.Post(otlp+"/v1/traces", "application/json", bytes.NewReader(spans))
			require.NoError(t, err)
			resp.Body.Close()
			require.Equal(t, http.StatusOK, resp.StatusCode)
			stop() // every artifact finalized
			written, err := filepath.Glob(filepath.Join(otlpDir, "*.jsonl"))
			require.NoError(t, err)
			require.NotEmpty(t, written)
			var all strings.Builder
			for _, f := range written {
				b, err := os.ReadFile(f)
				require.NoError(t, err)
				all.Write(b)
				head, _, _ := strings.Cut(string(b), "\n")
				assert.Equal(t, !tc.secret, strings.Contains(head, `"secrets_scanned":true`), "the header of %s", f)
			}
			check("written from OTLP", all.String())
		})
	}
}

// artifactName is the file a fixture is converted to in the served folder.
func artifactName(fixture string) string {
	return strings.TrimSuffix(fixture, filepath.Ext(fixture)) + "-run.jsonl"
}

// startServeRedaction runs serve on dir in this process and returns the
// viewer's URL, with --otlp-http the OTLP/HTTP one, and a function that
// stops it (called at the end of the test too).
func startServeRedaction(t *testing.T, dir string, args ...string) (viewer, otlp string, stop func()) {
	t.Helper()
	out, outW := io.Pipe()
	var errBuf bytes.Buffer
	root := newRootCmd(&env{stdin: strings.NewReader(""), stdout: outW, stderr: &lockedWriter{w: &errBuf}})
	root.SetArgs(append([]string{"serve", dir}, args...))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- root.ExecuteContext(ctx) }()
	stopped := false
	stop = func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		select {
		case err := <-done:
			assert.NoError(t, err, errBuf.String())
		case <-time.After(10 * time.Second):
			t.Error("serve did not stop")
		}
		outW.Close()
	}
	t.Cleanup(stop)
	br := bufio.NewReader(out)
	line, err := br.ReadString('\n')
	require.NoError(t, err)
	m := servingRe.FindStringSubmatch(line)
	require.NotNil(t, m, line)
	viewer = m[2]
	if slices.Contains(args, "--otlp-http") {
		line, err := br.ReadString('\n')
		require.NoError(t, err)
		h := otlpHTTPRe.FindStringSubmatch(line)
		require.NotNil(t, h, line)
		otlp = h[1]
	}
	go func() { _, _ = io.Copy(io.Discard, br) }()
	return viewer, otlp, stop
}

// liveLines reads the live stream of an artifact from its start until it
// has sent every line the file (at path) holds, and returns the data of
// its events.
func liveLines(t *testing.T, url, path string) string {
	t.Helper()
	fi, err := os.Stat(path)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url+"?offset=0", nil)
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var data strings.Builder
	last := false
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<22)
	for sc.Scan() {
		line := sc.Text()
		if d, ok := strings.CutPrefix(line, "data: "); ok {
			data.WriteString(d + "\n")
		}
		if id, ok := strings.CutPrefix(line, "id: "); ok {
			n, err := strconv.ParseInt(id, 10, 64)
			require.NoError(t, err)
			last = n == fi.Size()
		}
		if line == "" && last { // the end of the file's last event
			return data.String()
		}
	}
	require.NoError(t, sc.Err())
	t.Fatalf("%s: the stream ended before the end of the file", url)
	return ""
}

// postConvert drops the file at path on a page of the viewer at base and
// returns the answer.
func postConvert(t *testing.T, base, path string) string {
	t.Helper()
	body, err := os.ReadFile(path)
	require.NoError(t, err)
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, base+"convert?name="+url.QueryEscape(filepath.Base(path)), bytes.NewReader(body))
	require.NoError(t, err)
	u, err := url.Parse(base)
	require.NoError(t, err)
	req.Header.Set("Origin", "http://"+u.Host)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(out))
	return string(out)
}
