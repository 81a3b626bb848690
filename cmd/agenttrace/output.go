package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/artifact"
)

// outFormat is what convert writes.
type outFormat uint8

const (
	outJSONL outFormat = iota
	outOTLPJSON
	outOTLPProto
	outATIF
)

// outFormats maps --to values to formats, and formats to file extensions.
var outFormats = []struct {
	name, ext string
	f         outFormat
}{
	{"jsonl", ".jsonl", outJSONL},
	{"otlp-json", ".json", outOTLPJSON},
	{"otlp-proto", ".pb", outOTLPProto},
	{"atif", ".atif.json", outATIF},
}

func formatNames() string {
	names := make([]string, len(outFormats))
	for i, o := range outFormats {
		names[i] = o.name
	}
	return strings.Join(names, ", ")
}

// parseOutFormat reads a --to value.
func parseOutFormat(s string) (outFormat, error) {
	for _, o := range outFormats {
		if o.name == s {
			return o.f, nil
		}
	}
	return 0, usageErrorf("--to %q: want one of %s", s, formatNames())
}

// formatOfPath tells the output format from a file's extension.
func formatOfPath(path string) (outFormat, error) {
	lower := strings.ToLower(path)
	if strings.HasSuffix(lower, ".atif.json") { // before .json: OTLP/JSON
		return outATIF, nil
	}
	ext := filepath.Ext(lower)
	for _, o := range outFormats {
		if o.ext == ext {
			return o.f, nil
		}
	}
	return 0, usageErrorf("cannot tell the output format of %q from its extension (.jsonl, .json, .pb, .atif.json); use --to", path)
}

func (f outFormat) ext() string {
	for _, o := range outFormats {
		if o.f == f {
			return o.ext
		}
	}
	return ""
}

// encode writes recs to w in format f, with meta as the artifact header
// (or, for OTLP, carried in the resource attributes), and opts for an
// artifact's writer. OTLP output moves the spans out of recs.
func encode(w io.Writer, f outFormat, recs []artifact.Record, meta *artifact.Meta, opts ...artifact.WriterOption) error {
	if f == outJSONL {
		bw := bufio.NewWriterSize(w, 64<<10)
		aw := artifact.NewWriter(bw, meta, opts...)
		for i := range recs {
			if err := aw.Write(&recs[i]); err != nil {
				return err
			}
		}
		if err := aw.Close(); err != nil {
			return err
		}
		return bw.Flush()
	}
	// The header's budget and redaction travel in the resource, where
	// reading the artifact put them.
	td := artifact.ToTraces(recs)
	var (
		b   []byte
		err error
	)
	if f == outOTLPJSON {
		b, err = (&ptrace.JSONMarshaler{}).MarshalTraces(td)
	} else {
		b, err = (&ptrace.ProtoMarshaler{}).MarshalTraces(td)
	}
	if err != nil {
		return fmt.Errorf("encode OTLP: %w", err)
	}
	_, err = w.Write(b)
	return err
}

// printJSON writes v to standard output as indented JSON: the --json
// form of every report.
func (e *env) printJSON(v any) error {
	enc := json.NewEncoder(e.stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return writeError("standard output", err)
	}
	return nil
}

// printReport writes rep to standard output, as JSON with --json or else
// as text.
func (e *env) printReport(asJSON bool, rep interface{ WriteText(io.Writer) error }) error {
	if asJSON {
		return e.printJSON(rep)
	}
	if err := rep.WriteText(e.stdout); err != nil {
		return writeError("standard output", err)
	}
	return nil
}

// writeOutput writes path, or standard output for "-", with write.
func (e *env) writeOutput(path string, write func(io.Writer) error) error {
	if path != "-" {
		return writeFile(path, write)
	}
	if err := write(e.stdout); err != nil {
		return writeError("standard output", err)
	}
	return nil
}

// writeError reports write's failure to write name (exit 2); an
// exitError write returns (an input's, found while writing) stays as it
// is.
func writeError(name string, err error) error {
	var ee *exitError
	if errors.As(err, &ee) {
		return err
	}
	return ioError(fmt.Errorf("write %s: %w", name, bare(err)))
}

// bare drops the file name an *os.File's error repeats ("write
// /dev/stdout: broken pipe"): messages name the output once, as the user
// gave it.
func bare(err error) error {
	if pe, ok := err.(*fs.PathError); ok {
		return pe.Err
	}
	return err
}

// writeFile writes the output path with write, safely for whatever path
// names:
//
//   - a regular file, or none, is replaced atomically: write fills a
//     temporary file in the same directory, which is synced and renamed
//     over it once complete, keeping its mode. A failed run never leaves a
//     torn output. Missing parent directories are created, as --split
//     creates its directory;
//   - a symbolic link is followed, and its target written so (in the
//     target's directory): the link stays a link;
//   - a device, a named pipe or a socket is written to directly, never
//     replaced: "-o /dev/null" must not, as root, replace the system's
//     /dev/null with a regular file.
//
// Every failure is an I/O error (exit 2) naming path.
func writeFile(path string, write func(io.Writer) error) error {
	target, err := followLinks(path)
	if err != nil {
		return ioError(fmt.Errorf("write %s: %w", path, bare(err)))
	}
	name := path
	if target != path {
		name = path + " (-> " + target + ")"
	}
	fi, err := os.Stat(target)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return ioError(fmt.Errorf("write %s: %w", name, bare(err)))
		}
		return replaceFile(name, target, 0o644, write)
	case err != nil:
		return ioError(fmt.Errorf("write %s: %w", name, err))
	case fi.Mode().IsRegular():
		return replaceFile(name, target, fi.Mode().Perm(), write)
	case fi.IsDir():
		return ioError(fmt.Errorf("write %s: is a directory", name))
	case fi.Mode()&fs.ModeSocket != 0:
		return writeSocket(name, target, write)
	}
	// A device or a named pipe (which waits for a reader, as a shell
	// redirection does).
	f, err := os.OpenFile(target, os.O_WRONLY, 0)
	if err != nil {
		return ioError(fmt.Errorf("write %s: %w", name, err))
	}
	return finish(name, f, write(f))
}

// notAnInput refuses an output path that names one of the inputs (the
// same file, by any name or link): the output is written before the run
// ends, so the input would be rewritten from itself, or replaced by its
// own conversion without a word. "-" and paths that do not exist yet
// cannot be inputs.
func notAnInput(output string, inputs []string) error {
	if output == "" || output == "-" {
		return nil
	}
	out, err := os.Stat(output)
	if err != nil {
		return nil
	}
	for _, in := range inputs {
		if fi, err := os.Stat(in); err == nil && os.SameFile(out, fi) {
			return usageErrorf("output %s is the input %s: write the output to another file", output, in)
		}
	}
	return nil
}

// maxLinks bounds how many symbolic links followLinks follows, as the
// kernel does (ELOOP).
const maxLinks = 40

// followLinks returns what path names once every symbolic link along it
// is followed: the file a write must go to. A dangling link gives the path
// it points to, which the write then creates.
func followLinks(path string) (string, error) {
	for range maxLinks {
		fi, err := os.Lstat(path)
		if errors.Is(err, fs.ErrNotExist) {
			return path, nil
		}
		if err != nil {
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			return path, nil
		}
		to, err := os.Readlink(path)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(to) {
			to = filepath.Join(filepath.Dir(path), to)
		}
		path = to
	}
	return "", fmt.Errorf("more than %d symbolic links", maxLinks)
}

// replaceFile writes target atomically with mode perm: a temporary file
// in its directory, synced, then renamed over it.
func replaceFile(name, target string, perm fs.FileMode, write func(io.Writer) error) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+".*.tmp")
	if err != nil {
		return ioError(fmt.Errorf("write %s: %w", name, err))
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err := write(tmp); err != nil {
		return writeError(name, err)
	}
	for _, step := range []func() error{
		func() error { return tmp.Chmod(perm) },
		tmp.Sync, // the rename must not land before the data
		tmp.Close,
		func() error { return os.Rename(tmp.Name(), target) },
	} {
		if err := step(); err != nil {
			return ioError(fmt.Errorf("write %s: %w", name, err))
		}
	}
	return nil
}

// writeSocket writes to a Unix socket's listener, as to a pipe.
func writeSocket(name, target string, write func(io.Writer) error) error {
	c, err := net.Dial("unix", target)
	if err != nil {
		return ioError(fmt.Errorf("write %s: %w", name, err))
	}
	return finish(name, c, write(c))
}

// finish closes w after write's err, and reports the first failure of
// the two, naming name.
func finish(name string, w io.Closer, err error) error {
	if cerr := w.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		return writeError(name, err)
	}
	return nil
}

// readerGone tells whether the command stopped, or failed only, because
// the reader of its standard output closed it: "agenttrace tokens run.jsonl
// | head" has what it wanted, and ends quietly, as any filter does.
func readerGone(out *stickyWriter, err error) bool {
	return errors.Is(out.err, syscall.EPIPE) && (err == nil || errors.Is(err, syscall.EPIPE))
}

// stickyWriter remembers the first error of its writer, so that a failed
// write to standard output (a closed pipe, a full disk, /dev/full) that a
// command's own printing ignores still fails the run with exit 2.
type stickyWriter struct {
	w   io.Writer
	err error
}

func (s *stickyWriter) Write(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	n, err := s.w.Write(p)
	if err != nil {
		s.err = err
	}
	return n, err
}

// stdoutFailed turns a run whose standard output could not be written
// into exit 2, saying so unless the command already did (exit 2).
func stdoutFailed(out *stickyWriter, code int, stderr io.Writer) int {
	if out.err == nil || code == exitUsage {
		return code
	}
	fmt.Fprintf(stderr, "agenttrace: write standard output: %v\n", bare(out.err))
	return exitUsage
}
