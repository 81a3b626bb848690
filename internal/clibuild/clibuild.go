// Package clibuild builds the agenttrace command from this checkout for
// tests that run it as a user would: end-to-end suites of the CLI, the
// collector and the SDKs beside it.
package clibuild

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

// Main builds the command, sets *path to it, runs m's tests, removes the
// build and exits with their code: a test package's TestMain in one line,
// for suites whose every test runs the command.
func Main(m *testing.M, path *string) {
	p, remove, err := build()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	*path = p
	code := m.Run()
	remove()
	os.Exit(code)
}

var lazy struct {
	once sync.Once
	path string
	err  error
}

// Path returns the command built on first use in this test binary, for
// suites where only some tests run it; t fails when it does not build. The
// build stays in the system's temporary directory, one per test binary.
func Path(t testing.TB) string {
	t.Helper()
	lazy.once.Do(func() { lazy.path, _, lazy.err = build() })
	if lazy.err != nil {
		t.Fatal(lazy.err)
	}
	return lazy.path
}

// build builds cmd/agenttrace into a new temporary directory, from the
// module root this file sits in (so that a test of another module of the
// repository, the exporter's, builds the same command), and returns its
// path and what removes it.
func build() (path string, remove func(), err error) {
	_, self, _, ok := runtime.Caller(0)
	if !ok {
		return "", nil, fmt.Errorf("building agenttrace: cannot locate the module root")
	}
	root := filepath.Join(filepath.Dir(self), "..", "..")
	dir, err := os.MkdirTemp("", "agenttrace-cli")
	if err != nil {
		return "", nil, fmt.Errorf("building agenttrace: %w", err)
	}
	path = filepath.Join(dir, "agenttrace")
	cmd := exec.Command("go", "build", "-o", path, "./cmd/agenttrace")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return "", nil, fmt.Errorf("building agenttrace: %w\n%s", err, out)
	}
	return path, func() { os.RemoveAll(dir) }, nil
}
