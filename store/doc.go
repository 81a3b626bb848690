// Package store owns artifact files: the one place that decides which
// file a record goes to, what the file is named, what its header says,
// how it is continued after a restart, when it is synced and finalized,
// and what its trailer counts. The SDK span processor (package bridge),
// the collector exporter and `agenttrace convert --split` are thin
// adapters over it; none of them opens an artifact file itself.
//
// # Routing and names
//
// A Store writes one artifact (Options.Path, Options.Writer) or a folder
// of them (Options.Dir), routed by trace, by gen_ai.conversation.id or by
// a resource attribute (Route). [FileName] is the one naming rule, and it
// is injective, case-insensitive file systems included:
// <trace id>.jsonl, conv-<name>.jsonl, <attribute>-<name>.jsonl, where
// [Name] keeps a plain value (lower case, digits, ".", "_", "-") and
// makes any other readable-part + "-" + 16 hex digits of its SHA-256.
//
// A trace belongs to the conversation its first span naming one names.
// When a trace names its conversation only after some of its records were
// written to an artifact of its own, that artifact is folded into the
// conversation's (its records appended there, its file removed): one
// trace, one file, from every adapter, however the spans were batched.
//
// # Header
//
// [Header] is the one header policy, for an artifact written live or
// whole: started_at is the earliest start of the records the header is
// made from (for a live writer, its first batch: a span that starts
// earlier but ends later cannot move it); trace_id names a trace's
// artifact, conversation_id a conversation's, and both an artifact
// written whole (convert -o) when all its records share them; the budget
// is a local root span's agenttrace.budget.tokens, else the resource's,
// else the writer's configured one (WithBudget, budget.tokens, the input
// header of convert); redacted when the resource says so or the writer
// redacted named keys. A root span's budget arriving after the header was
// written is the budget the trailer judges against.
//
// # Writing
//
// Writes to different artifacts never wait for each other: every artifact
// has its own lock, the tables that find them are sharded, and the bound
// on open files (an LRU list threaded through the artifacts) is touched
// only when an artifact nears eviction. A Write's artifacts are written on
// every core, each by one goroutine; the records it routes to one
// artifact are encoded into one buffer and appended in one write call, or,
// when they are many, encoded in chunks on every core while the chunks already
// encoded are appended in order (Options.Prepare runs on the same cores
// right before each span is encoded, and Options.Redactor, the redaction
// of every writer, in the encoder's one walk of each span's attributes
// that also reads and encodes them; resources and scopes are redacted
// once per Write, log records in WriteLogs).
// Either way the artifact gets them whole or not at all. Spans already in
// the artifact (same trace and span id) are skipped, so a redelivered
// batch writes nothing twice; an artifact remembers at least its last
// 131,072 span ids and at most twice that, so one that lives for ever (a
// resource attribute's) keeps bounded memory. Past Options.RecordCap, spans are counted
// in the trailer as dropped, and their usage still counts.
//
// Write, then count: a record counts in the trailer only after its line
// is fully written. A failed or partial write is cut back to the last
// complete line, nothing of it is counted or remembered, and the error is
// returned as a *WriteError naming the records of the failed artifacts
// only; the other artifacts of the same Write are written. An artifact
// whose file cannot even be cut back refuses every later write. What
// follows a successful write (a rotation, a finalization, and their
// trailer) never turns its records into failed ones: when it fails, the
// error goes to Options.OnError and the artifact stays live, to be
// finished by a later write, the finalizer or Close (only FsyncAlways's
// sync fails the Write; its records are remembered, so the retry writes
// nothing twice).
//
// Options.Writer is no file and cannot be cut back. When it takes part of
// a write and fails, the store holds the rest and writes it first, before
// anything else, once the writer takes writes again: the stream never
// holds a torn or glued line, that write's records count as written
// (every trailer comes after them), and its error goes to OnError; until
// the rest is written every later write fails whole, and Close reports
// it. (A newline closing the torn line off instead would leave a bad line
// mid-stream; refusing the writer for good would leave it without a
// trailer.) A writer that never recovers leaves a torn last line and no
// trailer after it.
//
// # Adoption
//
// An artifact already on disk is continued: its header stays the only
// one, its records are counted in later trailers and its span ids skip
// redelivered spans; the budget of its last trailer holds. A torn last
// line (a crash mid-write) that does not read is cut off, back to the end
// of the last complete line (reported through Hooks.Repaired): its record
// was never counted, the sender redelivers it, and it is written whole,
// so the artifact stays valid; closed off instead, it would stay mid-file
// and fail validation for ever. A last line that lacks only its newline
// still reads (format §11 rule 7): it is kept and closed off. A
// file whose first line is not a complete header (a torn header, a blank
// line, garbage) is renamed aside to <name>.corrupt-<unix ns> (reported
// through Hooks.SetAside) and a fresh artifact takes its name; a header
// of a newer schema version is refused (ErrNotAppendable), untouched.
// A large artifact (2,048 records and more) finalized by this store
// and reopened by a later record is not read back: the store kept its
// header, tally and span ids at finalization (at most 2^19 ids
// over all such artifacts, the most recently finalized) and resumes from
// the file's known end, as long as the file is the one it left (same
// file, size and modification time). So a long trace written in many
// requests costs each request its own records, not the whole file again.
//
// The store never follows a symbolic link at an artifact's name: every
// open, truncation and sync of an artifact file refuses one (ErrSymlink,
// an ErrNotAppendable; the spans count as dropped), so a link planted in
// the folder cannot make it write, cut or read a file elsewhere. No
// artifact name holds a path separator, so the file's name is the only
// part of its path resolved inside the folder. A span without a trace id
// that nothing else routes is dropped (ErrNoTraceID), never written to a
// file named ".jsonl".
//
// # Finalization and syncing
//
// An artifact of a folder is finalized (trailer written, synced, file
// closed, its memory freed) once its local root span has ended and it
// stayed idle for Options.FinalizeAfter (the collector), at once when
// FinalizeAfter is 0 (the SDK processor: the root ending is the end of
// that process's part of the trace; convert), when idle for OrphanAfter
// whatever its root, and at Close. A later span reopens it, appends, and a
// new trailer follows: readers take the last. With FinalizeAfter 0 that
// trailer goes out in the same write as the late span, and the artifact is
// finalized again, so no crash leaves a record after the last trailer.
// Recover finishes what a crash left at start (with FinalizeAfter 0, at
// once; RecoverIdle spares files another process may be writing). An artifact of a resource
// attribute value, which lives as long as traffic goes on, is rotated by
// size (Options.RotateBytes) or age (Options.RotateAfter): finalized and
// renamed to
// <name>.R<unix ns>.jsonl, a name no value takes. A trailer is written only
// when something changed since the last one. Fsync: FsyncTraceEnd syncs
// at finalization and Flush, FsyncAlways before Write returns,
// FsyncTurn also before a Write that holds the end of a turn returns (a
// model call, a tool call or a local root: TurnEnds; the SDK processor's
// default), FsyncNever leaves it to the system.
//
// # Drops
//
// Spans dropped before the store saw them (a full queue) are handed to
// Drop with their usage; the trailer of their trace's artifact counts
// them, and a trace with nothing but drops gets an artifact at Close that
// says so.
//
// # Log records
//
// WriteLogs puts OTLP log records (format §4.4) into their trace's
// artifact, after its spans: records whose trace has no artifact yet are
// held (bounded by Options.MaxHeldLogs, for at most Options.HoldLogs,
// written at Close whatever happens), a redelivered record (same
// content, resource and scope) is skipped, an artifact continued from
// disk reads its log lines back first, and records without a trace id go
// to UntracedFileName. logs.go states the whole set of rules.
package store
