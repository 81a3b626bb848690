package server_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/viewer/server"
)

// lastAt is the latest started_at or finished_at of the record lines,
// read with encoding/json.
func lastAt(t *testing.T, lines []string) time.Time {
	t.Helper()
	var last time.Time
	for _, l := range lines {
		var rec struct {
			Kind       string    `json:"kind"`
			StartedAt  time.Time `json:"started_at"`
			FinishedAt time.Time `json:"finished_at"`
		}
		require.NoError(t, json.Unmarshal([]byte(l), &rec))
		if rec.Kind == "meta" || rec.Kind == "summary" {
			continue
		}
		for _, at := range []time.Time{rec.StartedAt, rec.FinishedAt} {
			if at.After(last) {
				last = at
			}
		}
	}
	return last
}

// A run that has not ended (parents pending, no trailer) is running while
// its file is fresh, and stopped without an end once the file has gained
// nothing for the idle time: on the run's view model, in the list (its
// state cell and the status filter) and in Runs, all by one rule. A
// closed run stays done however old its file.
func TestIdleRunShowsStopped(t *testing.T) {
	lines := artifactLines(t, filepath.Join(golden, "agent-run.jsonl"))
	dir := t.TempDir()
	open := filepath.Join(dir, "open.jsonl")
	appendFile(t, open, strings.Join(lines[:4], "")) // the header and three records: their parents pending
	closed := filepath.Join(dir, "closed.jsonl")
	appendFile(t, closed, strings.Join(lines, ""))
	ts := start(t, dir, fast, server.WithIdle(time.Hour))
	want := "stopped without an end; last record at " + lastAt(t, lines[:4]).UTC().Format("2006-01-02 15:04:05Z")

	type view struct {
		State     string `json:"state"`
		StateText string `json:"state_text"`
	}
	data := func(rel string) view {
		t.Helper()
		resp, body := ts.get(t, "/data/"+rel)
		require.Equal(t, http.StatusOK, resp.StatusCode, body)
		var v view
		require.NoError(t, json.Unmarshal([]byte(body), &v))
		return v
	}
	states := func() map[string]string {
		out := map[string]string{}
		for _, r := range ts.Runs(url.Values{}).Rows {
			out[r.Run] = r.State
			require.Equal(t, r.State == "running", r.Running)
		}
		return out
	}
	stopped := func() []string { return listed(t, ts, "status=stopped") }

	// Written now: running, and done when closed.
	require.Equal(t, view{"running", "● running"}, data("open.jsonl"))
	require.Equal(t, "done", data("closed.jsonl").State)
	require.Equal(t, map[string]string{"open.jsonl": "running", "closed.jsonl": "done"}, states())
	require.Empty(t, stopped())

	// Nothing written for two hours: the open run has stopped.
	old := time.Now().Add(-2 * time.Hour)
	for _, p := range []string{open, closed} {
		require.NoError(t, os.Chtimes(p, old, old))
	}
	require.Equal(t, view{"stopped", want}, data("open.jsonl"))
	require.Equal(t, "done", data("closed.jsonl").State)
	require.Equal(t, map[string]string{"open.jsonl": "stopped", "closed.jsonl": "done"}, states())
	require.Equal(t, []string{"open.jsonl"}, stopped())
	_, page := ts.get(t, "/")
	require.Contains(t, page, want)
	require.NotContains(t, page, "● running")
}

// The live stream says when its file has gained nothing for the idle
// time (an "idle" event, once), so a page fetches its view model again
// and shows the run stopped; it says it again after the file grows and
// goes quiet once more.
func TestLiveStreamSaysIdle(t *testing.T) {
	lines := artifactLines(t, filepath.Join(golden, "agent-run.jsonl"))
	dir := t.TempDir()
	path := filepath.Join(dir, "live.jsonl")
	appendFile(t, path, lines[0]+lines[1])
	ts := start(t, dir, fast, server.WithIdle(200*time.Millisecond))
	live, _ := ts.liveURL(t, "live.jsonl")
	st := ts.openEvents(t, live, "")

	idleSince := func() time.Time {
		t.Helper()
		ev := st.next(t)
		require.Equal(t, "idle", ev.name, ev.data)
		var d struct {
			Since time.Time `json:"since"`
		}
		require.NoError(t, json.Unmarshal([]byte(ev.data), &d))
		return d.Since
	}
	fi, err := os.Stat(path)
	require.NoError(t, err)
	require.True(t, idleSince().Equal(fi.ModTime()), "idle since the file's last write")

	appendFile(t, path, lines[2])
	ev := st.next(t)
	require.Equal(t, "record", ev.name)
	require.JSONEq(t, strings.TrimSuffix(lines[2], "\n"), ev.data)
	fi, err = os.Stat(path)
	require.NoError(t, err)
	require.True(t, idleSince().Equal(fi.ModTime()), "idle again after it grew")
}
