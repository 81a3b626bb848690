package server_test

import (
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"html"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/report"
	"github.com/agenttrace/agenttrace/viewer"
)

// row is one run of the list page, as the page shows it.
type row struct {
	path string
	href string
	cols map[string]string // data-col -> text
}

var (
	rowRe  = regexp.MustCompile(`(?s)<tr data-path="([^"]*)">(.*?)</tr>`)
	hrefRe = regexp.MustCompile(`<a href="(/run/[^"]*)">`)
	cellRe = regexp.MustCompile(`(?s)<td data-col="(\w+)"[^>]*>(.*?)</td>`)
	tagRe  = regexp.MustCompile(`<[^>]*>`)
)

func rows(t *testing.T, page string) []row {
	t.Helper()
	var out []row
	for _, m := range rowRe.FindAllStringSubmatch(page, -1) {
		r := row{path: html.UnescapeString(m[1]), cols: map[string]string{}}
		if h := hrefRe.FindStringSubmatch(m[2]); h != nil {
			r.href = html.UnescapeString(h[1])
		}
		for _, c := range cellRe.FindAllStringSubmatch(m[2], -1) {
			r.cols[c[1]] = html.UnescapeString(tagRe.ReplaceAllString(c[2], ""))
		}
		out = append(out, r)
	}
	return out
}

// number reads a cell written with thousands separators.
func number(t *testing.T, cell string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(strings.ReplaceAll(cell, ",", ""), 10, 64)
	require.NoError(t, err, cell)
	return n
}

// expected is what a run's row must say, computed the way "agenttrace
// tokens" computes it.
type expected struct {
	when time.Time
	rep  *report.TokenReport
}

func expect(t *testing.T, path string) expected {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	rd := artifact.NewReader(f)
	var recs []artifact.Record
	for {
		rec, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			fi, serr := f.Stat()
			require.NoError(t, serr)
			return expected{when: fi.ModTime()} // unreadable: listed by mtime
		}
		recs = append(recs, *rec)
	}
	return expected{when: rd.Meta().StartedAt, rep: report.Tokens(recs, rd.Meta())}
}

func TestListShowsEveryRunNewestFirst(t *testing.T) {
	dir := t.TempDir()
	goldens, err := filepath.Glob(filepath.Join(golden, "*.jsonl"))
	require.NoError(t, err)
	require.NotEmpty(t, goldens)
	for _, g := range goldens {
		copyFile(t, g, dir, filepath.Base(g))
	}
	// In a subdirectory: a tool-dispatch trace with a budget.
	copyFile(t, "../../testdata/legacy/tool-dispatch.jsonl", dir, "legacy/tool-dispatch.jsonl")
	// Being written: no trailer, a torn last line.
	lines := artifactLines(t, filepath.Join(golden, "agent-run.jsonl"))
	appendFile(t, filepath.Join(dir, "live.jsonl"), strings.Join(lines[:3], "")+lines[3][:40])
	// A bad line in the middle of a closed run.
	appendFile(t, filepath.Join(dir, "bad.jsonl"), lines[0]+"not json\n"+strings.Join(lines[1:], ""))
	// A newer schema version: listed, with why it cannot be read.
	appendFile(t, filepath.Join(dir, "future.jsonl"), `{"v":2,"kind":"meta","started_at":"2026-01-01T00:00:00Z"}`+"\n")
	// Not listed: hidden, not *.jsonl, a directory.
	copyFile(t, goldens[0], dir, ".scratch.jsonl")
	copyFile(t, goldens[0], dir, ".cache/old.jsonl")
	appendFile(t, filepath.Join(dir, "notes.txt"), "notes\n")
	require.NoError(t, os.Mkdir(filepath.Join(dir, "dir.jsonl"), 0o755))

	ts := start(t, dir)
	resp, page := ts.get(t, "/")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, "text/html; charset=utf-8", resp.Header.Get("Content-Type"))

	want := map[string]expected{}
	err = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		require.NoError(t, err)
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(rel, ".jsonl") && !strings.HasPrefix(d.Name(), ".") {
			want[filepath.ToSlash(rel)] = expect(t, p)
		}
		return nil
	})
	require.NoError(t, err)
	order := slices.Collect(func(yield func(string) bool) {
		for k := range want {
			if !yield(k) {
				return
			}
		}
	})
	slices.SortFunc(order, func(a, b string) int {
		if c := want[b].when.Compare(want[a].when); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})

	got := rows(t, page)
	var gotOrder []string
	for _, r := range got {
		gotOrder = append(gotOrder, r.path)
	}
	require.Equal(t, order, gotOrder, "every artifact, newest first")
	require.Len(t, got, len(goldens)+4)

	for _, r := range got {
		w := want[r.path]
		require.Equal(t, "/run/"+r.path, r.href, r.path)
		if w.rep == nil {
			require.Contains(t, r.cols["error"], "unsupported", r.path)
			continue
		}
		require.Equal(t, w.rep.Records.Total(), number(t, r.cols["records"]), r.path)
		require.Equal(t, w.rep.Tokens.Input, number(t, r.cols["in"]), r.path)
		require.Equal(t, w.rep.Tokens.Output, number(t, r.cols["out"]), r.path)
		require.Equal(t, w.rep.Errors, number(t, r.cols["errors"]), r.path)
		require.Equal(t, viewer.CostText(w.rep.Cost), r.cols["cost"], r.path)
		require.Equal(t, w.when.UTC().Format("2006-01-02 15:04:05Z"), r.cols["started"], r.path)
		if b := w.rep.Budget; b != nil {
			spent, rest, ok := strings.Cut(r.cols["budget"], " of ")
			require.True(t, ok, r.cols["budget"])
			require.Equal(t, b.Spent, number(t, spent), r.path)
			require.True(t, strings.HasPrefix(rest, "4,000 tokens ("), "%s: %s", r.path, r.cols["budget"])
		} else {
			require.Equal(t, "—", r.cols["budget"], r.path)
		}
	}

	byPath := map[string]row{}
	for _, r := range got {
		byPath[r.path] = r
	}
	run := byPath["agent-run.jsonl"]
	require.Equal(t, "travel-planner", run.cols["service"])
	require.Equal(t, "29.42 s", run.cols["duration"]) // 14:03:07.250 to 14:03:36.665: 29.415 s
	require.Equal(t, "complete", run.cols["state"])
	require.Equal(t, "● running", byPath["live.jsonl"].cols["state"], "no trailer, parents not ended yet; the torn line is not a bad line")
	require.Equal(t, "complete 1 bad line", byPath["bad.jsonl"].cols["state"])
	require.NotNil(t, want["legacy/tool-dispatch.jsonl"].rep.Budget)
	require.NotContains(t, page, ".scratch")
	require.NotContains(t, page, "old.jsonl")
	require.NotContains(t, page, "notes.txt")
}

// The page loads nothing but its own style sheet and script, allowed by
// their hashes in both the meta element and the header.
func TestListContentSecurityPolicy(t *testing.T) {
	dir := t.TempDir()
	copyFile(t, filepath.Join(golden, "agent-run.jsonl"), dir, "agent-run.jsonl")
	ts := start(t, dir)
	resp, page := ts.get(t, "/")
	require.Equal(t, http.StatusOK, resp.StatusCode)

	style := regexp.MustCompile(`(?s)<style>(.*?)</style>`).FindAllStringSubmatch(page, -1)
	require.Len(t, style, 1)
	sum := sha256.Sum256([]byte(style[0][1]))
	hash := "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"

	meta := regexp.MustCompile(`<meta http-equiv="Content-Security-Policy" content="([^"]*)">`).FindStringSubmatch(page)
	require.NotNil(t, meta)
	csp := html.UnescapeString(meta[1])
	// One script, allowed by its hash: it polls /version and reloads the
	// list when the folder changes. Forms (filters, compare) go here only.
	script := regexp.MustCompile(`(?s)<script>(.*?)</script>`).FindAllStringSubmatch(page, -1)
	require.Len(t, script, 1)
	ssum := sha256.Sum256([]byte(script[0][1]))
	shash := "'sha256-" + base64.StdEncoding.EncodeToString(ssum[:]) + "'"
	require.Equal(t, "default-src 'none'; style-src "+hash+"; script-src "+shash+"; connect-src 'self'; base-uri 'none'; form-action 'self'", csp)
	require.Equal(t, csp+"; frame-ancestors 'none'", resp.Header.Get("Content-Security-Policy"))
	// A run's first prompt is text ("... on Monday"): what must not be
	// there is an attribute named on...
	require.NotRegexp(t, `<[^>]*\son[a-z]+\s*=`, page, "no inline handlers")
	require.NotContains(t, page, " style=", "inline style attributes are not allowed by the hash")

	for k, v := range map[string]string{
		"X-Content-Type-Options": "nosniff",
		"Referrer-Policy":        "no-referrer",
		"Cache-Control":          "no-store",
		"X-Frame-Options":        "DENY",
	} {
		require.Equal(t, v, resp.Header.Get(k), k)
	}
}

func TestListEmptyDirectory(t *testing.T) {
	ts := start(t, t.TempDir())
	resp, page := ts.get(t, "/")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Contains(t, page, "No artifacts")
	require.Empty(t, rows(t, page))
}

// A row is read again only when its file's size or modification time
// changes: rewriting a file in place with both kept shows the old row.
func TestListCachesBySizeAndModTime(t *testing.T) {
	dir := t.TempDir()
	path := copyFile(t, filepath.Join(golden, "agent-run.jsonl"), dir, "run.jsonl")
	ts := start(t, dir)
	_, page := ts.get(t, "/")
	require.Equal(t, "8,954", rows(t, page)[0].cols["in"])

	orig, err := os.ReadFile(path)
	require.NoError(t, err)
	fi, err := os.Stat(path)
	require.NoError(t, err)
	// Same length: one model call's input tokens go up by 1000.
	changed := strings.Replace(string(orig), `"input_tokens":1342,`, `"input_tokens":2342,`, 1)
	require.NotEqual(t, string(orig), changed)
	require.Len(t, changed, len(orig))
	require.NoError(t, os.WriteFile(path, []byte(changed), 0o644))
	require.NoError(t, os.Chtimes(path, fi.ModTime(), fi.ModTime()))

	_, page = ts.get(t, "/")
	require.Equal(t, "8,954", rows(t, page)[0].cols["in"], "size and mtime unchanged: the cached row")

	later := fi.ModTime().Add(time.Second)
	require.NoError(t, os.Chtimes(path, later, later))
	_, page = ts.get(t, "/")
	require.Equal(t, "9,954", rows(t, page)[0].cols["in"], "mtime changed: read again")
}
