package store

import (
	"io"
	"time"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/redact"
)

// Route says which artifact of a folder a record goes to.
type Route uint8

const (
	// ByTrace gives every trace its own artifact (the default).
	ByTrace Route = iota
	// ByConversation gives every gen_ai.conversation.id its own artifact;
	// a trace that never names one is its own.
	ByConversation
	// ByAttribute gives every value of a resource attribute its own
	// artifact; records whose resource lacks it go by trace.
	ByAttribute
)

// Fsync says when artifact data is forced to disk.
type Fsync uint8

const (
	// FsyncTraceEnd syncs an artifact when it is finalized, and on Flush
	// (and a single artifact when a local root span ends). The default.
	FsyncTraceEnd Fsync = iota
	// FsyncAlways syncs every artifact a Write wrote to before it returns.
	FsyncAlways
	// FsyncNever leaves syncing to the operating system.
	FsyncNever
	// FsyncTurn syncs as FsyncTraceEnd does, and also every artifact a
	// Write wrote the end of a turn to, before it returns (see TurnEnds):
	// an OS crash or power cut then loses at most the turn in progress,
	// not every turn of a long session. The SDK processor's default.
	FsyncTurn
)

// DefaultMaxOpenFiles bounds the files a folder store holds open when
// Options.MaxOpenFiles is 0.
const DefaultMaxOpenFiles = 128

// DefaultOrphanFactor: an artifact whose root span never arrived is
// finalized after this many FinalizeAfter of idleness, so state for traces
// that lost their root stays bounded.
const DefaultOrphanFactor = 10

// SharedFolderIdle is the RecoverIdle of a folder other processes may
// write to at the same time (the SDK processors of several agents, serve
// --otlp beside them): far longer than any write takes, short enough that
// a restart repairs what a crash left within seconds.
const SharedFolderIdle = 2 * time.Second

// Options configure a Store. Exactly one of Dir, Path and Writer is set.
type Options struct {
	// Dir holds one artifact per key (see Route and FileName). It is
	// created when missing.
	Dir string
	// Path is the one artifact of the whole run; an artifact already there
	// is continued (one header, its records counted in the trailer).
	Path string
	// Writer receives the one artifact of the whole run. The store never
	// closes it. A write it fails part-way is finished before anything
	// else is written (see the package documentation).
	Writer io.Writer

	// Route and Attribute (for ByAttribute) say which artifact of Dir a
	// record goes to.
	Route     Route
	Attribute string
	// MaxOpenFiles bounds the files held open at once (default
	// DefaultMaxOpenFiles); the least recently used closes first and
	// reopens when written to again.
	MaxOpenFiles int
	// Fsync says when data is synced (default FsyncTraceEnd).
	Fsync Fsync
	// RecordCap caps the records of one artifact; spans past it are
	// counted in the trailer as dropped (their usage still counts). 0 is
	// no cap.
	RecordCap int64
	// Header is what headers take from the writer (budget, redaction).
	Header HeaderOptions
	// FinalizeAfter is how long an artifact of Dir whose local root span
	// has ended stays idle before it is finalized (trailer written, file
	// closed); 0 finalizes it as soon as the root is written, and leaves
	// artifacts without one to Close. OrphanAfter (default
	// DefaultOrphanFactor × FinalizeAfter) finalizes one whose root never
	// came.
	FinalizeAfter time.Duration
	OrphanAfter   time.Duration
	// RotateBytes rotates the artifacts of resource attribute values
	// (ByAttribute), which would otherwise live as long as traffic goes
	// on: one whose file reaches this size is finalized and renamed to
	// <name>.R<unix ns>.jsonl, and the next record starts a new one under
	// its name. 0 never rotates.
	RotateBytes int64
	// RotateAfter rotates them by age as RotateBytes does by size: one
	// written to for this long since the store first wrote to it is
	// finalized and renamed on its next write, so that each file gets its
	// trailer while traffic goes on (an idle one is finalized as any
	// other). 0 never rotates by age.
	RotateAfter time.Duration
	// Recover finishes, in the background from New on, what a process
	// that stopped without finalizing (a crash, a kill) left in Dir: every
	// artifact without a trailer is taken back as if last written at its
	// file's modification time, and finalized by the usual rules (root
	// ended and FinalizeAfter passed, OrphanAfter, Close). A file that
	// cannot be continued is set aside. A rotated file left without a
	// trailer (see RotateBytes) gets one at once. With FinalizeAfter 0
	// (no finalizer), every artifact taken back is finalized at once.
	Recover bool
	// RecoverIdle, with Recover, leaves a file modified less than this
	// long ago alone until it is that old: when processes share a folder
	// (one SDK processor per agent process), a file may be another's,
	// live, and the line it is writing is no torn one to cut off. 0 takes
	// every file at once (a folder of one process's own, the collector's).
	RecoverIdle time.Duration
	// TrackPaths keeps the paths of the artifacts written, for Paths: the
	// MaxTrackedPaths most recently written, so that a long-running
	// process with one artifact per trace does not grow by a path per trace.
	TrackPaths bool
	// Hooks hear what the store does, for self-telemetry.
	Hooks Hooks
	// MaxHeldLogs bounds the log records held for traces whose artifact
	// does not exist yet (default DefaultMaxHeldLogs); HoldLogs is the
	// longest one is held (default FinalizeAfter; 0 with it: until its
	// spans, the bound or Close); LogHooks count log records. See
	// WriteLogs.
	MaxHeldLogs int
	HoldLogs    time.Duration
	LogHooks    LogHooks
	// OnError hears errors of the background finalizer; nil drops them.
	OnError func(error)
	// Prepare, when set, is called on every record a Write writes, once,
	// before the store reads more of its span than its ids (a record
	// skipped as already written may go without), from as many goroutines
	// as encode the records, before the Redactor sees the span. It may
	// change the span only
	// (records share their resource and scope), and must be safe for
	// concurrent use on different spans.
	Prepare func(rec *artifact.Record)
	// Redactor, when it can change anything, redacts every record the
	// store writes, spans and log records, before anything reads them,
	// and the header says so (useRedactor); writers pass theirs here. A
	// span is redacted by the encoder, in the walk of its attributes
	// that reads and encodes them (see prepare).
	Redactor *redact.Redactor
}

func (o *Options) trackPaths() bool { return o.TrackPaths }

// Hooks are called as the store works; any may be nil. They must be quick
// and safe for concurrent use.
type Hooks struct {
	// Written, Dropped (past the record cap, or a failed write) and
	// Duplicates (already in their artifact) count spans.
	Written, Dropped, Duplicates func(n int64)
	// Opened is an artifact created or adopted.
	Opened func()
	// Finalized is an artifact finalized: its trailer written and its
	// file closed at path. A late record of the same run may adopt the
	// file and append to it again. It is called with the artifact's lock
	// held, so it must not block: a publisher (a bucket upload, a catalog
	// row) queues path and does its work elsewhere.
	Finalized func(path string)
	// OpenFiles is the change in files held open.
	OpenFiles func(delta int64)
	// SetAside is a file that could not be continued, renamed from to to.
	SetAside func(from, to string, why error)
	// Repaired is a file continued after cutting cut bytes off its end: a
	// torn last line a crash left, whose record was never counted.
	Repaired func(path string, cut int64)
}

func (h *Hooks) written(n int64) {
	if n != 0 && h.Written != nil {
		h.Written(n)
	}
}

func (h *Hooks) dropped(n int64) {
	if n != 0 && h.Dropped != nil {
		h.Dropped(n)
	}
}

func (h *Hooks) duplicates(n int64) {
	if n != 0 && h.Duplicates != nil {
		h.Duplicates(n)
	}
}

func (h *Hooks) opened() {
	if h.Opened != nil {
		h.Opened()
	}
}

func (h *Hooks) finalized(path string) {
	if h.Finalized != nil {
		h.Finalized(path)
	}
}

func (h *Hooks) openFiles(d int64) {
	if h.OpenFiles != nil {
		h.OpenFiles(d)
	}
}

func (h *Hooks) setAside(from, to string, why error) {
	if h.SetAside != nil {
		h.SetAside(from, to, why)
	}
}

func (h *Hooks) repaired(path string, cut int64) {
	if h.Repaired != nil {
		h.Repaired(path, cut)
	}
}
