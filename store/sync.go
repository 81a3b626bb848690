package store

import (
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/semconv"
)

// manyFiles is the number of files past which syncFiles syncs the whole
// file system once (where it can) rather than each file: at shutdown,
// ten thousand open traces would otherwise cost ten thousand fsyncs.
const manyFiles = 16

// syncFiles forces the data of paths, files of dir, to disk.
func syncFiles(dir string, paths []string) error {
	if len(paths) == 0 {
		return nil
	}
	if len(paths) > manyFiles {
		if err := syncFS(dir); err == nil {
			return nil
		}
	}
	var errs []error
	for _, p := range paths {
		errs = append(errs, syncFile(p))
	}
	return errors.Join(errs...)
}

func syncFile(path string) error {
	f, err := openNoFollow(path, os.O_WRONLY)
	if err != nil {
		return fmt.Errorf("sync %s: %w", path, err)
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("sync %s: %w", path, err)
	}
	return nil
}

// TurnEnds reports whether recs hold the end of a turn, after which
// FsyncTurn syncs. A turn is one call of the agent's loop: it ends when a
// span that classifies as a model call (semconv.Inference: chat,
// completion, embeddings, ...) or a tool call (semconv.Call) ends, or the
// trace's local root does. An agent's step is a model call and then the
// tool calls it asked for, so a session of N steps syncs at least N times,
// and a run of tool calls only syncs once per call. Other spans (an HTTP
// client span, a framework's wrapper around a step) wait for the next
// turn's sync: a crash before it loses no call's record. The direct
// children of the root are not told apart: a span's parent is not known
// to be the root until the root ends, and every step that calls anything
// ends with a call.
func TurnEnds(recs []artifact.Record) bool {
	var rd *semconv.Reading
	defer func() {
		if rd != nil {
			turnReadings.Put(rd)
		}
	}()
	for i := range recs {
		rec := &recs[i]
		if artifact.IsLocalRoot(rec.Span) {
			return true
		}
		if rd == nil {
			rd = turnReadings.Get().(*semconv.Reading)
		}
		rec.Read(rd)
		if rd.Kind == semconv.Inference || rd.Kind == semconv.Call {
			return true
		}
	}
	return false
}

// turnReadings keeps TurnEnds' readings: one is some kilobytes to zero,
// and the SDK processor asks once per batch, on every span's way out.
var turnReadings = sync.Pool{New: func() any { return new(semconv.Reading) }}
