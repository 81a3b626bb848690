package redact

import (
	"bytes"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
	"unsafe"
)

// A pattern is one kind of secret.
//
// Each pattern starts with a fixed word (sk-, AKIA, ghp_, Bearer, a
// credential's name, ...), so instead of running a regular expression over
// every string, the scan looks for an anchor byte that is rare in prose
// (the dash of "sk-", the underscore of "ghp_", the colon of "password:")
// with bytes.IndexByte, which is vectorized, and checks a few bytes around
// each hit: at returns where a match could start. The expression, anchored,
// runs only there. A string with no candidate, nearly every string, costs
// a few passes over memory and no allocation, and a long tool result with
// one near miss costs one short anchored match instead of a scan.
//
// The result is exactly what the unanchored expression (see expr) replaces
// with FindAll: at finds every position where a match can start, and
// candidates inside an earlier match are skipped.
type pattern struct {
	name string
	// expr is the pattern as documented, unanchored; tests check the scan
	// against it. re is expr anchored at the start of its input, with a
	// leading \b left to at (unless scan).
	expr    string
	re      *regexp.Regexp
	group   int    // the submatch that is the secret: 0 for the whole match
	anchors string // the bytes at is called for
	at      func(b []byte, i int) int
	// scan says re is expr itself, run with FindAll from the first
	// candidate on. A private key block ends with a lazy match to its END
	// line; tried at every BEGIN line of a text without one, each attempt
	// would read to the end of the text.
	scan bool
}

// Indexes of patterns.
const (
	patOpenAI = iota
	patAWS
	patGitHub
	patGitHubPAT
	patSlack
	patBearer
	patPEM
	patGoogle
	patGeneric
	numPatterns
)

// patterns are compiled once; a Redactor only reads them.
//
// The secret is group 1 where the match also holds a name ("Bearer <token>",
// "password=<value>"): only the secret is replaced, so the text still says
// what was there.
//
// Two differ from the obvious form on purpose. The OpenAI pattern starts at
// a word boundary, or every long kebab-case identifier with "task-" or
// "risk-" in it (agent traces are full of them) would be taken for a key.
// The generic pattern allows a quote after the name, so that
// "password": "..." in text that is not valid JSON (a Python dict, an error
// message quoting a request body) is caught as well as password=....
var patterns = [numPatterns]pattern{
	patOpenAI: {"openai", `\bsk-[A-Za-z0-9_-]{20,}`,
		regexp.MustCompile(`^sk-[A-Za-z0-9_-]{20,}`), 0, "-", openAIAt, false},
	patAWS: {"aws", `\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`,
		regexp.MustCompile(`^(?:AKIA|ASIA)[0-9A-Z]{16}\b`), 0, "A", awsAt, false},
	patGitHub: {"github", `\bgh[pousr]_[A-Za-z0-9]{36,}\b`,
		regexp.MustCompile(`^gh[pousr]_[A-Za-z0-9]{36,}\b`), 0, "_", gitHubAt, false},
	patGitHubPAT: {"github_pat", `github_pat_[A-Za-z0-9_]{22,}`,
		regexp.MustCompile(`^github_pat_[A-Za-z0-9_]{22,}`), 0, "_", gitHubPATAt, false},
	patSlack: {"slack", `\bxox[abposr]-[A-Za-z0-9-]{10,}`,
		regexp.MustCompile(`^xox[abposr]-[A-Za-z0-9-]{10,}`), 0, "-", slackAt, false},
	patBearer: {"bearer", `(?i)\bbearer\s+([A-Za-z0-9._~+/-]{16,}=*)`,
		regexp.MustCompile(`(?i)^bearer\s+([A-Za-z0-9._~+/-]{16,}=*)`), 1, "bB", bearerAt, false},
	patPEM: {"pem", pemExpr, regexp.MustCompile(pemExpr), 0, "-", pemAt, true},
	patGoogle: {"google", `\bAIza[0-9A-Za-z_-]{35}\b`,
		regexp.MustCompile(`^AIza[0-9A-Za-z_-]{35}\b`), 0, "A", googleAt, false},
	patGeneric: {"generic", `(?i)(?:api[_-]?key|access[_-]?key|account[_-]?key|secret|password|passwd|token)["']?\s*[:=]\s*["']?([^\s"',;]{8,})`,
		regexp.MustCompile(`(?i)^(?:api[_-]?key|access[_-]?key|account[_-]?key|secret|password|passwd|token)["']?\s*[:=]\s*["']?([^\s"',;]{8,})`), 1, ":=", genericAt, false},
}

const pemExpr = `-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----`

// anchorGroups lists, for each anchor byte, the patterns that use it, so
// that candidates passes over each byte once.
var anchorGroups = func() (groups []anchorGroup) {
	index := map[byte]int{}
	for p := range patterns {
		for _, c := range []byte(patterns[p].anchors) {
			g, ok := index[c]
			if !ok {
				g = len(groups)
				index[c] = g
				groups = append(groups, anchorGroup{c: c})
			}
			groups[g].pats = append(groups[g].pats, p)
			groups[g].mask |= 1 << p
		}
	}
	return groups
}()

type anchorGroup struct {
	c    byte
	pats []int
	mask uint32
}

// patternKeywords are words one of which, ignoring ASCII case, is in every
// text a pattern matches: the keyword automaton looks for them with the
// rules' keywords, so that a string with none is rejected by one pass
// instead of an anchor search per pattern. The Kelvin sign and the long s
// stand for the generic names spelled with them, which (?i) matches (k and
// s are the only ASCII letters whose case folding leaves ASCII).
// TestPatternKeywords checks each pattern against this list.
var patternKeywords = []string{
	"sk-",          // openai
	"akia", "asia", // aws
	"ghp_", "gho_", "ghu_", "ghs_", "ghr_", // github
	"github_pat_",                                        // github_pat
	"xoxa-", "xoxb-", "xoxp-", "xoxo-", "xoxs-", "xoxr-", // slack
	"bearer",                                                                // bearer
	"-----begin ",                                                           // pem
	"aiza",                                                                  // google
	"apikey", "api_key", "api-key", "accesskey", "access_key", "access-key", // generic
	"accountkey", "account_key", "account-key", "secret", "password", "passwd", "token",
	"\u212a", "\u017f",
}

// minSecretLen is the length of the shortest text any pattern or rule can
// match: agenttrace/url-credentials' "a0://:p@h" (a two-letter scheme, an
// empty user, a one-character password and host). Shorter strings, which
// many attribute values are, cost one comparison. It was 14, the
// patterns' shortest ("token:" and eight characters), until
// FuzzRedactSecrets found a nine-byte URL with a password let through.
const minSecretLen = 9

// maxPasses bounds the rescans of a string after a replacement. A
// replacement can expose a match that was not there before (a placeholder
// puts a word boundary where there was none), so a string is scanned until
// nothing changes; that is what makes redacting twice the same as once.
const maxPasses = 8

// secretsIn returns b with every secret replaced by Placeholder, and whether
// there was any. It does not allocate when there is no candidate.
func secretsIn(b []byte) (string, bool) {
	s, changed, candidate := scanSecrets(b)
	if !candidate {
		// The escape view only takes letters away: it holds no keyword
		// b does not, so a string without a candidate needs no view.
		return s, changed
	}
	cur := b
	if changed {
		cur = bytesOf(s)
	}
	if ns, ok := escapedSecrets(cur); ok {
		return ns, true
	}
	return s, changed
}

// The bytes an escape's letter stands as in escapedSecrets' view: control
// bytes, which no rule takes for a word byte, one for each letter so that
// the letters can be put back.
const (
	escN = 0x01
	escR = 0x02
	escT = 0x03
)

// escapedSecrets finds the secrets a literal escape sequence hides from
// the rules' word boundaries. Text that quotes a JSON or program string
// without being JSON itself (a tool's output cut short, a log line, a
// Python repr: "line1\nsk_live_..." with the two characters \ and n)
// puts a letter right before a token, where \b sees no boundary, and the
// rules of gitleaks, which anchor most tokens with \b, let it through
// (issue 21: a Stripe key after an escaped newline survived an imported
// trajectory). escapedSecrets scans a view of b in which the letter of
// each \n, \r and \t followed by a word byte is a control byte (no word
// byte, the same length), and puts the letters back in what comes out. It
// reports false, without allocating, when b has no such escape.
func escapedSecrets(b []byte) (string, bool) {
	if len(b) < minSecretLen || !hasEscapeBeforeWord(b) || bytes.IndexByte(b, escN) >= 0 || bytes.IndexByte(b, escR) >= 0 || bytes.IndexByte(b, escT) >= 0 {
		return "", false
	}
	view := make([]byte, len(b))
	copy(view, b)
	for i := 0; i+1 < len(view); i++ {
		if view[i] != '\\' {
			continue
		}
		switch view[i+1] {
		case 'n':
			view[i+1] = escN
		case 'r':
			view[i+1] = escR
		case 't':
			view[i+1] = escT
		}
		i++ // an escaped backslash escapes nothing after it
	}
	s, ok, _ := scanSecrets(view)
	if !ok {
		return "", false
	}
	return strings.NewReplacer("\x01", "n", "\x02", "r", "\x03", "t").Replace(s), true
}

// hasEscapeBeforeWord reports whether b holds \n, \r or \t (the two
// characters) right before a word byte.
func hasEscapeBeforeWord(b []byte) bool {
	for i := 0; ; {
		j := bytes.IndexByte(b[i:], '\\')
		if j < 0 || i+j+2 >= len(b) {
			return false
		}
		i += j
		switch b[i+1] {
		case 'n', 'r', 't':
			if isWord(b[i+2]) {
				return true
			}
		}
		i += 2
	}
}

// scanSecrets is secretsIn without the view of escapedSecrets; candidate
// says whether b held a keyword at all.
func scanSecrets(b []byte) (s string, changed, candidate bool) {
	if len(b) < minSecretLen {
		return "", false, false
	}
	// One pass of the automaton, which knows the patterns' keywords too,
	// rejects nearly every string; only a string with a keyword pays for
	// the patterns' anchor searches.
	rs := loadRules()
	if !rs.candidate(b) {
		return "", false, false
	}
	mask, kw := candidates(b), true
	// The first pass reads b in place: a replacement builds a new string,
	// and b itself is never returned.
	s = unsafe.String(unsafe.SliceData(b), len(b))
	for pass := 0; pass < maxPasses && (mask != 0 || kw); pass++ {
		passChanged := false
		for i := range patterns {
			if mask&(1<<i) == 0 {
				continue
			}
			if ns, ok := patterns[i].replace(s); ok {
				// The next patterns see the new text, as they would
				// running one after the other over the whole string.
				s, passChanged = ns, true
				mask = candidates(bytesOf(s))
			}
		}
		// Then the rules (rules.go), over what the patterns left.
		if kw {
			if ns, ok := rs.replace(s); ok {
				s, passChanged = ns, true
				mask = candidates(bytesOf(s))
			}
		}
		if !passChanged {
			break
		}
		changed = true
		kw = rs.candidate(bytesOf(s))
	}
	return s, changed, true
}

// candidates returns a mask of the patterns that have a candidate in b: a
// pattern whose bit is clear cannot match.
func candidates(b []byte) uint32 {
	if len(b) < minSecretLen {
		return 0
	}
	var m uint32
	for _, g := range anchorGroups {
		for i := 0; m&g.mask != g.mask; i++ {
			j := bytes.IndexByte(b[i:], g.c)
			if j < 0 {
				break
			}
			i += j
			for _, p := range g.pats {
				if m&(1<<p) == 0 && patterns[p].at(b, i) >= 0 {
					m |= 1 << p
				}
			}
		}
	}
	return m
}

// replace replaces the secret of every match with Placeholder. A secret
// that is already the placeholder ("password=[REDACTED]") is left alone and
// is no change.
func (p *pattern) replace(s string) (string, bool) {
	b := bytesOf(s)
	var starts []int
	for _, c := range []byte(p.anchors) {
		for i := 0; ; i++ {
			j := bytes.IndexByte(b[i:], c)
			if j < 0 {
				break
			}
			i += j
			if q := p.at(b, i); q >= 0 {
				starts = append(starts, q)
			}
		}
	}
	if len(starts) == 0 {
		return s, false
	}
	var matches [][]int
	if p.scan {
		matches = p.re.FindAllStringSubmatchIndex(s[starts[0]:], -1)
		for _, l := range matches {
			for k := range l {
				l[k] += starts[0]
			}
		}
	} else {
		if len(p.anchors) > 1 {
			slices.Sort(starts)
		}
		end := 0 // of the last match: candidates inside it are not starts
		for _, q := range starts {
			if q < end {
				continue
			}
			if l := p.re.FindStringSubmatchIndex(s[q:]); l != nil {
				for k := range l {
					l[k] += q
				}
				matches = append(matches, l)
				end = l[1]
			}
		}
	}
	var sb strings.Builder
	last := 0 // end of the last replacement
	for _, l := range matches {
		a, z := l[2*p.group], l[2*p.group+1]
		if s[a:z] == Placeholder {
			continue
		}
		if sb.Len() == 0 {
			sb.Grow(len(s))
		}
		sb.WriteString(s[last:a])
		sb.WriteString(Placeholder)
		last = z
	}
	if last == 0 {
		return s, false
	}
	sb.WriteString(s[last:])
	return sb.String(), true
}

// The at functions return where a match can start given the anchor byte at
// b[i], or -1. A leading \b is checked here: the anchored expression
// cannot see the byte before its input.

func openAIAt(b []byte, i int) int { // sk-
	if i >= 2 && b[i-2] == 's' && b[i-1] == 'k' && boundaryBefore(b, i-2) {
		return i - 2
	}
	return -1
}

func slackAt(b []byte, i int) int { // xoxb-
	if i >= 4 && string(b[i-4:i-1]) == "xox" && strings.IndexByte("abposr", b[i-1]) >= 0 && boundaryBefore(b, i-4) {
		return i - 4
	}
	return -1
}

func pemAt(b []byte, i int) int { // -----BEGIN
	if bytes.HasPrefix(b[i:], []byte("-----BEGIN ")) {
		return i
	}
	return -1
}

func awsAt(b []byte, i int) int { // AKIA, ASIA
	if (bytes.HasPrefix(b[i:], []byte("AKIA")) || bytes.HasPrefix(b[i:], []byte("ASIA"))) && boundaryBefore(b, i) {
		return i
	}
	return -1
}

func googleAt(b []byte, i int) int { // AIza
	if bytes.HasPrefix(b[i:], []byte("AIza")) && boundaryBefore(b, i) {
		return i
	}
	return -1
}

func gitHubAt(b []byte, i int) int { // ghp_
	if i >= 3 && b[i-3] == 'g' && b[i-2] == 'h' && strings.IndexByte("pousr", b[i-1]) >= 0 && boundaryBefore(b, i-3) {
		return i - 3
	}
	return -1
}

func gitHubPATAt(b []byte, i int) int { // github_pat_
	if i >= 6 && bytes.HasPrefix(b[i-6:], []byte("github_pat_")) {
		return i - 6
	}
	return -1
}

func bearerAt(b []byte, i int) int { // bearer, any case, then a space
	const word = "bearer"
	if i+len(word) < len(b) && equalFoldASCII(b[i+1:i+len(word)], word[1:]) && isSpace(b[i+len(word)]) && boundaryBefore(b, i) {
		return i
	}
	return -1
}

// boundaryBefore reports whether \b holds before b[i], a word character.
func boundaryBefore(b []byte, i int) bool { return i == 0 || !isWord(b[i-1]) }

// isWord is the \b notion of a word character: ASCII letters, digits, _.
func isWord(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// isSpace is \s in RE2: ASCII tab, newline, form feed, carriage return and
// space.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'
}

// genericNames are the names the generic pattern looks for, lower case.
// access_key and account_key are there for AWS_SECRET_ACCESS_KEY=... (and
// SecretAccessKey in the JSON the AWS CLI prints) and for Azure's
// AccountKey=... in connection strings (and SharedAccessKey=...).
var genericNames = [...]string{"apikey", "api_key", "api-key", "accesskey", "access_key", "access-key",
	"accountkey", "account_key", "account-key", "secret", "password", "passwd", "token"}

// genericAt, for the ':' or '=' at b[i], returns where the name before it
// starts (name["']?\s*[:=]\s*["']?value), or -1 when there is no name or
// fewer than eight value bytes. Colons are rare in prose and equals signs
// rarer, so this is far cheaper than a case-insensitive search for each
// name.
func genericAt(b []byte, i int) int {
	// Forward: at least eight value bytes.
	k := i + 1
	for k < len(b) && isSpace(b[k]) {
		k++
	}
	if k < len(b) && (b[k] == '"' || b[k] == '\'') {
		k++
	}
	n := 0
	for ; k < len(b) && n < minCredentialLen; k++ {
		if c := b[k]; isSpace(c) || c == '"' || c == '\'' || c == ',' || c == ';' {
			break
		}
		n++
	}
	if n < minCredentialLen {
		return -1
	}
	// Backward: spaces, an optional quote, the name.
	j := i
	for j > 0 && isSpace(b[j-1]) {
		j--
	}
	if j > 0 && (b[j-1] == '"' || b[j-1] == '\'') {
		j--
	}
	for _, name := range genericNames {
		if start := foldSuffix(b[:j], name); start >= 0 {
			return start
		}
	}
	return -1
}

// foldSuffix returns where name, lower-case ASCII, starts as a suffix of b
// under the case folding of (?i), or -1. That folding is Unicode's: k also
// matches the Kelvin sign and s the long s, which take more bytes.
func foldSuffix(b []byte, name string) int {
	j := len(b)
	for n := len(name) - 1; n >= 0; n-- {
		if j == 0 {
			return -1
		}
		c := b[j-1]
		if c < utf8.RuneSelf {
			if c != name[n] && !('A' <= c && c <= 'Z' && c+('a'-'A') == name[n]) {
				return -1
			}
			j--
			continue
		}
		r, size := utf8.DecodeLastRune(b[:j])
		if !foldsTo(r, rune(name[n])) {
			return -1
		}
		j -= size
	}
	return j
}

// foldsTo reports whether r is in the case-folding orbit of c.
func foldsTo(r, c rune) bool {
	for f := unicode.SimpleFold(c); f != c; f = unicode.SimpleFold(f) {
		if f == r {
			return true
		}
	}
	return r == c
}

// equalFoldASCII reports whether b equals lower, a lower-case ASCII string,
// ignoring ASCII case.
func equalFoldASCII(b []byte, lower string) bool {
	if len(b) != len(lower) {
		return false
	}
	for i := range len(b) {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// genericByLast lists genericNames by their last letter, for secretKeyed.
var genericByLast = func() (m [256][]string) {
	for _, name := range genericNames {
		c := name[len(name)-1]
		m[c] = append(m[c], name)
	}
	return m
}()

// secretKeyed reports whether a key or field name is one the generic
// pattern would take for a credential's name (password, client_secret,
// x-api-key, access_token). In text the pattern needs name=value; in an
// attribute map or a JSON object the name and the value are separate, so
// the same rule is applied to the pair: see credentialLike. The name ends
// with one of genericNames in any ASCII case; every field name is asked,
// so only the names that end in its last letter are compared.
func secretKeyed(key []byte) bool {
	if len(key) < len("token") {
		return false
	}
	for _, name := range genericByLast[lower(key[len(key)-1])] {
		if len(key) >= len(name) && equalFoldASCII(key[len(key)-len(name):], name) {
			return true
		}
	}
	return false
}

// minCredentialLen is the generic pattern's shortest value ({8,}): what
// genericAt and credentialLike ask of a value, and what pvalue checks
// before it asks whether a key names a credential.
const minCredentialLen = 8

// credentialLike reports whether a value under a secretKeyed name looks like
// a credential: eight or more characters, the generic pattern's minimum, and
// no white space. Prose under such a name ("token": "the next token") is
// only scanned.
func credentialLike(v []byte) bool {
	if len(v) < minCredentialLen || string(v) == Placeholder {
		return false
	}
	for _, c := range v {
		if isSpace(c) {
			return false
		}
	}
	return true
}
