package redact

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"sync"
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
