package server_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/internal/artifacttest"
	"github.com/agenttrace/agenttrace/redact"
	"github.com/agenttrace/agenttrace/viewer/server"
)

// plantedSecret is a made-up GitHub token (it grants nothing), the shape
// redact's default patterns know; plantedCore is what is looked for, so
// that escaping around it cannot hide one that survived.
const (
	plantedSecret = "ghp_R8kZtq3WmY7xLc2NvB5pJd9HfG4sA6eU1oTi"
	plantedCore   = "R8kZtq3WmY7xLc2NvB5pJd9HfG4sA6eU1oTi"
	nearMiss      = "c9f033ac8e9680f062d47ad380a5bd9b65612800" // a git hash: stays
)

// defaultRedaction is the redaction serve applies by default: the secret
// scan of package redact on records and lines, skipped when the header
// says a writer scanned already (always, when always is set: as with
// named keys).
func defaultRedaction(always bool) server.Redaction {
	r := redact.New(nil, true)
	return server.Redaction{
		Needed: func(m *artifact.Meta) bool { return always || m == nil || !m.SecretsScanned },
		Record: func(rec *artifact.Record) {
			r.Span(rec.Span)
			r.Map(rec.Resource.Attributes())
			r.Map(rec.Scope.Attributes())
		},
		Line: func(line []byte) []byte { out, _ := r.JSON(line); return out },
	}
}

// plantedArtifact writes, as run.jsonl in dir, a golden artifact whose
// first span's name and an attribute carry the planted secret and the
// near miss; scanned sets the header's secrets_scanned.
func plantedArtifact(t *testing.T, dir string, scanned bool) string {
	t.Helper()
	recs, meta := artifacttest.Read(t, filepath.Join(golden, "agent-run.jsonl"))
	require.NotEmpty(t, recs)
	sp := recs[0].Span
	sp.SetName(sp.Name() + " " + plantedSecret + " " + nearMiss)
	sp.Attributes().PutStr("note", "token "+plantedSecret+" at commit "+nearMiss)
	meta.SecretsScanned = scanned
	var buf bytes.Buffer
	w := artifact.NewWriter(&buf, meta)
	require.NoError(t, w.WriteHeader())
	for i := range recs {
		require.NoError(t, w.Write(&recs[i]))
	}
	require.NoError(t, w.Close())
	path := filepath.Join(dir, "run.jsonl")
	require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))
	return path
}

// TestRedaction: every way a run leaves the Server (run page, /data,
// /raw, /compare, the live stream, a dropped file, the list's search)
// shows it redacted under WithRedaction, unless its header says it was
// scanned already (and the Redaction does not insist, as with named
// keys); without the option the files are shown as they are. A near
// miss (a git hash) is never lost.
func TestRedaction(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		opts    []server.Option
		scanned bool
		shown   bool // the secret is in every answer
	}{
		{name: "no option", shown: true},
		{name: "default", opts: []server.Option{server.WithRedaction(defaultRedaction(false))}},
		{name: "scanned header", opts: []server.Option{server.WithRedaction(defaultRedaction(false))}, scanned: true, shown: true},
		{name: "scanned header, always", opts: []server.Option{server.WithRedaction(defaultRedaction(true))}, scanned: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			path := plantedArtifact(t, dir, tc.scanned)
			ts := start(t, dir, append([]server.Option{fast}, tc.opts...)...)
			fi, err := os.Stat(path)
			require.NoError(t, err)

			answers := map[string]string{}
			for _, p := range []string{"/run/run.jsonl", "/data/run.jsonl", "/raw/run.jsonl"} {
				resp, body := ts.get(t, p)
				require.Equal(t, http.StatusOK, resp.StatusCode, p)
				answers[p] = body
			}
			var live strings.Builder
			ev := ts.openEvents(t, "/events/run.jsonl?offset=0", "")
			for end := int64(0); end < fi.Size(); {
				e := ev.next(t)
				assert.True(t, json.Valid([]byte(e.data)), "a redacted line is still JSON: %s", e.data)
				live.WriteString(e.data + "\n")
				end, err = strconv.ParseInt(e.id, 10, 64)
				require.NoError(t, err)
			}
			answers["live stream"] = live.String()
			answers["/convert"] = ts.convert(t, path)

			for what, body := range answers {
				if tc.shown {
					assert.Contains(t, body, plantedCore, what)
				} else {
					assert.NotContains(t, body, plantedCore, what)
				}
				assert.Contains(t, body, nearMiss, "%s: the near miss was lost", what)
			}
			// /compare shows no span names or attributes of matched
			// calls: it is checked to hide, not to show.
			resp, cmp := ts.get(t, "/compare?c=run.jsonl&c=run.jsonl")
			require.Equal(t, http.StatusOK, resp.StatusCode)
			if !tc.shown {
				assert.NotContains(t, cmp, plantedCore, "/compare")
			}
			_, list := ts.get(t, "/?q="+url.QueryEscape(strings.ToLower(plantedCore)))
			assert.Equal(t, tc.shown, strings.Contains(list, `href="/run/run.jsonl"`), "the search finds the secret")
			_, list = ts.get(t, "/?q="+url.QueryEscape(nearMiss))
			assert.Contains(t, list, `href="/run/run.jsonl"`, "the search finds the near miss")
		})
	}
}

// convert drops the file at path on a page of the Server, as the page's
// script does, and returns the answer.
func (ts *testServer) convert(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, ts.url+"/convert?name=dropped.jsonl", bytes.NewReader(data))
	require.NoError(t, err)
	req.Header.Set("Origin", ts.url)
	resp, err := ts.ts.Client().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var body bytes.Buffer
	_, err = body.ReadFrom(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, body.String())
	return body.String()
}
