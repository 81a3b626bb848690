package bucket

import (
	"errors"
	"fmt"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/agenttrace/agenttrace/store"
)

// ErrNotArtifactKey is returned for a key that is not laid out as an
// artifact of a bucket (see Key).
var ErrNotArtifactKey = errors.New("not an artifact key")

// Extensions of artifact objects: plain JSONL, and JSONL compressed with
// zstd.
const (
	ExtJSONL = ".jsonl"
	ExtZstd  = ".jsonl.zst"
)

// UnknownService is the service partition of a run whose resource names
// no service.name (OpenTelemetry's own default for a missing one).
const UnknownService = "unknown_service"

// Key is where one generation of a run's artifact is kept, relative to the
// bucket's prefix:
//
//	dt=YYYY-MM-DD/service=<service>/<id>[.g<n>].jsonl[.zst]
//
// Date is the UTC day the run started (its header's started_at), Service
// its resource's service.name, ID the name of its artifact in the store's
// folder without .jsonl (the trace id, conv-<conversation>, or
// <attribute>-<value>), Gen its generation (1 for the first upload, which
// carries no .g suffix; 2 and on for what arrived after it).
type Key struct {
	Date    string
	Service string
	ID      string
	Gen     int
	Zstd    bool
}

// String is the key as an object name.
func (k Key) String() string {
	return k.Dir() + k.Name()
}

// Dir is the key's partition: dt=<date>/service=<service>/.
func (k Key) Dir() string {
	return "dt=" + k.Date + "/service=" + k.Service + "/"
}

// Name is the key's object name inside its partition.
func (k Key) Name() string {
	var b strings.Builder
	b.WriteString(k.ID)
	if k.Gen > 1 {
		b.WriteString(".g")
		b.WriteString(strconv.Itoa(k.Gen))
	}
	if k.Zstd {
		b.WriteString(ExtZstd)
	} else {
		b.WriteString(ExtJSONL)
	}
	return b.String()
}

// Run is the key of the run's first generation, uncompressed: what names
// the run whatever its generations and compression.
func (k Key) Run() Key {
	k.Gen, k.Zstd = 1, false
	return k
}

// KeyOf is the key of the first generation of the run whose artifact file
// in a store's folder is named name, started at started, by service.
// Every part is made safe for an object name: the service as store.Name
// makes names, and an id whose end would read as a generation suffix
// (a conversation "x.g2") gets an escape (see escapeID).
func KeyOf(name string, started time.Time, service string, zstd bool) Key {
	if service == "" {
		service = UnknownService
	}
	return Key{
		Date:    started.UTC().Format(time.DateOnly),
		Service: store.Name(service),
		ID:      escapeID(strings.TrimSuffix(name, store.Ext)),
		Gen:     1,
		Zstd:    zstd,
	}
}

// escapeID makes id, a store file name's base ([a-zA-Z0-9._-]), unable
// to end in a generation suffix (.g<digits>): an id that ends in one,
// followed by any underscores, gets one underscore more. The rule is
// injective (an escaped id always ends in .g<digits>_, an id left as it is
// never does), and the result never ends in .g<digits>, so a key's
// generation is read off its end without doubt.
func escapeID(id string) string {
	if endsLikeGen(strings.TrimRight(id, "_")) {
		return id + "_"
	}
	return id
}

// endsLikeGen reports whether s ends in .g<digits>.
func endsLikeGen(s string) bool {
	i := strings.LastIndex(s, ".g")
	if i < 0 || i+2 == len(s) {
		return false
	}
	for _, c := range s[i+2:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// ParseKey reads a key laid out as Key says (relative to the bucket's
// prefix, slash-separated).
func ParseKey(key string) (Key, error) {
	dir, name := path.Split(key)
	rest, ok := strings.CutPrefix(dir, "dt=")
	if !ok {
		return Key{}, fmt.Errorf("%w: %q has no dt= partition", ErrNotArtifactKey, key)
	}
	date, svc, ok := strings.Cut(rest, "/service=")
	if !ok || !strings.HasSuffix(svc, "/") {
		return Key{}, fmt.Errorf("%w: %q has no service= partition", ErrNotArtifactKey, key)
	}
	svc = strings.TrimSuffix(svc, "/")
	if _, err := time.Parse(time.DateOnly, date); err != nil {
		return Key{}, fmt.Errorf("%w: %q: date %q", ErrNotArtifactKey, key, date)
	}
	if svc == "" || strings.Contains(svc, "/") {
		return Key{}, fmt.Errorf("%w: %q: service %q", ErrNotArtifactKey, key, svc)
	}
	k, err := parseName(name)
	if err != nil {
		return Key{}, fmt.Errorf("%w: %q: %w", ErrNotArtifactKey, key, err)
	}
	k.Date, k.Service = date, svc
	return k, nil
}

// parseName reads <id>[.g<n>].jsonl[.zst].
func parseName(name string) (Key, error) {
	var k Key
	base, ok := strings.CutSuffix(name, ExtZstd)
	if ok {
		k.Zstd = true
	} else if base, ok = strings.CutSuffix(name, ExtJSONL); !ok {
		return Key{}, errors.New("not .jsonl or .jsonl.zst")
	}
	k.Gen = 1
	if endsLikeGen(base) {
		i := strings.LastIndex(base, ".g")
		n, err := strconv.Atoi(base[i+2:])
		if err != nil || n < 2 || base[i+2] == '0' {
			return Key{}, fmt.Errorf("generation %q", base[i+1:])
		}
		k.Gen, base = n, base[:i]
	}
	if base == "" || strings.HasPrefix(base, ".") {
		return Key{}, errors.New("no id")
	}
	for i := 0; i < len(base); i++ {
		c := base[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return Key{}, fmt.Errorf("id %q holds %q", base, c)
		}
	}
	k.ID = base
	return k, nil
}
