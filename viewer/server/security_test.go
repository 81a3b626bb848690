package server_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/viewer/server"
)

// secret is in every file the tests put where the server must not reach.
const secret = "SECRET-MARKER-7f3a"

// secretLine is a valid artifact header, so that a file holding it would
// be shown, listed and streamed if the server ever opened it.
const secretLine = `{"v":1,"kind":"meta","started_at":"2026-01-01T00:00:00Z","service":"` + secret + `"}` + "\n"

// refusalLayout makes base/runs (the directory served) next to files and
// a directory the server must never read, and links and odd files inside
// runs that lead to them or are not artifacts.
func refusalLayout(t *testing.T) (base, dir string) {
	t.Helper()
	base = t.TempDir()
	dir = filepath.Join(base, "runs")
	copyFile(t, filepath.Join(golden, "agent-run.jsonl"), dir, "run.jsonl")
	for _, p := range []string{"secret.jsonl", "secretdir/secret.jsonl", "runs-evil/secret.jsonl"} {
		full := filepath.Join(base, filepath.FromSlash(p))
		require.NoError(t, os.MkdirAll(filepath.Dir(full), 0o755))
		require.NoError(t, os.WriteFile(full, []byte(secretLine), 0o644))
	}
	must := func(err error) { t.Helper(); require.NoError(t, err) }
	must(os.Symlink("../secret.jsonl", filepath.Join(dir, "link.jsonl")))
	must(os.Symlink(filepath.Join(base, "secret.jsonl"), filepath.Join(dir, "abs.jsonl")))
	must(os.Symlink("../secretdir", filepath.Join(dir, "linkdir")))
	must(os.Symlink("run.jsonl", filepath.Join(dir, "inside.jsonl"))) // stays inside: fine
	must(os.WriteFile(filepath.Join(dir, "notes.txt"), []byte(secretLine), 0o644))
	must(os.WriteFile(filepath.Join(dir, ".hidden.jsonl"), []byte(secretLine), 0o644))
	must(os.Mkdir(filepath.Join(dir, "dir.jsonl"), 0o755))
	if err := mkfifo(filepath.Join(dir, "fifo.jsonl")); !errors.Is(err, errors.ErrUnsupported) {
		must(err)
	}
	return base, dir
}

// Every way out of the directory is refused before a file is read: the
// requests go over a raw connection, exactly as written, since Go's
// client would clean them.
func TestRefusesPathsOutsideTheDirectory(t *testing.T) {
	base, dir := refusalLayout(t)
	ts := start(t, dir)
	abs := filepath.ToSlash(filepath.Join(base, "secret.jsonl"))
	escapedAbs := strings.ReplaceAll(url.PathEscape(abs), "%2F", "/")

	for _, p := range []string{
		"../secret.jsonl",
		"%2e%2e/secret.jsonl",
		"%2E%2E/secret.jsonl",
		".%2e/secret.jsonl",
		"..%2fsecret.jsonl",
		"..%2Fsecret.jsonl",
		"%2e%2e%2fsecret.jsonl",
		"run.jsonl/../../secret.jsonl",
		"x/..%2f..%2fsecret.jsonl",
		"..%5csecret.jsonl",
		"..%5Csecretdir%5Csecret.jsonl",
		`..\secret.jsonl`,
		"/" + escapedAbs[1:],        // //tmp/...: an absolute path
		"%2F" + escapedAbs[1:],      // the same, encoded
		"..%2f..%2f.." + escapedAbs, // and relative from far up
		"%2e%2e%2f%2e%2e%2f%2e%2e" + escapedAbs,
		"link.jsonl",           // a symlink out of the directory
		"abs.jsonl",            // an absolute symlink out of it
		"linkdir/secret.jsonl", // through a symlinked directory
		"../runs-evil/secret.jsonl",
		"notes.txt", // inside, but not an artifact
		"notes.txt%00.jsonl",
		"run.jsonl%00",
		"run.jsonl%00.txt",
		".hidden.jsonl",
		"dir.jsonl",
		"fifo.jsonl",
		"run.jsonl/",
		"./run.jsonl",
		"",
	} {
		for _, route := range []string{"/run/", "/events/", "/raw/", "/data/"} {
			target := route + p
			code, body := raw(t, ts.addr, target, ts.addr)
			require.Contains(t, []int{http.StatusBadRequest, http.StatusNotFound}, code, "%s: %d %s", target, code, body)
			require.NotContains(t, body, secret, target)
		}
	}

	// What is inside is served, a link that stays inside included, so the
	// refusals above are refusals, not a broken server.
	for _, target := range []string{"/run/run.jsonl", "/raw/run.jsonl", "/run/inside.jsonl", "/raw/inside.jsonl", "/data/run.jsonl"} {
		code, _ := raw(t, ts.addr, target, ts.addr)
		require.Equal(t, http.StatusOK, code, target)
	}
	code, body := raw(t, ts.addr, "/raw/run.jsonl", ts.addr)
	require.Equal(t, http.StatusOK, code)
	want, err := os.ReadFile(filepath.Join(dir, "run.jsonl"))
	require.NoError(t, err)
	require.Equal(t, string(want), body)

	// The list shows the artifacts inside and nothing else.
	code, body = raw(t, ts.addr, "/", ts.addr)
	require.Equal(t, http.StatusOK, code)
	require.NotContains(t, body, secret)
	var listed []string
	for _, r := range rows(t, body) {
		listed = append(listed, r.path)
	}
	require.ElementsMatch(t, []string{"run.jsonl", "inside.jsonl"}, listed)
}

// A page on another site whose name resolves to 127.0.0.1 (DNS
// rebinding) sends its own name as Host, and is refused.
func TestRefusesForeignHost(t *testing.T) {
	dir := t.TempDir()
	copyFile(t, filepath.Join(golden, "agent-run.jsonl"), dir, "run.jsonl")
	ts := start(t, dir)
	_, port, err := net.SplitHostPort(ts.addr)
	require.NoError(t, err)
	for host, want := range map[string]int{
		"127.0.0.1:" + port:            http.StatusOK,
		"localhost:" + port:            http.StatusOK,
		"LocalHost":                    http.StatusOK,
		"[::1]:" + port:                http.StatusOK,
		"127.0.0.2":                    http.StatusOK,
		"evil.example":                 http.StatusForbidden,
		"evil.example:" + port:         http.StatusForbidden,
		"127.0.0.1.nip.io:" + port:     http.StatusForbidden,
		"localhost.evil.example":       http.StatusForbidden,
		"0.0.0.0:" + port:              http.StatusForbidden,
		"192.168.1.1:" + port:          http.StatusForbidden,
		"[::ffff:192.168.1.1]:" + port: http.StatusForbidden,
	} {
		for _, target := range []string{"/", "/run/run.jsonl", "/raw/run.jsonl", "/data/run.jsonl"} {
			code, body := raw(t, ts.addr, target, host)
			require.Equal(t, want, code, "Host %s %s", host, target)
			if want != http.StatusOK {
				require.NotContains(t, body, "travel-planner", "Host %s %s", host, target)
			}
		}
	}
	// HTTP/1.1 without a Host is refused by net/http itself.
	code, _ := raw(t, ts.addr, "/", "")
	require.Equal(t, http.StatusBadRequest, code)
}

func TestCheckAddr(t *testing.T) {
	for _, addr := range []string{"127.0.0.1:0", "127.0.0.1:8080", "localhost:0", "[::1]:0", "127.1.2.3:65535"} {
		require.NoError(t, server.CheckAddr(addr), addr)
	}
	for _, addr := range []string{"0.0.0.0:0", "192.168.1.1:0", ":0", "example.com:0", "[::]:0", "[::ffff:10.0.0.1]:0", "localhost.example.com:0"} {
		require.ErrorIs(t, server.CheckAddr(addr), server.ErrNotLoopback, addr)
	}
	for _, addr := range []string{"127.0.0.1", "127.0.0.1:http", "127.0.0.1:70000", "127.0.0.1:-1", ""} {
		err := server.CheckAddr(addr)
		require.Error(t, err, addr)
		require.NotErrorIs(t, err, server.ErrNotLoopback, addr)
	}
}

// fakeListener claims an address without binding it.
type fakeListener struct {
	net.Listener
	addr net.Addr
}

func (l fakeListener) Addr() net.Addr { return l.addr }
func (l fakeListener) Close() error   { return nil }

func TestServeRefusesNonLoopbackListener(t *testing.T) {
	s, err := server.New(t.TempDir())
	require.NoError(t, err)
	defer s.Shutdown(context.Background())
	for _, ip := range []string{"0.0.0.0", "192.168.1.1", "::"} {
		ln := fakeListener{addr: &net.TCPAddr{IP: net.ParseIP(ip), Port: 8080}}
		require.ErrorIs(t, s.Serve(ln), server.ErrNotLoopback, ip)
	}
}

func TestNewRefusesWhatIsNotADirectory(t *testing.T) {
	dir := t.TempDir()
	_, err := server.New(filepath.Join(dir, "missing"))
	require.ErrorIs(t, err, os.ErrNotExist)
	file := copyFile(t, filepath.Join(golden, "agent-run.jsonl"), dir, "a.jsonl")
	_, err = server.New(file)
	require.ErrorContains(t, err, "not a directory")
}

func TestOtherRoutesAndMethods(t *testing.T) {
	dir := t.TempDir()
	copyFile(t, filepath.Join(golden, "agent-run.jsonl"), dir, "a.jsonl")
	appendFile(t, filepath.Join(dir, "v2.jsonl"), `{"v":2,"kind":"meta","started_at":"2026-01-01T00:00:00Z"}`+"\n")
	ts := start(t, dir)

	resp, _ := ts.get(t, "/favicon.ico")
	require.Equal(t, http.StatusNotFound, resp.StatusCode)
	resp, body := ts.get(t, "/run/v2.jsonl")
	require.Equal(t, http.StatusUnprocessableEntity, resp.StatusCode)
	require.Contains(t, body, "version")
	resp, body = ts.get(t, "/raw/a.jsonl")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, "application/jsonl; charset=utf-8", resp.Header.Get("Content-Type"))
	require.Equal(t, `attachment; filename=a.jsonl`, resp.Header.Get("Content-Disposition"))
	require.True(t, strings.HasPrefix(body, `{"v":1,"kind":"meta"`))

	resp, body = ts.get(t, "/data/v2.jsonl")
	require.Equal(t, http.StatusUnprocessableEntity, resp.StatusCode)
	require.Contains(t, body, "version")

	for _, target := range []string{"/", "/run/a.jsonl", "/events/a.jsonl", "/data/a.jsonl"} {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, ts.url+target, strings.NewReader("x"))
		require.NoError(t, err)
		resp, err := ts.ts.Client().Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		require.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode, target)
		require.NotEmpty(t, resp.Header.Get("Allow"))
	}
}

// Names with spaces, "#", "?" and non-ASCII letters are listed, linked
// and followed: each path segment is percent-encoded once and decoded
// once.
func TestOddFileNames(t *testing.T) {
	dir := t.TempDir()
	names := []string{"run one #1?.jsonl", "résumé/ünïcode.jsonl", "a'b\"c<d>.jsonl"}
	for _, n := range names {
		copyFile(t, filepath.Join(golden, "agent-run.jsonl"), dir, n)
	}
	ts := start(t, dir, fast)
	_, page := ts.get(t, "/")
	got := rows(t, page)
	require.Len(t, got, len(names))
	for _, r := range got {
		require.Contains(t, names, r.path)
		resp, _ := ts.get(t, r.href)
		require.Equal(t, http.StatusOK, resp.StatusCode, r.href)
		live, _ := ts.liveURL(t, strings.TrimPrefix(r.href, "/run/"))
		stream, _, _ := strings.Cut(live, "?")
		es := ts.openEvents(t, stream+"?offset=0", "")
		require.Contains(t, es.next(t).data, `"kind":"meta"`, r.path)
		es.close()
	}
}
