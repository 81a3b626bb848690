package otlpsend

import (
	"crypto/tls"
	"errors"
	"fmt"
	"time"
)

// Defaults a command line starts from.
const (
	// DefaultBatchSpans is the most spans one request holds.
	DefaultBatchSpans = 1000
	// DefaultTimeout bounds one attempt of a request.
	DefaultTimeout = 10 * time.Second
	// DefaultRetryMaxElapsed bounds the retries of one request.
	DefaultRetryMaxElapsed = 30 * time.Second
)

// ErrUsage marks a setting that cannot be used as given, a command line's
// or an OTEL_EXPORTER_OTLP_* variable's: errors.Is(err, ErrUsage). Its
// message names the flag or the variable and says what is wanted.
var ErrUsage = errors.New("unusable setting")

// usageError is an ErrUsage with its own message.
type usageError struct{ msg string }

func (e *usageError) Error() string        { return e.msg }
func (e *usageError) Is(target error) bool { return target == ErrUsage }

func usageErrorf(format string, a ...any) error {
	return &usageError{msg: fmt.Sprintf(format, a...)}
}

// envUsagef is a usage error about a variable's value.
func envUsagef(name, value, format string, a ...any) error {
	return usageErrorf("%s=%q: %s", name, value, fmt.Sprintf(format, a...))
}

// Settings are what a command line says; the messages name them by their
// flags (--endpoint, --protocol, ...).
type Settings struct {
	Endpoint    string        // --endpoint: HOST:PORT or an http(s) URL
	Protocol    string        // --protocol: a key of Protocols
	Insecure    bool          // --insecure: plaintext
	Headers     []string      // --header: key=value, each once
	Timeout     time.Duration // --timeout: one attempt of a request
	RetryMax    time.Duration // --retry-max-elapsed: 0, no retries
	Compression string        // --compression: gzip or none
	BatchSpans  int           // --batch-spans: at most this many a request
	// Given reports whether the command line gave a setting, by its flag's
	// name ("endpoint", "protocol", "insecure", "timeout", "compression"):
	// a setting given wins over its OTEL_EXPORTER_OTLP_* variable, a
	// default does not. Nil: none was given.
	Given func(flag string) bool
}

// Plan is Settings checked and resolved against the environment.
type Plan struct {
	Settings
	Target  Target
	Headers map[string]string // the variables' headers with the flags' added
	TLS     *tls.Config       // nil for plaintext
}

// Resolve checks s and resolves it against the OTLP exporter variables of
// env, so a usage error is reported before any input is read or anything
// sent. Its errors are ErrUsage, or a file a variable names that cannot
// be read.
func Resolve(s Settings, env Env) (*Plan, error) {
	given := s.Given
	if given == nil {
		given = func(string) bool { return false }
	}
	s.Given = given

	protocol := ProtoGRPC
	if given("protocol") {
		p, ok := Protocols[s.Protocol]
		if !ok {
			return nil, usageErrorf("--protocol %q: want grpc, http (or http/protobuf) or http/json", s.Protocol)
		}
		protocol = p
	} else if p, err := env.protocol(); err != nil {
		return nil, err
	} else if p != "" {
		protocol = p
	}
	if err := s.resolveLimits(env); err != nil {
		return nil, err
	}
	t, err := s.resolveTarget(protocol, env)
	if err != nil {
		return nil, err
	}
	headers, err := env.headers()
	if err != nil {
		return nil, err
	}
	flagHeaders, err := parseHeaders(s.Headers)
	if err != nil {
		return nil, err
	}
	p := &Plan{Settings: s, Target: t, Headers: mergeHeaders(headers, flagHeaders)}
	if !t.insecure {
		if p.TLS, err = env.tlsConfig(); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// resolveLimits settles the timeout, retries, compression and batch size.
func (s *Settings) resolveLimits(env Env) error {
	if !s.Given("timeout") {
		d, err := env.timeout()
		if err != nil {
			return err
		}
		if d > 0 {
			s.Timeout = d
		}
	}
	if s.Timeout <= 0 {
		return usageErrorf("--timeout %s: want more than 0", s.Timeout)
	}
	if s.RetryMax < 0 {
		return usageErrorf("--retry-max-elapsed %s: want 0 or more", s.RetryMax)
	}
	if !s.Given("compression") {
		c, err := env.compression()
		if err != nil {
			return err
		}
		if c != "" {
			s.Compression = c
		}
	}
	if s.Compression != "gzip" && s.Compression != "none" {
		return usageErrorf("--compression %q: want gzip or none", s.Compression)
	}
	if s.BatchSpans < 1 {
		return usageErrorf("--batch-spans %d: want 1 or more", s.BatchSpans)
	}
	return nil
}
