package sizes

import (
	"bufio"
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// The limits, as docs/style of the repository states them.
const (
	MaxFileLines = 600
	MaxFuncLines = 100
)

// exemptMark, on its own line before the package clause, takes a file out
// of the rule; what follows it says why.
const exemptMark = "//agenttrace:size-exempt"

// Over is one file or function over its limit: Name is the file's path
// from the root (slash-separated), or that path, "#" and the function's
// name (Type.Method for a method).
type Over struct {
	Name  string
	Lines int
}

// Measure walks root's Go files (tests, testdata, vendor and hidden
// folders aside) and returns every file and function over its limit,
// sorted by name.
func Measure(root string) ([]Over, error) {
	var over []Over
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (name == "testdata" || name == "vendor" || name == "node_modules" || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		found, err := measureFile(path, filepath.ToSlash(rel))
		if err != nil {
			return err
		}
		over = append(over, found...)
		return nil
	})
	sort.Slice(over, func(i, j int) bool { return over[i].Name < over[j].Name })
	return over, err
}

// measureFile returns what of one file is over a limit.
func measureFile(path, rel string) ([]Over, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.ParseComments)
	if err != nil {
		return nil, fmt.Errorf("sizes: %w", err)
	}
	if ast.IsGenerated(f) || exempt(src, fset.Position(f.Package).Offset) {
		return nil, nil
	}
	var over []Over
	if n := bytes.Count(src, []byte("\n")); n > MaxFileLines {
		over = append(over, Over{rel, n})
	}
	for _, decl := range f.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Body == nil {
			continue
		}
		n := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1
		if n > MaxFuncLines {
			over = append(over, Over{rel + "#" + funcName(fn), n})
		}
	}
	return over, nil
}

// exempt reports whether a line before the package clause carries the mark.
func exempt(src []byte, pkgOffset int) bool {
	for _, line := range strings.Split(string(src[:pkgOffset]), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), exemptMark+" ") {
			return true
		}
	}
	return false
}

func funcName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return fn.Name.Name
	}
	t := fn.Recv.List[0].Type
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
			continue
		case *ast.IndexExpr:
			t = x.X
			continue
		case *ast.IndexListExpr:
			t = x.X
			continue
		}
		break
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name + "." + fn.Name.Name
	}
	return fn.Name.Name
}

// ReadBaseline reads lines "NAME LINES" (blank lines and # comments
// aside) into a map.
func ReadBaseline(path string) (map[string]int, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	base := map[string]int{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, lines, ok := strings.Cut(line, " ")
		v, err := strconv.Atoi(strings.TrimSpace(lines))
		if !ok || err != nil {
			return nil, fmt.Errorf("%s:%d: want \"NAME LINES\", have %q", path, n, line)
		}
		base[name] = v
	}
	return base, sc.Err()
}

// WriteBaseline writes over in ReadBaseline's form.
func WriteBaseline(path, header string, over []Over) error {
	var b strings.Builder
	b.WriteString(header)
	for _, o := range over {
		fmt.Fprintf(&b, "%s %d\n", o.Name, o.Lines)
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}
