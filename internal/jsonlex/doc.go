// Package jsonlex is the repository's one JSON lexer. Everything that reads
// JSON by hand goes through it:
//
//   - Scanner reads one line token by token, with sticky errors that say at
//     which byte what went wrong: the artifact decoders, input detection and
//     the OTLP/JSON guard decode with it, straight into pdata.
//   - Skip, SkipValue, Valid and ValidEmbed check a whole value without
//     building anything. ValidEmbed is the encoder's check before it embeds
//     a JSON-valued attribute raw, the check most bytes of an artifact pass
//     through, so it is its own loop; FuzzValidEmbed holds it to Scanner.
//   - StringEnd, StringEndLoose and NumberEnd end one token; Unescape
//     decodes a checked string. redact's rewriter and viewer's field filter
//     walk documents with them.
//   - AppendString writes a string as every artifact writes strings.
//
// The hot loops look at eight or sixteen bytes at a time in a uint64
// ("SIMD within a register", swar.go): most bytes of GenAI telemetry are
// long model text inside JSON strings. FuzzJSONSkip holds Scanner to
// encoding/json, and FuzzPlainRun, FuzzValidEmbed and FuzzStringEndLoose
// hold the fast paths to plain references.
package jsonlex
