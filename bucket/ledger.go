package bucket

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agenttrace/agenttrace/store"
)

// LedgerDir is the folder, inside a publisher's store folder (beside
// store.TakenDir; the store adopts no dot-named file), where the publisher
// notes the runs it uploads, by partition day: what lets it place a run's
// first file without looking in the bucket (see ledger).
const LedgerDir = ".uploaded"

// Bounds of what a ledger holds: the days it keeps in memory before
// today, the days its files are kept, and the runs it keeps of one day
// (past that, the day is no longer known whole: Put looks in the bucket).
const (
	ledgerDays     = 3
	ledgerKeepDays = 7
	ledgerMaxRuns  = 1 << 20
)

// A ledger is what a Publisher knows of the runs it uploaded from its
// folder: for each partition day, the runs (service and id) it wrote an
// object of there, kept in a file per day in the folder (so that a restart
// knows them too). Put asks it whether a run has an object in the
// partition of the day before its file's (the first generation of a run
// that went on past midnight): when the ledger knows that day whole, its
// answer stands, and no listing of the bucket is made. It knows a day
// whole when it began before that day (less an hour, for clocks that
// differ), and held every run of it. A folder that never published
// (no TakenDir) begins with nothing to know; one that published before
// ledgers were kept begins now.
//
// What it cannot know: an object written by another publisher (another
// collector's folder given the same run, a folder lost with its volume).
// Such a run's late file, a day later, goes to its own day's partition:
// each span is still in exactly one object, and readers given either key
// read that object's generations.
type ledger struct {
	dir   string
	since time.Time // zero: knows everything since the folder began

	// broken: a note could not be written (a full disk); the ledger goes
	// on in memory, and its since file is gone, so that the next start
	// does not take its files for whole.
	broken bool

	mu    sync.Mutex
	from  string // the first day held in memory (YYYY-MM-DD)
	days  map[string]*ledgerDay
	files map[string]*os.File
}

// ledgerDay is what the ledger holds of one partition day.
type ledgerDay struct {
	runs     map[uint64]struct{}
	overflow bool // more runs than ledgerMaxRuns: not known whole
}

// openLedger opens the ledger of the store folder dir, making it when
// there is none, and drops its files of days past keeping.
func openLedger(dir string, now time.Time) (*ledger, error) {
	taken := filepath.Join(dir, store.TakenDir)
	l := &ledger{dir: filepath.Join(dir, LedgerDir), days: map[string]*ledgerDay{},
		files: map[string]*os.File{}}
	today := now.UTC().Truncate(24 * time.Hour)
	l.from = today.AddDate(0, 0, -ledgerDays).Format(time.DateOnly)
	sinceFile := filepath.Join(l.dir, "since")
	raw, err := os.ReadFile(sinceFile)
	switch {
	case err == nil:
		if l.since, err = time.Parse(time.RFC3339Nano, strings.TrimSpace(string(raw))); err != nil {
			return nil, fmt.Errorf("bucket ledger %s: %w", sinceFile, err)
		}
	case errors.Is(err, fs.ErrNotExist):
		if _, err := os.Stat(taken); err == nil {
			l.since = now.UTC() // published before without a ledger
		}
		if err := os.MkdirAll(l.dir, 0o755); err != nil {
			return nil, fmt.Errorf("bucket ledger: %w", err)
		}
		if err := os.WriteFile(sinceFile, []byte(l.since.Format(time.RFC3339Nano)+"\n"), 0o644); err != nil {
			return nil, fmt.Errorf("bucket ledger: %w", err)
		}
	default:
		return nil, fmt.Errorf("bucket ledger: %w", err)
	}
	ents, err := os.ReadDir(l.dir)
	if err != nil {
		return nil, fmt.Errorf("bucket ledger: %w", err)
	}
	old := today.AddDate(0, 0, -ledgerKeepDays).Format(time.DateOnly)
	for _, e := range ents {
		day := e.Name()
		if _, err := time.Parse(time.DateOnly, day); err != nil || !e.Type().IsRegular() {
			continue
		}
		if day < old {
			_ = os.Remove(filepath.Join(l.dir, day))
			continue
		}
		if day >= l.from {
			if err := l.load(day); err != nil {
				return nil, err
			}
		}
	}
	return l, nil
}

// load reads the file of day into memory.
func (l *ledger) load(day string) error {
	f, err := os.Open(filepath.Join(l.dir, day))
	if err != nil {
		return fmt.Errorf("bucket ledger: %w", err)
	}
	defer f.Close()
	d := l.day(day)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// A line cut short by a crash reads as no number: skipped (the
		// run it named looks in the bucket, as without a ledger).
		if v, err := strconv.ParseUint(sc.Text(), 16, 64); err == nil && len(sc.Text()) == 16 {
			d.add(v)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("bucket ledger %s: %w", f.Name(), err)
	}
	return nil
}

// day returns the entry of day, made empty when there is none (the
// caller holds mu, or owns l).
func (l *ledger) day(day string) *ledgerDay {
	d := l.days[day]
	if d == nil {
		d = &ledgerDay{runs: map[uint64]struct{}{}}
		l.days[day] = d
	}
	return d
}

func (d *ledgerDay) add(v uint64) {
	if len(d.runs) >= ledgerMaxRuns {
		d.overflow = true
		return
	}
	d.runs[v] = struct{}{}
}

// runHash names a run in a ledger: FNV-1a of its service and id (a
// collision, one in 2^64 a pair, would take a new run for an old one of
// the day before and put it in that day's partition: still one object).
func runHash(service, id string) uint64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(service))
	_, _ = h.Write([]byte{'/'})
	_, _ = h.Write([]byte(id))
	return h.Sum64()
}

// has reports whether the run has an object in the partition of day (as
// noted), and whether the ledger knows that day whole: when it does not,
// a run not found may still have one there, and the bucket is asked.
func (l *ledger) has(day, service, id string) (found, whole bool) {
	start, err := time.Parse(time.DateOnly, day)
	if err != nil {
		return false, false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if day < l.from {
		return false, false
	}
	d := l.days[day]
	if d != nil {
		if _, found = d.runs[runHash(service, id)]; found {
			return true, true
		}
	}
	return false, (d == nil || !d.overflow) && !l.since.After(start.Add(-time.Hour))
}

// note records that the run is written to the partition of day, before
// it is: a crash after the note and before the object is there leaves a
// note of an object that may never be (its file is uploaded again at the
// next start, to the same partition). A note that cannot be written does
// not stop the upload: the ledger goes on in memory, and the error says
// so once.
func (l *ledger) note(day, service, id string) error {
	v := runHash(service, id)
	l.mu.Lock()
	defer l.mu.Unlock()
	if day < l.from {
		return nil // a day the ledger does not hold: always looked for
	}
	d := l.day(day)
	if _, ok := d.runs[v]; ok {
		return nil
	}
	d.add(v)
	if l.broken {
		return nil
	}
	if err := l.write(day, v); err != nil {
		l.broken = true
		// The next start must not trust files that miss this run.
		rmErr := os.Remove(filepath.Join(l.dir, "since"))
		return errors.Join(fmt.Errorf("bucket ledger: kept in memory only from now: %w", err), rmErr)
	}
	return nil
}

// write appends run v's line to the file of day (the caller holds mu).
func (l *ledger) write(day string, v uint64) error {
	f := l.files[day]
	if f == nil {
		var err error
		if f, err = os.OpenFile(filepath.Join(l.dir, day), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644); err != nil {
			return err
		}
		l.files[day] = f
		l.prune()
	}
	var raw [8]byte
	var line [17]byte
	binary.BigEndian.PutUint64(raw[:], v)
	hex.Encode(line[:16], raw[:])
	line[16] = '\n'
	_, err := f.Write(line[:])
	return err
}

// prune forgets the days before the ones held (a process that runs for
// days), keeping their files for ledgerKeepDays.
func (l *ledger) prune() {
	from := time.Now().UTC().Truncate(24*time.Hour).AddDate(0, 0, -ledgerDays).Format(time.DateOnly)
	if from <= l.from {
		return
	}
	l.from = from
	for day, f := range l.files {
		if day < from {
			_ = f.Close()
			delete(l.files, day)
		}
	}
	for day := range l.days {
		if day < from {
			delete(l.days, day)
		}
	}
}

// close closes the ledger's files.
func (l *ledger) close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	var errs []error
	for day, f := range l.files {
		errs = append(errs, f.Close())
		delete(l.files, day)
	}
	return errors.Join(errs...)
}
