package main

import (
	"bytes"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// convertTo runs `convert` on a dialect fixture with out as -o, and
// returns the result and the artifact it should have written.
func convertTo(t *testing.T, out string, extra ...string) (result, string) {
	t.Helper()
	src := dialects(t)["genai-v141"]
	want := agenttrace(t, "", "convert", src, "-o", "-")
	require.Equal(t, 0, want.code, want.stderr)
	return agenttrace(t, "", append([]string{"convert", src, "-o", out, "--to", "jsonl"}, extra...)...), want.stdout
}

// noTemps asserts that dir holds no temporary file left by a write.
func noTemps(t *testing.T, dir string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range ents {
		assert.False(t, strings.HasSuffix(e.Name(), ".tmp"), "temporary file left: %s", e.Name())
	}
}

// TestOutputRegularFile: a regular file is replaced atomically, keeping
// its mode; a new one is created 0644.
func TestOutputRegularFile(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		name     string
		existing os.FileMode // 0: none
		want     os.FileMode
	}{
		{"new", 0, 0o644},
		{"private", 0o600, 0o600},
		{"group-writable", 0o664, 0o664},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, tt.name+".jsonl")
			if tt.existing != 0 {
				require.NoError(t, os.WriteFile(path, []byte("old\n"), tt.existing))
				require.NoError(t, os.Chmod(path, tt.existing)) // past the umask
			}
			r, want := convertTo(t, path)
			require.Equal(t, 0, r.code, r.stderr)
			got, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.Equal(t, want, string(got))
			fi, err := os.Lstat(path)
			require.NoError(t, err)
			assert.True(t, fi.Mode().IsRegular())
			assert.Equal(t, tt.want, fi.Mode().Perm())
		})
	}
	noTemps(t, dir)
}

// TestOutputSymlink: a link is followed and its target written, in the
// target's directory; the link stays a link. Chains and dangling links
// too.
func TestOutputSymlink(t *testing.T) {
	linkDir, targetDir := t.TempDir(), t.TempDir()
	target := filepath.Join(targetDir, "real.jsonl")
	require.NoError(t, os.WriteFile(target, []byte("old\n"), 0o640))
	require.NoError(t, os.Chmod(target, 0o640))

	abs := filepath.Join(linkDir, "abs.jsonl")
	require.NoError(t, os.Symlink(target, abs))
	rel := filepath.Join(targetDir, "rel.jsonl")
	require.NoError(t, os.Symlink("real.jsonl", rel))
	chain := filepath.Join(linkDir, "chain.jsonl")
	require.NoError(t, os.Symlink(rel, chain))
	dangling := filepath.Join(linkDir, "dangling.jsonl")
	created := filepath.Join(targetDir, "created.jsonl")
	require.NoError(t, os.Symlink(created, dangling))

	for _, tt := range []struct{ link, target string }{
		{abs, target}, {rel, target}, {chain, target}, {dangling, created},
	} {
		t.Run(filepath.Base(tt.link), func(t *testing.T) {
			require.NoError(t, os.WriteFile(target, []byte("old\n"), 0o640))
			r, want := convertTo(t, tt.link)
			require.Equal(t, 0, r.code, r.stderr)
			fi, err := os.Lstat(tt.link)
			require.NoError(t, err)
			assert.Equal(t, os.ModeSymlink, fi.Mode().Type(), "the link stays a link")
			got, err := os.ReadFile(tt.target)
			require.NoError(t, err)
			assert.Equal(t, want, string(got))
			if tt.target == target {
				fi, err := os.Stat(target)
				require.NoError(t, err)
				assert.Equal(t, os.FileMode(0o640), fi.Mode().Perm(), "the target keeps its mode")
			}
		})
	}
	noTemps(t, linkDir)
	noTemps(t, targetDir)

	loop := filepath.Join(linkDir, "loop.jsonl")
	require.NoError(t, os.Symlink(loop, loop))
	r, _ := convertTo(t, loop)
	assert.Equal(t, exitUsage, r.code)
	assert.Contains(t, r.stderr, "write "+loop+": more than")
}

// charDevice returns a character device node for the device major:minor:
// one made with mknod in a temporary directory when that works (as root,
// on a file system that allows devices), else the system's own at dev.
func charDevice(t *testing.T, major, minor uint32, dev string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "dev")
	if err := syscall.Mknod(path, syscall.S_IFCHR|0o666, int(mkdev(major, minor))); err == nil {
		if f, err := os.OpenFile(path, os.O_WRONLY, 0); err == nil {
			f.Close()
			return path
		}
		// A nodev mount: the node exists but cannot be opened.
		t.Logf("%s: mknod works but the node cannot be opened (nodev); using %s", path, dev)
	}
	return dev
}

// assertCharDevice asserts that path is still the character device
// major:minor.
func assertCharDevice(t *testing.T, path string, major, minor uint32) {
	t.Helper()
	var st syscall.Stat_t
	require.NoError(t, syscall.Lstat(path, &st))
	assert.Equal(t, uint32(syscall.S_IFCHR), st.Mode&syscall.S_IFMT, "%s is still a character device", path)
	assert.Equal(t, mkdev(major, minor), uint64(st.Rdev), "%s is still device %d:%d", path, major, minor)
}

// mkdev encodes a Linux device number, as glibc's makedev does.
func mkdev(major, minor uint32) uint64 {
	ma, mi := uint64(major), uint64(minor)
	return ma&0xfff<<8 | ma&^0xfff<<32 | mi&0xff | mi&^0xff<<12
}

// TestOutputCharDevice: a device is written to, never replaced; a device
// that fails the write (/dev/full) is exit 2 naming it.
func TestOutputCharDevice(t *testing.T) {
	for _, tt := range []struct {
		name         string
		major, minor uint32
		dev          string
		code         int
	}{
		{"null", 1, 3, "/dev/null", 0},
		{"full", 1, 7, "/dev/full", exitUsage},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for _, path := range []string{charDevice(t, tt.major, tt.minor, tt.dev), tt.dev} {
				r, _ := convertTo(t, path)
				assert.Equal(t, tt.code, r.code, r.stderr)
				if tt.code != 0 {
					assert.Contains(t, r.stderr, "agenttrace: write "+path+": ")
					assert.Contains(t, r.stderr, "no space left on device")
				}
				assertCharDevice(t, path, tt.major, tt.minor)
			}
		})
	}
}

// TestOutputNamedPipe: a named pipe is written to, never replaced, and
// its reader gets the whole artifact.
func TestOutputNamedPipe(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	path := filepath.Join(t.TempDir(), "pipe.jsonl")
	require.NoError(t, syscall.Mkfifo(path, 0o600))
	got := make(chan []byte, 1)
	go func() {
		f, err := os.Open(path) // waits for the writer
		if err != nil {
			got <- []byte(err.Error())
			return
		}
		defer f.Close()
		b, err := io.ReadAll(f)
		if err != nil {
			b = []byte(err.Error())
		}
		got <- b
	}()
	r, want := convertTo(t, path)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, want, string(<-got))
	fi, err := os.Lstat(path)
	require.NoError(t, err)
	assert.Equal(t, os.ModeNamedPipe, fi.Mode().Type(), "still a named pipe")
}

// TestOutputSocket: a Unix socket is written to, never replaced.
func TestOutputSocket(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	path := filepath.Join(t.TempDir(), "out.sock")
	ln, err := net.Listen("unix", path)
	require.NoError(t, err)
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	got := make(chan []byte, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			got <- []byte(err.Error())
			return
		}
		defer c.Close()
		b, _ := io.ReadAll(c)
		got <- b
	}()
	r, want := convertTo(t, path)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, want, string(<-got))
	require.NoError(t, ln.Close())
	fi, err := os.Lstat(path)
	require.NoError(t, err)
	assert.Equal(t, os.ModeSocket, fi.Mode().Type(), "still a socket")
}

// TestOutputFullDisk: a file system that fills up mid-write is exit 2
// naming the output, and the old output is left whole: a tmpfs of 64 KiB
// (as root), written an artifact larger than that.
func TestOutputFullDisk(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=64k"); err != nil {
		t.Skipf("cannot mount a small tmpfs to fill (%v): not root, or no CAP_SYS_ADMIN; TestOutputCharDevice covers /dev/full", err)
	}
	t.Cleanup(func() { _ = syscall.Unmount(dir, 0) })
	out := filepath.Join(dir, "run.jsonl")
	require.NoError(t, os.WriteFile(out, []byte("old\n"), 0o644))
	// Several copies of the fixture make an artifact well over 64 KiB.
	src := dialects(t)["genai-v141"]
	var args []string
	for range 64 {
		args = append(args, src)
	}
	r := agenttrace(t, "", append(append([]string{"convert"}, args...), "-o", out)...)
	assert.Equal(t, exitUsage, r.code, r.stderr)
	assert.Contains(t, r.stderr, "agenttrace: write "+out+": ")
	assert.Contains(t, r.stderr, "no space left on device")
	got, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.Equal(t, "old\n", string(got), "the old output is untouched")
	noTemps(t, dir)
}

// failWriter fails every write with err.
type failWriter struct{ err error }

func (w failWriter) Write([]byte) (int, error) { return 0, w.err }

// TestOutputStdoutErrors: a standard output that cannot be written is
// exit 2 naming it, whatever the command writes there; a reader that
// closed the pipe (tokens | head) is not an error: see
// TestOutputClosedPipe.
func TestOutputStdoutErrors(t *testing.T) {
	src := dialects(t)["genai-v141"]
	jsonl := filepath.Join(t.TempDir(), "run.jsonl")
	require.Equal(t, 0, agenttrace(t, "", "convert", src, "-o", jsonl).code)

	full := func(t *testing.T) io.Writer {
		f, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
		require.NoError(t, err)
		t.Cleanup(func() { f.Close() })
		return f
	}
	for _, stdout := range []struct {
		name string
		w    func(*testing.T) io.Writer
		want error
	}{
		{"dev full", full, syscall.ENOSPC},
		{"failing writer", func(*testing.T) io.Writer { return failWriter{syscall.EIO} }, syscall.EIO},
	} {
		for _, args := range [][]string{
			{"convert", src, "-o", "-"},
			{"tokens", jsonl},
			{"tokens", "--json", jsonl},
			{"validate", jsonl},
			{"html", jsonl, "-o", "-"},
		} {
			t.Run(stdout.name+"/"+args[0], func(t *testing.T) {
				var errOut bytes.Buffer
				code := run(args, strings.NewReader(""), stdout.w(t), &errOut)
				assert.Equal(t, exitUsage, code, errOut.String())
				assert.Regexp(t, "^agenttrace: write standard output: .*"+stdout.want.Error()+"\n$", errOut.String())
				assert.Equal(t, 1, strings.Count(errOut.String(), "write standard output"), "said once")
			})
		}
	}
}

// TestOutputClosedPipe: "agenttrace tokens run.jsonl | head" ends
// quietly, as any filter does when its reader has read enough: no
// broken-pipe message, the command's own exit status.
func TestOutputClosedPipe(t *testing.T) {
	src := dialects(t)["genai-v141"]
	jsonl := filepath.Join(t.TempDir(), "run.jsonl")
	require.Equal(t, 0, agenttrace(t, "", "convert", src, "-o", jsonl).code)
	for _, args := range [][]string{
		{"convert", src, "-o", "-"},
		{"tokens", jsonl},
		{"validate", jsonl},
	} {
		t.Run(args[0], func(t *testing.T) {
			pr, pw, err := os.Pipe()
			require.NoError(t, err)
			require.NoError(t, pr.Close())
			defer pw.Close()
			var errOut bytes.Buffer
			code := run(args, strings.NewReader(""), pw, &errOut)
			assert.Equal(t, exitOK, code, errOut.String())
			assert.Empty(t, errOut.String())
		})
	}
}

// TestOutputEveryWriter: every command that writes a file named on its
// command line writes through a symlink and into a device, never
// replacing either.
func TestOutputEveryWriter(t *testing.T) {
	src := dialects(t)["genai-v141"]
	for _, cmd := range []struct {
		name string
		args func(out string) []string
		want string // in what is written
	}{
		{"convert", func(out string) []string { return []string{"convert", src, "-o", out, "--to", "jsonl"} }, `"kind":"summary"`},
		{"convert otlp", func(out string) []string { return []string{"convert", src, "-o", out, "--to", "otlp-json"} }, `"resourceSpans"`},
		{"html", func(out string) []string { return []string{"html", src, "-o", out} }, "<html"},
	} {
		t.Run(cmd.name, func(t *testing.T) {
			dir := t.TempDir()
			target := filepath.Join(dir, "target.out")
			link := filepath.Join(dir, "link.out")
			require.NoError(t, os.Symlink(target, link))
			r := agenttrace(t, "", cmd.args(link)...)
			require.Equal(t, 0, r.code, r.stderr)
			fi, err := os.Lstat(link)
			require.NoError(t, err)
			assert.Equal(t, os.ModeSymlink, fi.Mode().Type())
			got, err := os.ReadFile(target)
			require.NoError(t, err)
			assert.Contains(t, string(got), cmd.want)

			dev := charDevice(t, 1, 3, "/dev/null")
			r = agenttrace(t, "", cmd.args(dev)...)
			require.Equal(t, 0, r.code, r.stderr)
			assertCharDevice(t, dev, 1, 3)

			full := charDevice(t, 1, 7, "/dev/full")
			r = agenttrace(t, "", cmd.args(full)...)
			assert.Equal(t, exitUsage, r.code)
			assert.Contains(t, r.stderr, "agenttrace: write "+full+": no space left on device")
			assertCharDevice(t, full, 1, 7)
		})
	}
}
