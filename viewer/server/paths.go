package server

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// ext is the file name ending of the artifacts served.
const ext = ".jsonl"

// importExts are the other endings served: a JSON document (OTLP/JSON,
// Jaeger, ATIF, AgentEval, stored streaming events) or OTLP protobuf. Such
// a file is a run only when its content is a shape agenttrace reads
// (inputs.go); any other is neither listed nor served.
var importExts = [...]string{".json", ".pb"}

// servedName tells whether a file of this name may be served: an
// artifact, or a file of another shape (importExts).
func servedName(name string) bool {
	e := path.Ext(name)
	return e == ext || slices.Contains(importExts[:], e)
}

// errNotArtifact is a path that names something other than a regular
// *.jsonl file.
var errNotArtifact = errors.New("not an artifact (a regular *.jsonl file, or a .json or .pb file of a shape agenttrace reads)")

// errBadPath is a request path that could reach outside the directory or
// name something the list never shows.
var errBadPath = errors.New("bad artifact path")

// cleanRel turns the escaped path of a request, after its route, into a
// slash-separated path relative to the directory. It refuses, rather
// than cleans, anything that is not already a plain relative path: "."
// and ".." segments (written plainly or percent-encoded), empty segments
// (so no absolute path), encoded or plain backslashes, encoded slashes,
// NUL and other control characters, and hidden names (a leading dot).
// Refusing keeps one spelling per file, so nothing is served under a name
// the list does not show.
func cleanRel(escaped string) (string, error) {
	if escaped == "" {
		return "", fmt.Errorf("%w: empty", errBadPath)
	}
	segs := strings.Split(escaped, "/")
	for i, raw := range segs {
		seg, err := url.PathUnescape(raw)
		if err != nil {
			return "", fmt.Errorf("%w: %w", errBadPath, err)
		}
		switch {
		case seg == "":
			return "", fmt.Errorf("%w: empty segment", errBadPath)
		case seg[0] == '.':
			return "", fmt.Errorf("%w: %q: dot segment or hidden name", errBadPath, seg)
		case strings.ContainsAny(seg, `/\`):
			return "", fmt.Errorf("%w: %q: slash or backslash inside a segment", errBadPath, seg)
		case strings.ContainsFunc(seg, func(r rune) bool { return r < 0x20 || r == 0x7f }):
			return "", fmt.Errorf("%w: %q: control character", errBadPath, seg)
		}
		segs[i] = seg
	}
	rel := strings.Join(segs, "/")
	// Belt and braces: what is left must be a local path both as a URL
	// path and for this operating system (no volume names, no reserved
	// device names on Windows).
	if !fs.ValidPath(rel) || !filepath.IsLocal(filepath.FromSlash(rel)) {
		return "", fmt.Errorf("%w: %q is not a local path", errBadPath, rel)
	}
	if !servedName(rel) {
		return "", fmt.Errorf("%w: %q: %w", errBadPath, rel, errNotArtifact)
	}
	return rel, nil
}

// escapeRel is the inverse of cleanRel: rel with each segment
// percent-encoded, for a URL path.
func escapeRel(rel string) string {
	segs := strings.Split(rel, "/")
	for i, seg := range segs {
		segs[i] = url.PathEscape(seg)
	}
	return strings.Join(segs, "/")
}

// artifact is an artifact opened for a request.
type servedRun struct {
	rel string       // slash-separated, relative to the directory
	f   artifactFile // opened through the os.Root (an *os.File), or a converted file in memory (inputs.go)
	fi  os.FileInfo  // of f, at opening
	imp *imported    // non-nil: f is the artifact the file of another shape converts to
}

// artifactFile is what is read of an artifact: an *os.File, or the
// artifact a file of another shape converts to (memFile).
type artifactFile interface {
	io.Reader
	io.ReaderAt
	io.Seeker
	io.Closer
	Stat() (fs.FileInfo, error)
}

// openArtifact opens rel through root, which refuses every path (".."
// or a symbolic link) that leads outside the directory. Only a regular
// file is opened: it is checked before opening, since opening a FIFO
// would block, and again on the descriptor, in case the path was swapped
// in between.
func openArtifact(root *os.Root, rel string) (*servedRun, error) {
	name := filepath.FromSlash(rel)
	before, err := root.Stat(name)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", rel, err)
	}
	if !before.Mode().IsRegular() || !servedName(rel) {
		return nil, fmt.Errorf("open %s: %w", rel, errNotArtifact)
	}
	f, err := root.Open(name)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", rel, err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("open %s: %w", rel, err)
	}
	if !fi.Mode().IsRegular() || !os.SameFile(before, fi) {
		f.Close()
		return nil, fmt.Errorf("open %s: %w", rel, errNotArtifact)
	}
	return &servedRun{rel: rel, f: f, fi: fi}, nil
}
