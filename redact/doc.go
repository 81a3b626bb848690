// Package redact removes secrets and named values from spans before
// agenttrace writes them. An artifact is meant to be shared (attached to a
// bug, checked into a test suite, uploaded to a viewer), and GenAI spans
// carry whatever the model and the tools saw: prompts with pasted
// credentials, tool arguments with passwords, error messages quoting API
// keys. Redaction therefore happens before anything is written, in the SDK
// span processor (package bridge) and the collector exporter; and the CLI
// applies it to what it converts, renders or sends from any other source
// (imported logs, OTLP files), unless the artifact's header says its writer
// scanned it already.
//
// A [Redactor] is built once with [New] from the keys to redact and whether
// to scan for secrets, and is then read-only and safe for concurrent use.
// [Redactor.Span] and [Redactor.Map] change pdata in place and say whether
// they changed anything, so a writer can mark the artifact as redacted.
//
// # Rules
//
//   - A named key (matched whole, ignoring case) has its value replaced by
//     the string [Placeholder], whatever the value's type. Keys are looked
//     for in attribute maps, in map values inside them, and as field names
//     inside JSON.
//   - A string that is a JSON object or array (tool arguments and results,
//     input and output messages, system instructions, in every dialect;
//     leading white space allowed, and a JSON string literal is read the
//     same way) is walked: named fields get Placeholder, strings are
//     scanned for secrets, and strings that are themselves JSON (a tool
//     call's arguments inside a message) are walked in turn and written
//     back as strings. Changed JSON
//     is written compactly with every member in its place; JSON that did not
//     change is left byte for byte as it was.
//   - With the secret scan on, every string (attribute values, strings in
//     JSON, event attributes, the span's name and status message) is
//     scanned for API keys (OpenAI, Anthropic, AWS, GitHub, Slack, Google),
//     bearer tokens, PEM private keys and name=value credentials (password,
//     token, api_key, AWS_SECRET_ACCESS_KEY, Azure's AccountKey, ...), and
//     by the rules of gitleaks' default configuration (about 220: Stripe,
//     Hugging Face, GitLab, npm, JWTs, Slack, Twilio, ...), vendored in
//     gitleaks/rules.json with gitleaks' MIT licence, plus this project's
//     own for what gitleaks has no rule for: credentials in URLs
//     (postgres://user:[REDACTED]@host), Authorization: Basic (in a
//     header, or any "Basic" of a user:password), private keys cut short
//     before their END line, and tokens gitleaks takes only part of
//     (GitLab's longer tokens, Hugging Face's with digits).
//     Two of gitleaks' habits are widened so that a rule misses nothing it
//     claims: a token's upper length bound right before the rule's
//     terminator is dropped (a Stripe key longer than 99 characters
//     matched nothing at all), and text holding a literal escape (the two
//     characters \n, \r or \t, as text that quotes JSON without being
//     JSON does) right before a token is scanned as if the escape's letter
//     were no word byte, since \b saw none there.
//     Only the secret is replaced, so "Authorization: Bearer [REDACTED]"
//     still says what it was. A credential-like value (eight or more
//     characters, no spaces) under a credential-like name (password,
//     client_secret, x-api-key, access_token, SecretAccessKey, ...) in a
//     map or a JSON object is replaced too: it is the name=value rule
//     applied to a pair.
//
// Redaction never fails and never panics: input that is not valid JSON is
// scanned as text. Redacting twice gives what redacting once gave.
//
// The cost is paid on every span, so the common case is cheap: a string with
// no candidate for any secret pattern (nor any named key) is rejected by
// one pass of an automaton over the keywords of the rules, the patterns
// and the named keys, before any JSON is walked or any regular expression
// runs; a long string that came out unchanged twice is remembered (as a
// copy it is compared with whole, or by a keyed 128-bit fingerprint, in a
// fixed table of bounded size), and so is a short attribute value that
// came out unchanged twice in a row under its key (a model, a tool's
// name), so the instructions, messages and names agents repeat on span
// after span are scanned twice, not on every span; a span with nothing to
// redact costs no allocation. A rule runs only where its keyword is
// (anchored there when its matches start with it), and is compiled the
// first time one of its keywords is seen. See docs/benchmarks.md for what
// the scan costs.
package redact
