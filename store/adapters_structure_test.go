package store_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fileCalls are the os functions that open, create, write, rename or
// remove files: what only the store may do with artifacts.
var fileCalls = map[string]bool{
	"Open": true, "OpenFile": true, "Create": true, "CreateTemp": true,
	"WriteFile": true, "ReadFile": true, "Rename": true, "Remove": true,
	"RemoveAll": true, "Truncate": true, "Mkdir": true, "MkdirAll": true,
	"MkdirTemp": true, "Link": true, "Symlink": true, "Chmod": true,
}

// rawFileImports give a way around os to the file system.
var rawFileImports = map[string]bool{
	"syscall": true, "golang.org/x/sys/unix": true, "io/ioutil": true,
}

// TestAdaptersOpenNoFiles holds issue 11's structure: the SDK span
// processor (bridge/) and the collector exporter (exporter/) are adapters
// of the store and never open, write, rename or remove a file themselves.
// It reads their non-test Go files and fails on any call of os's file
// functions or any import of a raw system-call package.
func TestAdaptersOpenNoFiles(t *testing.T) {
	for _, dir := range []string{"../bridge", "../exporter"} {
		var files int
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			files++
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
			if err != nil {
				return err
			}
			osName := ""
			for _, imp := range f.Imports {
				p, _ := strconv.Unquote(imp.Path.Value)
				assert.False(t, rawFileImports[p], "%s imports %s", path, p)
				if p == "os" {
					osName = "os"
					if imp.Name != nil {
						osName = imp.Name.Name
					}
				}
			}
			if osName == "" {
				return nil
			}
			ast.Inspect(f, func(n ast.Node) bool {
				sel, ok := n.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				if id, ok := sel.X.(*ast.Ident); ok && id.Name == osName && fileCalls[sel.Sel.Name] {
					t.Errorf("%s calls os.%s: artifact files belong to the store", path, sel.Sel.Name)
				}
				return true
			})
			return nil
		})
		require.NoError(t, err)
		require.Positive(t, files, "no Go files read under %s", dir)
	}
}

// TestAdaptersRedactThroughTheStore holds issue 27's one store wiring:
// the SDK processor, the collector exporter and the OTLP receiver make a
// Redactor (redact.New) and pass it to the store, which applies it to
// resources, scopes, spans and log records; none names anything else of
// package redact (a Redactor's type, to keep one, or its methods'
// helpers), so none redacts by a rule of its own.
func TestAdaptersRedactThroughTheStore(t *testing.T) {
	for _, dir := range []string{"../bridge", "../exporter", "../receiver"} {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			if strings.Contains(filepath.ToSlash(path), "/redactprocessor/") {
				return nil // the collector processor that redacts in a pipeline: its job
			}
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
			if err != nil {
				return err
			}
			name := ""
			for _, imp := range f.Imports {
				if p, _ := strconv.Unquote(imp.Path.Value); p == "github.com/agenttrace/agenttrace/redact" {
					name = "redact"
					if imp.Name != nil {
						name = imp.Name.Name
					}
				}
			}
			if name == "" {
				return nil
			}
			ast.Inspect(f, func(n ast.Node) bool {
				if sel, ok := n.(*ast.SelectorExpr); ok {
					if id, ok := sel.X.(*ast.Ident); ok && id.Name == name && sel.Sel.Name != "New" {
						t.Errorf("%s uses redact.%s: redaction is the store's (store.Options.Redactor)", path, sel.Sel.Name)
					}
				}
				return true
			})
			return nil
		})
		require.NoError(t, err)
	}
}
