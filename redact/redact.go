package redact

import (
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// Placeholder replaces redacted values. It is one fixed string, not a hash
// or a length, so that nothing about the secret leaks and a reader can tell
// a redacted value from content at a glance. It is also what makes
// redaction idempotent: a value that is already Placeholder is left alone.
const Placeholder = "[REDACTED]"

// maxDepth bounds how deeply maps, slices and JSON values are walked, so
// that hostile input cannot exhaust the stack. It is encoding/json's limit:
// deeper JSON is not valid JSON there either, and is scanned as text;
// deeper pdata values are left as they are.
const maxDepth = 10000

// maxLevels bounds how many JSON strings deep a JSON document is looked for
// (a tool call's arguments are a JSON string inside a message inside the
// messages attribute: two levels). Deeper strings are scanned as text.
const maxLevels = 8

// A Redactor removes named values and secrets from spans before they are
// written. It is built once from configuration and is read-only afterwards,
// so one Redactor serves every goroutine that ends spans; scratch space
// comes from a pool, which is why the common span, with nothing to redact,
// costs no allocation.
type Redactor struct {
	// keys holds the fold-canonical form (see canonical) of each named key.
	keys map[string]struct{}
	// first marks the canonical first bytes of the named keys, and
	// minLen/maxLen bound their lengths: most field names are rejected by
	// these before any map lookup.
	first          [utf8.RuneSelf]bool
	minLen, maxLen int
	secrets        bool
	pool           sync.Pool // *walker
	// quick is the automaton of walker.quick, built on first use: nil
	// when every string must be walked.
	quick func() *keywordDFA
	// seen remembers long strings that came out unchanged (nil: off).
	seen *verdicts
	// shortest is the length of the shortest string this Redactor can
	// change: a pattern's or rule's shortest match (minSecretLen) when the
	// secret scan is on, and the shortest named key (which a text must
	// hold to have it as a field name; its canonical form is its shortest
	// spelling). Many attribute values are shorter (chat, openai, a
	// model's name, a short id) and are let through by one comparison
	// instead of a pass of the automaton.
	shortest int
}

// New returns a Redactor for the named keys (case-insensitive exact match on
// attribute keys, on keys inside map values and on field names inside JSON
// values), with the built-in secret patterns when secrets is true. Keys are
// matched whole, not as suffixes: "password" redacts "Password" but not
// "db.password", because an operator naming a key means that key, and
// guessing more would redact content nobody asked to lose.
func New(keys []string, secrets bool) *Redactor {
	r := &Redactor{keys: make(map[string]struct{}, len(keys)), secrets: secrets}
	for _, k := range keys {
		if k == "" {
			continue
		}
		c := canonical(k)
		r.keys[c] = struct{}{}
		if c[0] < utf8.RuneSelf {
			r.first[c[0]] = true
		}
		if r.minLen == 0 || len(c) < r.minLen {
			r.minLen = len(c)
		}
		r.maxLen = max(r.maxLen, len(c))
	}
	r.shortest = r.minLen
	if secrets && (r.shortest == 0 || minSecretLen < r.shortest) {
		r.shortest = minSecretLen
	}
	r.shortest = max(r.shortest, 1)
	r.quick = sync.OnceValue(r.quickDFA)
	r.pool.New = func() any { return &walker{r: r, dfa: r.quick()} }
	r.seen = newVerdicts()
	return r
}

// quickDFA builds the automaton of walker.quick: the rules' keywords when
// the secret scan is on, the named keys (with the Kelvin sign and the long
// s, which fold into k and s, where a key has those letters), and the
// escapes that could spell any of them. A key outside ASCII folds in ways
// this does not follow, and turns the quick check off.
func (r *Redactor) quickDFA() *keywordDFA {
	if len(r.keys) == 0 {
		if r.secrets {
			return loadRules().quick
		}
		return nil
	}
	var words []string
	if r.secrets {
		words = slices.Clone(loadRules().keywords)
	}
	for c := range r.keys {
		for i := range len(c) {
			if c[i] >= utf8.RuneSelf {
				return nil
			}
		}
		k := strings.ToLower(c)
		words = append(words, k)
		if strings.IndexByte(k, 'k') >= 0 {
			words = append(words, "\u212a")
		}
		if strings.IndexByte(k, 's') >= 0 {
			words = append(words, "\u017f")
		}
	}
	slices.Sort(words)
	words = slices.Compact(words)
	d, err := buildKeywordDFA(append(words, escapes(words)...))
	if err != nil {
		return nil // too many keys for one automaton: walk every string
	}
	return d
}

// Enabled reports whether the redactor can change anything: with no keys
// and the secret scan off it cannot, and callers skip it rather than walk
// every span for nothing. A nil Redactor is not enabled.
func (r *Redactor) Enabled() bool {
	return r != nil && (len(r.keys) > 0 || r.secrets)
}

// Span redacts sp in place: its attributes and its events' and links'
// attributes, and, as strings like any other, its name, its status message
// and its events' names (an API error's message quotes the rejected key
// often enough). It returns whether anything changed, so a caller can mark
// the artifact as redacted. Span only reads the Redactor, so it is safe to
// call concurrently on different spans; sp must be mutable (in a collector,
// an exporter that redacts declares that it mutates data).
func (r *Redactor) Span(sp ptrace.Span) bool {
	if !r.Enabled() {
		return false
	}
	w := r.get()
	defer r.put(w)
	changed := w.pmap(sp.Attributes(), 0)
	if w.rest(sp) {
		changed = true
	}
	return changed
}

// rest redacts what of sp Span redacts beside its attributes: its name,
// status message, events and links.
func (w *walker) rest(sp ptrace.Span) bool {
	changed := false
	if s, ok := w.textUnder(spanNameSlot, sp.Name()); ok {
		sp.SetName(s)
		changed = true
	}
	if s, ok := w.text(sp.Status().Message()); ok {
		sp.Status().SetMessage(s)
		changed = true
	}
	evs := sp.Events()
	for i := range evs.Len() {
		ev := evs.At(i)
		if w.pmap(ev.Attributes(), 0) {
			changed = true
		}
		if s, ok := w.textUnder(eventNameSlot, ev.Name()); ok {
			ev.SetName(s)
			changed = true
		}
	}
	links := sp.Links()
	for i := range links.Len() {
		if w.pmap(links.At(i).Attributes(), 0) {
			changed = true
		}
	}
	return changed
}

// spanNameSlot and eventNameSlot stand for a key in verdicts.lookupKeyed:
// span and event names repeat as attribute values do. A key only picks a
// slot, so an attribute key spelled the same would only share theirs.
var (
	spanNameSlot  = []byte("\x00span.name")
	eventNameSlot = []byte("\x00event.name")
)

// Map redacts an attribute map in place, by the same rules as a span's
// attributes, and returns whether anything changed. It is what Span uses,
// and what callers use for resources and scopes, whose attributes
// (process command lines, environment-derived values) can carry secrets
// too.
func (r *Redactor) Map(m pcommon.Map) bool {
	if !r.Enabled() {
		return false
	}
	w := r.get()
	defer r.put(w)
	return w.pmap(m, 0)
}

// Traces redacts a batch in place: each resource's and scope's attributes
// once, then every span (Span). It returns whether anything changed. The
// bridge and the collector exporter both redact whole batches this way.
func (r *Redactor) Traces(td ptrace.Traces) bool {
	if !r.Enabled() {
		return false
	}
	changed := false
	for _, rs := range td.ResourceSpans().All() {
		changed = r.Map(rs.Resource().Attributes()) || changed
		for _, ss := range rs.ScopeSpans().All() {
			changed = r.Map(ss.Scope().Attributes()) || changed
			for _, sp := range ss.Spans().All() {
				changed = r.Span(sp) || changed
			}
		}
	}
	return changed
}

// Logs redacts a batch of log records in place as Traces redacts spans:
// named keys and the secret scan over resource, scope and record
// attributes and the body, whatever its type (LogRecord). It returns
// whether anything changed. The store redacts logs this way for every
// writer, so a prompt an instrumentation puts in a log record's body is
// covered too.
func (r *Redactor) Logs(ld plog.Logs) bool {
	if !r.Enabled() {
		return false
	}
	changed := false
	for _, rl := range ld.ResourceLogs().All() {
		changed = r.Map(rl.Resource().Attributes()) || changed
		for _, sl := range rl.ScopeLogs().All() {
			changed = r.Map(sl.Scope().Attributes()) || changed
			for _, lr := range sl.LogRecords().All() {
				changed = r.LogRecord(lr) || changed
			}
		}
	}
	return changed
}

// LogRecord redacts one log record in place, its attributes and its
// body; the body, a value rather than a map, is redacted as the one value
// of a map, so a string body is scanned too. Its resource and scope are
// the caller's to redact (Map), once for all the records that share them.
func (r *Redactor) LogRecord(lr plog.LogRecord) bool {
	changed := r.Map(lr.Attributes())
	m := pcommon.NewMap()
	lr.Body().CopyTo(m.PutEmpty("body"))
	if r.Map(m) {
		if v, ok := m.Get("body"); ok {
			v.CopyTo(lr.Body())
		}
		changed = true
	}
	return changed
}

// NamesKeys reports whether r redacts named keys, which makes the
// arguments and results of two runs incomparable (an artifact's header
// says so).
func (r *Redactor) NamesKeys() bool { return r != nil && len(r.keys) > 0 }

// ScansSecrets reports whether r runs the secret scan.
func (r *Redactor) ScansSecrets() bool { return r != nil && r.secrets }

// JSON redacts one JSON document (an artifact line as a live viewer
// streams it, say) by the rules a span's attributes follow: named keys are
// field names anywhere in it, and every string is scanned. It returns the
// document unchanged, and false, when there was nothing to redact; input
// that is not valid JSON is scanned as text.
func (r *Redactor) JSON(doc []byte) ([]byte, bool) {
	if !r.Enabled() || len(doc) == 0 {
		return doc, false
	}
	w := r.get()
	defer r.put(w)
	s, changed := w.text(string(doc))
	if !changed {
		return doc, false
	}
	return []byte(s), true
}

// Text redacts one string by the rules an attribute value follows (a
// string holding JSON is walked as JSON), and returns it unchanged, and
// false, when there was nothing to redact. It is for values that are not in
// an attribute map but are written or shown all the same: a conversation
// id a store turns into a file name, say.
func (r *Redactor) Text(s string) (string, bool) {
	if !r.Enabled() || s == "" {
		return s, false
	}
	w := r.get()
	defer r.put(w)
	if ns, ok := w.text(s); ok {
		return ns, true
	}
	return s, false
}

// secretScan is the Redactor of SecretsIn: the secret scan, no keys.
var secretScan = sync.OnceValue(func() *Redactor { return New(nil, true) })

// SecretsIn is Text of a Redactor with the secret scan on and no named
// keys, built once: the check for a value that must never hold a secret
// whatever a writer's redaction settings are (a file name).
func SecretsIn(s string) (string, bool) { return secretScan().Text(s) }

// maxKeep bounds the scratch space a pooled walker keeps: one huge tool
// result should not pin its size in memory for good.
const maxKeep = 1 << 16

func (r *Redactor) get() *walker { return r.pool.Get().(*walker) }

func (r *Redactor) put(w *walker) {
	if !w.walked {
		r.pool.Put(w) // no buffer grew
		return
	}
	w.walked = false
	for i := range w.str {
		if cap(w.str[i]) > maxKeep {
			w.str[i] = nil
		}
		if cap(w.out[i]) > maxKeep {
			w.out[i] = nil
		}
	}
	if cap(w.key) > maxKeep {
		w.key = nil
	}
	r.pool.Put(w)
}

// walker holds one goroutine's scratch space: per JSON-string level, a
// buffer for unescaped strings and one for re-encoded JSON, and one for
// unescaped field names. They are reused through the Redactor's pool.
type walker struct {
	r *Redactor
	// dfa is the Redactor's quick automaton (nil: none), looked up once
	// per walker rather than once per string.
	dfa *keywordDFA
	// walked says a string was walked (contentOnce) since the walker
	// left the pool, so that put checks the buffers only then.
	walked bool
	key    []byte
	str    [maxLevels][]byte
	out    [maxLevels][]byte
}

// pmap redacts a pdata map.
func (w *walker) pmap(m pcommon.Map, depth int) bool {
	changed := false
	for k, v := range m.All() {
		if w.pvalue(bytesOf(k), true, v, depth) {
			changed = true
		}
	}
	return changed
}

// pvalue redacts one pdata value; key is its key in a map, if hasKey,
// or the key of the slice it is in, which only picks where a
// short value's verdict is looked up: a list's values repeat under its
// key as a value does (finish reasons: stop, tool_calls).
func (w *walker) pvalue(key []byte, hasKey bool, v pcommon.Value, depth int) bool {
	// len(keys) in line: with no named keys (the exporter's default) an
	// attribute costs no call here.
	if hasKey && len(w.r.keys) > 0 && w.r.named(key) {
		if v.Type() == pcommon.ValueTypeStr && v.Str() == Placeholder {
			return false
		}
		v.SetStr(Placeholder)
		return true
	}
	switch v.Type() {
	case pcommon.ValueTypeStr:
		s := v.Str()
		// A value shorter than minCredentialLen is no credential
		// (credentialLike): most are, and skip the key's check.
		if hasKey && w.r.secrets && len(s) >= minCredentialLen && secretKeyed(key) && credentialLike(bytesOf(s)) {
			v.SetStr(Placeholder)
			return true
		}
		if ns, ok := w.textUnder(key, s); ok {
			v.SetStr(ns)
			return true
		}
	case pcommon.ValueTypeMap:
		if depth < maxDepth {
			return w.pmap(v.Map(), depth+1)
		}
	case pcommon.ValueTypeSlice:
		if depth < maxDepth {
			changed := false
			sl := v.Slice()
			for i := range sl.Len() {
				if w.pvalue(key, false, sl.At(i), depth+1) {
					changed = true
				}
			}
			return changed
		}
	}
	return false
}

// text redacts a string value: as JSON when it is a JSON object or array,
// otherwise as text with the secret patterns. It returns the new string and
// true only when something changed; the original is never copied otherwise.
func (w *walker) text(s string) (string, bool) {
	if len(s) < w.r.shortest {
		return s, false // too short to hold a secret or a named key
	}
	seen := w.r.seen
	if seen == nil || len(s) < verdictMin || len(s) > verdictMax {
		return w.scanText(s)
	}
	p, clean := seen.lookup(s)
	if clean {
		return s, false
	}
	// The sighting's hash first: its one sequential read brings s into
	// the cache for the scan, which reads it as four streams at once.
	tok := seen.sighting(s)
	ns, changed := w.scanText(s)
	if !changed {
		seen.remember(p, tok, s)
	}
	return ns, changed
}

// textUnder is text for a value under key in an attribute map: a short
// value is looked up by its key (verdicts.lookupKeyed) before it is
// scanned, unless it is too short to change (Redactor.shortest), which
// text lets through by one comparison.
func (w *walker) textUnder(key []byte, s string) (string, bool) {
	seen := w.r.seen
	if seen == nil || len(s) < keyedMin || len(s) < w.r.shortest || len(s) >= verdictMin {
		return w.text(s)
	}
	sl, clean := seen.lookupKeyed(key, s)
	if clean {
		return s, false
	}
	ns, changed := w.scanText(s)
	if !changed {
		seen.rememberKeyed(sl, s)
	}
	return ns, changed
}

// scanText is text without the table of clean verdicts: the quick check,
// then the walk.
func (w *walker) scanText(s string) (string, bool) {
	if w.quick(bytesOf(s)) {
		return s, false
	}
	return w.walkText(s)
}

// walkText is text without the quick check: the JSON walked, or the text
// scanned.
func (w *walker) walkText(s string) (string, bool) {
	b := bytesOf(s)
	if looksJSON(b) {
		if _, changed := w.content(b, 0, false); !changed {
			return s, false
		}
		out, _ := w.content(b, 0, true)
		return string(out), true
	}
	if w.r.secrets {
		if ns, ok := secretsIn(b); ok {
			return ns, true
		}
	}
	return s, false
}

// quick reports whether b is certain to come out unchanged, by one pass
// of the keyword automaton over it instead of a walk of its JSON. Every
// pattern and rule needs a keyword (see TestPatternKeywords), and so does
// a credential's name (it ends in a generic name, a keyword). A keyword in
// a string of b, however deeply b's JSON nests JSON in strings, is in b
// itself unless an escape wrote one of its bytes: \u can write any byte
// (and a \u at any depth shows as \u in b), the others only quotes,
// backslashes, slashes and control characters, which keywords have few
// of. A named key is matched as a whole field name, so a text that does not
// hold it (in any case) cannot have it as a field name either: the named
// keys are keywords of the automaton too. The escapes are keywords of it
// as well (Redactor.quickDFA), so one pass checks for all; like every
// keyword they match in either case, so a \U (no JSON escape) makes the
// walk run too, which is only slower.
func (w *walker) quick(b []byte) bool {
	return w.dfa != nil && !w.dfa.any(b)
}

// named reports whether key is one of the Redactor's keys, ignoring case.
// Keys are compared by their canonical forms; for an ASCII key that is its
// upper-case form, built in a stack buffer, so the check does not allocate.
func (r *Redactor) named(key []byte) bool {
	if len(r.keys) == 0 || len(key) == 0 {
		return false
	}
	if c := key[0]; c < utf8.RuneSelf && !r.first[upper(c)] {
		return false
	}
	var arr [64]byte
	buf := arr[:0]
	if len(key) > len(arr) || len(key) < r.minLen || len(key) > r.maxLen {
		buf = nil // only a non-ASCII key can still match
	}
	for _, c := range key {
		if c >= utf8.RuneSelf {
			_, ok := r.keys[canonical(string(key))]
			return ok
		}
		if buf != nil {
			buf = append(buf, upper(c))
		}
	}
	if buf == nil {
		return false
	}
	_, ok := r.keys[string(buf)]
	return ok
}

func upper(c byte) byte {
	if 'a' <= c && c <= 'z' {
		return c - ('a' - 'A')
	}
	return c
}

// canonical maps s to the smallest rune of each rune's case-folding orbit,
// so that two strings have the same canonical form exactly when
// strings.EqualFold says they are equal (K, k and the Kelvin sign all
// become K). For ASCII that is the upper-case form, which named builds
// without allocating.
func canonical(s string) string {
	buf := make([]byte, 0, len(s))
	for _, c := range s {
		m := c
		for f := unicode.SimpleFold(c); f != c; f = unicode.SimpleFold(f) {
			m = min(m, f)
		}
		buf = utf8.AppendRune(buf, m)
	}
	return string(buf)
}

// bytesOf returns the bytes of s without copying. The walker only reads
// them; nothing may write to the result.
func bytesOf(s string) []byte {
	return unsafe.Slice(unsafe.StringData(s), len(s))
}
