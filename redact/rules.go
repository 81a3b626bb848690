package redact

import (
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"math/bits"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

// The rules are the second kind of secret pattern, beside the hand-written
// patterns of secrets.go: hundreds of regular expressions, each with the
// keywords that must appear for it to match (gitleaks' scheme). Most come
// from gitleaks' default configuration (github.com/zricethezav/gitleaks/v8,
// MIT), vendored as data in gitleaks/rules.json with its LICENSE beside it
// and refreshed by the generator in internal/gengitleaks, so that the main
// module, which SDK users import through package bridge, does not depend on
// gitleaks. A few are this project's own (projectRules): families gitleaks
// has no rule for.
//
// The cost model: one pass of a keyword automaton (keywordDFA) over each
// string finds every keyword occurrence; a string without one, nearly every
// string, runs no regular expression. For a rule whose every match starts
// with one of its keywords (most rules: hf_..., npm_..., a JWT's ey...),
// the expression runs anchored at each occurrence only, after a cheap check
// of the word boundary most of them need ("they" holds the JWT keyword ey,
// but not at a word start). Other rules (gitleaks' "<service> ... = value"
// family) run unanchored over the string, as in gitleaks, only when one of
// their keywords occurs in it.

//go:embed gitleaks/rules.json
var gitleaksJSON []byte

// A rule is one compiled secret rule.
type rule struct {
	id string
	// expr is the expression as matched, unanchored. re is it compiled;
	// at and ctx are it anchored at the start of the input, ctx after one
	// rune of context so that \b and ^ at the match start see the byte
	// before it.
	expr    string
	re      *regexp.Regexp
	at, ctx *regexp.Regexp
	// atStart says every match starts with one of the keywords, so at and
	// ctx are tried only where a keyword starts. wordStart says such a
	// match also needs a word boundary before it and starts with a word
	// byte, so a keyword preceded by a word byte is no candidate.
	atStart, wordStart bool
	// exact, for an atStart rule whose matches start with case-sensitive
	// literals, lists them: "task" holds Twilio's keyword sk, but not its
	// SK, and is rejected without running the expression.
	exact   []string
	group   int     // the secret's submatch; 0: the first non-empty one
	entropy float64 // the secret's Shannon entropy must exceed this
	allow   []allowlist
	// check, for project rules, validates a secret further.
	check func(secret string) bool
	// needs are sets of lower-case ASCII strings a match must contain, one
	// of each set, after its start (requiredSets): a keyword with no
	// member of some set after it cannot start a match, so a text full of
	// "curl" with no -H in it costs one search, not an attempt at each.
	needs [][]string

	// The expressions are compiled on the rule's first use (ready): most
	// of the rules never see their keywords, and compiling them all would
	// cost every program that redacts a tenth of a second at start.
	keywords  []string
	allowData []gitleaksAllow
	global    func() []allowlist
	once      sync.Once
	err       error
}

// ready compiles the rule, once. The data is embedded and every rule is
// compiled by the tests (compileAll), so an error here is a build defect.
func (r *rule) ready() {
	r.once.Do(r.build)
	if r.err != nil {
		panic(fmt.Sprintf("redact: rule %s: %v", r.id, r.err))
	}
}

func (r *rule) build() {
	if r.err = r.compile(r.keywords); r.err != nil {
		return
	}
	allow, err := compileAllow(r.allowData)
	if err != nil {
		r.err = err
		return
	}
	if r.global != nil {
		allow = append(allow, r.global()...)
	}
	r.allow = allow
}

// An allowlist is gitleaks': a secret (or the whole match, or its line)
// that one of the expressions matches, or a secret holding a stop word, is
// not a secret.
type allowlist struct {
	target    string // "", "match" or "line"
	regexes   []*regexp.Regexp
	stopwords []string
}

// projectRule is a rule of this project's, for a family gitleaks has no
// rule for.
type projectRule struct {
	id       string
	expr     string
	keywords []string
	group    int
	check    func(string) bool
}

// projectRules are this project's own rules, marked "agenttrace/" in their
// ids. gitleaks has rules for service tokens, not for these generic
// shapes, which agent traces carry often: a connection string an agent
// printed, the header of an HTTP request a tool made, a key file a model
// was shown cut short at 500 bytes.
var projectRules = []projectRule{
	// scheme://user:password@host: the password is the secret, so the URL
	// still says which host and user.
	{"agenttrace/url-credentials", `\b[A-Za-z][A-Za-z0-9+.-]{1,20}://[^\s:/?#@"'<>]*:([^\s/?#@"'<>]+)@[A-Za-z0-9\[]`,
		[]string{"://"}, 1, nil},
	// The value of an Authorization: Basic header, whatever it decodes to.
	{"agenttrace/basic-auth-header", `(?i)\bauthorization["']?\s*[:=]\s*["']?basic\s+([A-Za-z0-9+/]{4,}={0,2})`,
		[]string{"authorization"}, 1, nil},
	// Hugging Face tokens with digits too (gitleaks' rule takes letters
	// only), and GitLab tokens whole, of any of GitLab's prefixes and
	// lengths (gitleaks' rule takes glpat- and 20 characters).
	{"agenttrace/huggingface-token", `\b(hf_[A-Za-z0-9]{30,40})(?:[^A-Za-z0-9_]|$)`, []string{"hf_"}, 1, hasDigitAndLetter},
	{"agenttrace/gitlab-token", `\b(gl(?:pat|dt|ptt|rt|cbt|oas|soat|ft|imt|agent|ffct)-[A-Za-z0-9_.-]{20,})`,
		[]string{"glpat-", "gldt-", "glptt-", "glrt-", "glcbt-", "gloas-", "glsoat-", "glft-", "glimt-", "glagent-", "glffct-"}, 1, hasDigitAndLetter},
	// Authorization: Basic with base64 of user:password. Prose ("basic
	// reasoning") is told apart by decoding.
	{"agenttrace/basic-auth", `(?i)\bbasic\s+([A-Za-z0-9+/]{6,}={0,2})(?:[^A-Za-z0-9+/=]|$)`,
		[]string{"basic"}, 1, isBasicCredential},
	// A PEM private key whose END line is missing: a tool result or a
	// preview cut short. Whole blocks are the pem pattern's; this takes the
	// body from the BEGIN line to the end of the base64, with the \n of a
	// JSON file (a service account's "private_key") read as text.
	{"agenttrace/private-key-truncated", `-----BEGIN [A-Z ]*PRIVATE KEY-----((?:\\[nr]|\s)*[A-Za-z0-9+/]{16,}(?:[A-Za-z0-9+/=\s]|\\[nr])*)`,
		[]string{"-----begin"}, 1, nil},
}

// terminator is how many gitleaks rules end: the token must be followed by
// a quote, white space, ';', an escaped newline or the end. Followed by a
// comma, a period or a bracket in prose ("my key is hf_..., try it") it
// would escape, so it is widened to any byte that cannot continue a token.
const (
	terminator      = `(?:[\x60'"\s;]|\\[nr]|$)`
	widenTerminator = `(?:[^0-9A-Za-z_]|\\[nr]|$)`
)

// boundedToken is a token's bounded length right before the terminator,
// as in Stripe's [a-zA-Z0-9]{10,99} followed by the terminator.
var boundedToken = regexp.MustCompile(`\{(\d+),\d+\}\)` + regexp.QuoteMeta(terminator))

// widenRule widens a gitleaks expression's ending: the terminator to
// widenTerminator, and a token's upper length bound right before it to
// none. With the bound, a token longer than the rule's maximum (a Stripe
// key of more than 99 characters after sk_live_, as live keys are; a
// Grafana or Vault token grown by a format change) matched nothing at all,
// since the terminator cannot follow a token character: the secret was
// let through whole. A longer run of the same characters, ending where a
// token must, is the same secret.
func widenRule(expr string) string {
	expr = boundedToken.ReplaceAllStringFunc(expr, func(m string) string {
		lo := boundedToken.FindStringSubmatch(m)[1]
		return "{" + lo + ",})" + terminator
	})
	return strings.ReplaceAll(expr, terminator, widenTerminator)
}

// gitleaksFile is the data file's shape (see internal/gengitleaks).
type gitleaksFile struct {
	Source     string          `json:"source"`
	Allowlists []gitleaksAllow `json:"allowlists"`
	Rules      []struct {
		ID          string          `json:"id"`
		Regex       string          `json:"regex"`
		Keywords    []string        `json:"keywords"`
		SecretGroup int             `json:"secretGroup"`
		Entropy     float64         `json:"entropy"`
		Allowlists  []gitleaksAllow `json:"allowlists"`
	} `json:"rules"`
}

type gitleaksAllow struct {
	Target    string   `json:"target"`
	Regexes   []string `json:"regexes"`
	StopWords []string `json:"stopwords"`
}

// A ruleSet is every rule with the keyword automaton over their keywords.
type ruleSet struct {
	rules []*rule
	dfa   *keywordDFA
	// quick is dfa with the escapes walker.quick looks for as keywords
	// too (\u, and \/ or \ where kwSlash or kwEscaped), so that its one
	// pass over a string is the whole check.
	quick *keywordDFA
	// kwRules lists, for each keyword of the automaton, the rules it is a
	// keyword of; keywords are the keywords, lower case.
	kwRules  [][]int
	keywords []string
	// kwSlash and kwEscaped say a keyword has a byte JSON can escape
	// other than by \u: a slash (\/), or a quote, a backslash or a
	// control character. See walker.quick.
	kwSlash, kwEscaped bool
}

// loadRules compiles the rules once, on first use: a program that never
// builds a Redactor with the secret scan on never pays for it.
var loadRules = sync.OnceValue(func() *ruleSet {
	rs, err := compileRules(gitleaksJSON)
	if err != nil {
		// The data file is embedded and tested: this is a build defect.
		panic(fmt.Sprintf("redact: the embedded gitleaks rules: %v", err))
	}
	return rs
})

func compileRules(data []byte) (*ruleSet, error) {
	var f gitleaksFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("decode: %w", err)
	}
	rs := &ruleSet{}
	global := sync.OnceValue(func() []allowlist {
		a, err := compileAllow(f.Allowlists)
		if err != nil {
			panic(fmt.Sprintf("redact: gitleaks' global allowlist: %v", err))
		}
		return a
	})
	kwIndex := map[string]int{}
	var kws []string
	add := func(r *rule, keywords []string) error {
		if len(keywords) == 0 {
			return fmt.Errorf("rule %s: no keywords", r.id)
		}
		r.keywords = keywords
		ri := len(rs.rules)
		rs.rules = append(rs.rules, r)
		for _, k := range keywords {
			k = strings.ToLower(k)
			i, ok := kwIndex[k]
			if !ok {
				i = len(kws)
				kwIndex[k] = i
				kws = append(kws, k)
				rs.kwRules = append(rs.kwRules, nil)
			}
			rs.kwRules[i] = append(rs.kwRules[i], ri)
		}
		return nil
	}
	// This project's rules first: where one and a gitleaks rule see the
	// same token, it takes the whole token (gitleaks' GitLab rule takes
	// 20 characters of a longer one).
	for _, p := range projectRules {
		if err := add(&rule{id: p.id, expr: p.expr, group: p.group, check: p.check}, p.keywords); err != nil {
			return nil, err
		}
	}
	for _, g := range f.Rules {
		r := &rule{id: g.ID, group: g.SecretGroup, entropy: g.Entropy,
			expr:      widenRule(g.Regex),
			allowData: g.Allowlists, global: global}
		if err := add(r, g.Keywords); err != nil {
			return nil, err
		}
	}
	if len(rs.rules) > maxRules {
		return nil, fmt.Errorf("%d rules, more than %d", len(rs.rules), maxRules)
	}
	// The patterns' keywords (secrets.go) ride along with no rule of
	// their own: one pass finds a candidate for either.
	for _, k := range patternKeywords {
		if _, ok := kwIndex[k]; !ok {
			kwIndex[k] = len(kws)
			kws = append(kws, k)
			rs.kwRules = append(rs.kwRules, nil)
		}
	}
	for _, k := range kws {
		for i := range len(k) {
			switch c := k[i]; {
			case c == '/':
				rs.kwSlash = true
			case c == '"' || c == '\\' || c < 0x20:
				rs.kwEscaped = true
			}
		}
	}
	rs.keywords = kws
	dfa, err := buildKeywordDFA(kws)
	if err != nil {
		return nil, err
	}
	rs.dfa = dfa
	esc := escapes(kws)
	if rs.quick, err = buildKeywordDFA(append(slices.Clip(kws), esc...)); err != nil {
		return nil, err
	}
	return rs, nil
}

// escapes are the escapes that could spell one of words in a JSON string
// without its bytes, for walker.quick: \u always (it can write any
// byte), and \/ where a word has a slash, or any escape where one has a
// quote, a backslash or a control character.
func escapes(words []string) []string {
	esc := []string{`\u`}
	for _, w := range words {
		for i := range len(w) {
			switch c := w[i]; {
			case c == '"' || c == '\\' || c < 0x20:
				return []string{`\`}
			case c == '/' && len(esc) == 1:
				esc = append(esc, `\/`)
			}
		}
	}
	return esc
}

// compileAll compiles every rule now; the tests use it to find a bad
// expression in the data at once.
func (rs *ruleSet) compileAll() error {
	for _, r := range rs.rules {
		r.once.Do(r.build)
		if r.err != nil {
			return fmt.Errorf("rule %s: %w", r.id, r.err)
		}
	}
	return nil
}

func compileAllow(lists []gitleaksAllow) ([]allowlist, error) {
	var out []allowlist
	for _, l := range lists {
		a := allowlist{target: l.Target}
		for _, s := range l.StopWords {
			a.stopwords = append(a.stopwords, strings.ToLower(s))
		}
		for _, e := range l.Regexes {
			re, err := regexp.Compile(e)
			if err != nil {
				return nil, fmt.Errorf("allowlist %q: %w", e, err)
			}
			a.regexes = append(a.regexes, re)
		}
		out = append(out, a)
	}
	return out, nil
}

// compile compiles r.expr and works out whether every match starts with
// one of the keywords.
func (r *rule) compile(keywords []string) error {
	var err error
	if r.re, err = regexp.Compile(r.expr); err != nil {
		return err
	}
	if r.group > r.re.NumSubexp() {
		return fmt.Errorf("secret group %d of %d", r.group, r.re.NumSubexp())
	}
	tree, err := syntax.Parse(r.expr, syntax.Perl)
	if err != nil {
		return err
	}
	r.needs = requiredSets(tree)
	prefixes, _, ok := matchPrefixes(tree)
	if !ok || len(prefixes) == 0 {
		return nil
	}
	for _, p := range prefixes {
		found := false
		for _, k := range keywords {
			if strings.HasPrefix(p, strings.ToLower(k)) {
				found = true
				break
			}
		}
		if !found {
			return nil
		}
	}
	r.atStart = true
	if r.at, err = regexp.Compile(`^(?:` + r.expr + `)`); err != nil {
		return err
	}
	if r.ctx, err = regexp.Compile(`^[\s\S](?:` + r.expr + `)`); err != nil {
		return err
	}
	r.exact = exactPrefixes(tree)
	r.wordStart = leadingWordBoundary(tree)
	for _, p := range prefixes {
		if p == "" || !isWord(p[0]) {
			r.wordStart = false
		}
	}
	return nil
}

// maxPrefixes bounds the prefix sets matchPrefixes builds.
const maxPrefixes = 256

// matchPrefixes returns lower-case strings one of which every match of re
// starts with (ok false when it cannot tell), and whether they are whole
// matches (so a concatenation can extend them with what follows). It is
// conservative: a rule it cannot read runs unanchored.
func matchPrefixes(re *syntax.Regexp) (set []string, complete, ok bool) {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText,
		syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return []string{""}, true, true
	case syntax.OpLiteral:
		return []string{strings.ToLower(string(re.Rune))}, true, true
	case syntax.OpCharClass:
		n := 0
		for i := 0; i < len(re.Rune); i += 2 {
			n += int(re.Rune[i+1]-re.Rune[i]) + 1
		}
		if n > 16 {
			return nil, false, false
		}
		seen := map[string]bool{}
		for i := 0; i < len(re.Rune); i += 2 {
			for c := re.Rune[i]; c <= re.Rune[i+1]; c++ {
				s := strings.ToLower(string(c))
				if !seen[s] {
					seen[s] = true
					set = append(set, s)
				}
			}
		}
		return set, true, true
	case syntax.OpCapture:
		return matchPrefixes(re.Sub[0])
	case syntax.OpPlus:
		set, _, ok = matchPrefixes(re.Sub[0])
		return set, false, ok
	case syntax.OpRepeat:
		if re.Min < 1 {
			return nil, false, false
		}
		set, _, ok = matchPrefixes(re.Sub[0])
		return set, false, ok
	case syntax.OpAlternate:
		complete = true
		for _, sub := range re.Sub {
			s, c, ok := matchPrefixes(sub)
			if !ok {
				return nil, false, false
			}
			set = append(set, s...)
			complete = complete && c
		}
		return set, complete, len(set) <= maxPrefixes
	case syntax.OpConcat:
		set, complete = []string{""}, true
		for _, sub := range re.Sub {
			s, c, ok := matchPrefixes(sub)
			if !ok {
				return set, false, len(set) > 1 || set[0] != ""
			}
			if len(set)*len(s) > maxPrefixes {
				return set, false, set[0] != ""
			}
			next := make([]string, 0, len(set)*len(s))
			for _, a := range set {
				for _, b := range s {
					next = append(next, a+b)
				}
			}
			set = next
			if !c {
				return set, false, true
			}
		}
		return set, complete, true
	}
	return nil, false, false
}

// exactPrefixes returns the literals, as written, one of which every
// match of re starts with, when re starts with case-sensitive literals
// (after any empty-width assertions and captures), or nil.
func exactPrefixes(re *syntax.Regexp) []string {
	switch re.Op {
	case syntax.OpCapture:
		return exactPrefixes(re.Sub[0])
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			return nil
		}
		return []string{string(re.Rune)}
	case syntax.OpAlternate:
		var out []string
		for _, sub := range re.Sub {
			p := exactPrefixes(sub)
			if p == nil {
				return nil
			}
			out = append(out, p...)
		}
		return out
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			switch sub.Op {
			case syntax.OpWordBoundary, syntax.OpBeginText, syntax.OpBeginLine:
				continue
			}
			return exactPrefixes(sub)
		}
	}
	return nil
}

// hasExactPrefix reports whether s[p:] starts with one of r.exact (true
// when the rule has none).
func (r *rule) hasExactPrefix(s string, p int) bool {
	if r.exact == nil {
		return true
	}
	for _, e := range r.exact {
		if strings.HasPrefix(s[p:], e) {
			return true
		}
	}
	return false
}

// leadingWordBoundary reports whether re starts with \b.
func leadingWordBoundary(re *syntax.Regexp) bool {
	for {
		switch re.Op {
		case syntax.OpWordBoundary:
			return true
		case syntax.OpCapture:
			re = re.Sub[0]
		case syntax.OpConcat:
			if len(re.Sub) == 0 {
				return false
			}
			re = re.Sub[0]
		case syntax.OpAlternate:
			for _, sub := range re.Sub {
				if !leadingWordBoundary(sub) {
					return false
				}
			}
			return true
		default:
			return false
		}
	}
}

// requiredSets returns, for a rule whose expression is a concatenation,
// the sets of strings that must occur in every match, one of each set:
// what each part of the concatenation after the first starts with (with
// what follows it, as far as that is literal), when matchPrefixes can tell
// and every string is ASCII. They are lower case; a text is searched for
// them ignoring ASCII case, which finds a superset.
func requiredSets(re *syntax.Regexp) [][]string {
	for re.Op == syntax.OpCapture {
		re = re.Sub[0]
	}
	if re.Op != syntax.OpConcat {
		return nil
	}
	var sets [][]string
	members := 0
	for i := 1; i < len(re.Sub); i++ {
		sub := &syntax.Regexp{Op: syntax.OpConcat, Sub: re.Sub[i:]}
		set, _, ok := matchPrefixes(sub)
		if !ok || len(set) == 0 || len(set) > 16 {
			continue
		}
		useful := true
		for _, s := range set {
			if s == "" || !isASCII(s) || (len(s) == 1 && (isWord(s[0]) || isSpace(s[0]))) {
				useful = false // any text has one
				break
			}
		}
		if useful && len(sets) < maxNeeds && members+len(set) <= maxNeedMembers {
			sets = append(sets, set)
			members += len(set)
		}
	}
	return sets
}

func isASCII(s string) bool {
	for i := range len(s) {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// hasNeeds reports whether s holds a member of each required set.
func (r *rule) hasNeeds(s string) bool {
	for _, set := range r.needs {
		if needFrom(s, set, 0) < 0 {
			return false
		}
	}
	return true
}

// maxNeeds bounds the required sets kept for a rule, and maxNeedMembers
// their members in all.
const (
	maxNeeds       = 8
	maxNeedMembers = 64
)

// needFrom returns where, at or after p, a member of required set set
// first starts in s, or -1.
func needFrom(s string, set []string, p int) int {
	first := -1
	for _, w := range set {
		if i := indexFold(s[p:], w); i >= 0 && (first < 0 || p+i < first) {
			first = p + i
		}
	}
	return first
}

// indexFold is strings.Index of w, lower-case ASCII, ignoring ASCII
// case. It searches for w's rarest byte (anchorOf) and checks w around
// each occurrence: in " -h" it looks for the dash, not for every space of
// the text.
func indexFold(s, w string) int {
	if len(w) == 0 || len(w) > len(s) {
		return -1
	}
	o := anchorOf(w)
	lo, up := w[o], w[o]
	if 'a' <= lo && lo <= 'z' {
		up = lo - ('a' - 'A')
	}
	// Each candidate is searched for from the one before, either case,
	// and no further than the nearer: linear in how far the match is.
	last := len(s) - len(w) + o // the last place the anchor can be
	for from := o; from <= last; {
		end, i := last+1, -1
		if j := strings.IndexByte(s[from:end], lo); j >= 0 {
			i = from + j
			end = i
		}
		if up != lo {
			if j := strings.IndexByte(s[from:end], up); j >= 0 {
				i = from + j
			}
		}
		if i < 0 {
			return -1
		}
		if equalFoldASCII(bytesOf(s[i-o:i-o+len(w)]), w) {
			return i - o
		}
		from = i + 1
	}
	return -1
}

// anchorOf returns the index of the byte of w least common in text: by a
// rough rank of English letters, with both cases of a letter counted,
// white space the most common and punctuation the least.
func anchorOf(w string) int {
	const letters = "etaoinshrdlcumwfgypbvkjxqz" // most common first
	best, bestScore := 0, 1<<30
	for i := range len(w) {
		c := w[i]
		var score int
		switch {
		case c == ' ':
			score = 100
		case 'a' <= c && c <= 'z':
			score = 60 - strings.IndexByte(letters, c)
		case '0' <= c && c <= '9':
			score = 20
		case isSpace(c):
			score = 10
		default:
			score = 1
		}
		if score < bestScore {
			best, bestScore = i, score
		}
	}
	return best
}

// A hit is a keyword occurrence: where it starts and which keyword.
type hit struct{ start, kw int32 }

// hitPool holds the scratch slices hits are collected in.
var hitPool = sync.Pool{New: func() any { s := make([]hit, 0, 64); return &s }}

// candidate reports whether any keyword occurs in b.
func (rs *ruleSet) candidate(b []byte) bool { return rs.dfa.any(b) }

// replace runs every rule whose keyword occurs in s, in order, each over
// the text the rules before it left, and returns the new text and whether
// anything changed.
func (rs *ruleSet) replace(s string) (string, bool) {
	hp := hitPool.Get().(*[]hit)
	defer func() {
		if cap(*hp) <= maxKeep {
			hitPool.Put(hp)
		}
	}()
	hits := rs.dfa.hits(bytesOf(s), (*hp)[:0])
	*hp = hits
	if len(hits) == 0 {
		return s, false
	}
	changed := false
	var cand ruleMask
	rs.mark(&cand, hits)
	if cand == (ruleMask{}) {
		return s, false // only the patterns' keywords, which run no rule
	}
	// The candidates in order, by their bits: a string with a keyword
	// has a few of some 260 rules.
	for ri := cand.next(0); ri >= 0; ri = cand.next(ri + 1) {
		r := rs.rules[ri]
		r.ready()
		var matches [][]int
		if r.atStart {
			matches = rs.anchored(s, ri, r, hits)
		} else if r.hasNeeds(s) {
			matches = rs.near(r.re.FindAllStringSubmatchIndex(s, -1), ri, hits)
		}
		if len(matches) == 0 {
			continue
		}
		if ns, ok := r.apply(s, matches); ok {
			s, changed = ns, true
			hits = rs.dfa.hits(bytesOf(s), hits[:0])
			*hp = hits
			cand = ruleMask{}
			rs.mark(&cand, hits)
		}
	}
	return s, changed
}

// nearWindow is how far before a match a keyword of its rule may be. A
// rule run unanchored matches anywhere in a string that holds one of its
// keywords (gitleaks judges whole files that way); a few rules match bare
// hex or base64 (sourcegraph's bare 40 hex digits, once "sourcegraph" is
// in the file), which would take every git hash of a long tool result
// that mentions the service once. A match counts only with a keyword
// inside it or at most this many bytes before it.
const nearWindow = 256

// near keeps the matches with a keyword of rule ri inside them or at most
// nearWindow bytes before them.
func (rs *ruleSet) near(matches [][]int, ri int, hits []hit) [][]int {
	out := matches[:0]
	for _, l := range matches {
		for _, h := range hits {
			p := int(h.start)
			if p >= l[1] {
				break
			}
			if p >= l[0]-nearWindow && containsInt(rs.kwRules[h.kw], ri) {
				out = append(out, l)
				break
			}
		}
	}
	return out
}

// ruleMask is a set of rules by index.
type ruleMask [maxRules / 64]uint64

// maxRules bounds how many rules a set can hold; compileRules checks it.
const maxRules = 512

func (m *ruleMask) has(i int) bool { return m[i/64]&(1<<(i%64)) != 0 }

// next returns the smallest rule in m at or after i, or -1.
func (m *ruleMask) next(i int) int {
	for w := i / 64; w < len(m); w++ {
		word := m[w]
		if w == i/64 {
			word &^= 1<<(i%64) - 1
		}
		if word != 0 {
			return w*64 + bits.TrailingZeros64(word)
		}
	}
	return -1
}

// mark adds the rules of every keyword in hits.
func (rs *ruleSet) mark(m *ruleMask, hits []hit) {
	last := int32(-1)
	for _, h := range hits {
		if h.kw == last {
			continue
		}
		last = h.kw
		for _, ri := range rs.kwRules[h.kw] {
			m[ri/64] |= 1 << (ri % 64)
		}
	}
}

// anchored finds the matches of an atStart rule: the expression anchored
// at each occurrence of one of its keywords, in order, skipping those
// inside an earlier match. That is what FindAll of the unanchored
// expression finds, since every match starts at such an occurrence.
func (rs *ruleSet) anchored(s string, ri int, r *rule, hits []hit) [][]int {
	var matches [][]int
	end := 0
	// occ holds, for each member of each required set in turn, where it
	// next starts at or after the hits tried so far (-2: not looked for
	// yet, -1: nowhere further), so that each member is searched for over
	// the text once in all, however many hits there are.
	var occ [maxNeedMembers]int
	for i := range occ {
		occ[i] = -2
	}
hits:
	for _, h := range hits {
		p := int(h.start)
		if p < end || !containsInt(rs.kwRules[h.kw], ri) {
			continue
		}
		if r.wordStart && p > 0 && isWord(s[p-1]) || !r.hasExactPrefix(s, p) {
			continue
		}
		m := 0
		for _, set := range r.needs {
			found := false
			for _, w := range set {
				if o := occ[m]; o == -2 || (o >= 0 && o < p) {
					if i := indexFold(s[p:], w); i >= 0 {
						occ[m] = p + i
					} else {
						occ[m] = -1
					}
				}
				found = found || occ[m] >= 0
				m++
			}
			if !found {
				break hits // hits are in order: none later can start a match
			}
		}
		var l []int
		if p == 0 {
			l = r.at.FindStringSubmatchIndex(s)
		} else {
			_, size := utf8.DecodeLastRuneInString(s[:p])
			q := p - size
			if l = r.ctx.FindStringSubmatchIndex(s[q:]); l != nil {
				for k := range l {
					if l[k] >= 0 {
						l[k] += q
					}
				}
				l[0] = p
			}
		}
		if l == nil {
			continue
		}
		matches = append(matches, l)
		end = max(l[1], p+1)
	}
	return matches
}

func containsInt(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// apply replaces the secret of each match that passes the rule's filters.
func (r *rule) apply(s string, matches [][]int) (string, bool) {
	var sb strings.Builder
	last := 0
	for _, l := range matches {
		a, z := r.secret(l)
		if a < last || a >= z {
			continue
		}
		secret := s[a:z]
		if secret == Placeholder || !r.keep(s, l, secret) {
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

// secret returns where a match's secret is: the rule's group, else, as in
// gitleaks, the first non-empty group, else the whole match.
func (r *rule) secret(l []int) (int, int) {
	if r.group > 0 {
		return l[2*r.group], l[2*r.group+1]
	}
	for g := 1; 2*g+1 < len(l); g++ {
		if l[2*g] >= 0 && l[2*g+1] > l[2*g] {
			return l[2*g], l[2*g+1]
		}
	}
	return l[0], l[1]
}

// keep reports whether a match is a secret by the rule's entropy, checks
// and allowlists, as gitleaks judges it.
func (r *rule) keep(s string, l []int, secret string) bool {
	if r.entropy != 0 && shannonEntropy(secret) <= r.entropy {
		return false
	}
	if r.check != nil && !r.check(secret) {
		return false
	}
	for _, a := range r.allow {
		target := secret
		switch a.target {
		case "match":
			target = s[l[0]:l[1]]
		case "line":
			target = lineOf(s, l[0], l[1])
		}
		for _, re := range a.regexes {
			if re.MatchString(target) {
				return false
			}
		}
		if len(a.stopwords) > 0 {
			low := strings.ToLower(secret)
			for _, w := range a.stopwords {
				if strings.Contains(low, w) {
					return false
				}
			}
		}
	}
	return true
}

// lineOf returns the line of s holding s[a:z].
func lineOf(s string, a, z int) string {
	start := strings.LastIndexByte(s[:a], '\n') + 1
	end := strings.IndexByte(s[z:], '\n')
	if end < 0 {
		return s[start:]
	}
	return s[start : z+end]
}

// shannonEntropy is gitleaks': over the string's runes, per byte of length.
func shannonEntropy(s string) float64 {
	if s == "" {
		return 0
	}
	counts := map[rune]int{}
	for _, c := range s {
		counts[c]++
	}
	inv := 1 / float64(len(s))
	e := 0.0
	for _, n := range counts {
		f := float64(n) * inv
		e -= f * math.Log2(f)
	}
	return e
}

// hasDigitAndLetter reports whether v has both, as a generated token does
// and a word or an identifier mostly does not.
func hasDigitAndLetter(v string) bool {
	digit, letter := false, false
	for i := range len(v) {
		c := v[i]
		digit = digit || '0' <= c && c <= '9'
		letter = letter || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
	}
	return digit && letter
}

// isBasicCredential reports whether a Basic credential decodes to
// user:password, printable, so that "Basic reasoning" is prose.
func isBasicCredential(v string) bool {
	b, err := base64.StdEncoding.DecodeString(v)
	if err != nil {
		b, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(v, "="))
		if err != nil {
			return false
		}
	}
	colon := false
	for _, c := range b {
		if c < 0x20 || c > 0x7e {
			return false
		}
		colon = colon || c == ':'
	}
	return colon && len(b) >= 3
}
