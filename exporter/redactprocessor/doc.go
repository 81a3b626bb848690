// Package redactprocessor is the agenttrace_redact collector processor: it
// applies the redaction of the agenttrace exporter (package redact: named
// keys, and the secret scan for API keys, tokens, private keys and
// credentials) to every span and log record of a pipeline, in place.
//
// The exporter redacts too, but only when it writes: its sending queue,
// which the shipped configurations keep on file_storage so that a restart
// loses nothing, sits in front of it and would hold every prompt, tool
// result and log body unredacted on disk (issue 22, item 4). Placed first
// in a pipeline's processors, this processor redacts before the batch
// processor, the queue or any other exporter sees the data, so no
// component after it holds a secret, in memory or at rest.
package redactprocessor
