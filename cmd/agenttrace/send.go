package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/internal/otlpsend"
)

// sendOpts is the send command line: internal/otlpsend's settings, and
// what the command does with its inputs.
type sendOpts struct {
	otlpsend.Settings
	inputs     []string
	shiftToNow bool
}

func newSendCmd(e *env) *cobra.Command {
	var o sendOpts
	cmd := &cobra.Command{
		Use:   "send FILE... --endpoint HOST:PORT",
		Short: "Send traces to an OTLP endpoint (a collector, Jaeger, ...)",
		Long: `Send reads artifacts or OTLP files (anything convert reads, told apart by
their content) and sends their spans to an OTLP endpoint: an OpenTelemetry
Collector, Jaeger, or any other OTLP receiver. Use it to look at a recorded
run in a trace viewer, or to replay a run into a pipeline.

--endpoint is HOST:PORT (4317 is the usual OTLP/gRPC port, 4318 OTLP/HTTP)
or a URL. With --protocol http (protobuf) or http/json, HOST:PORT posts to
/v1/traces; a URL names the path itself (http://host:4318/v1/traces), and
its scheme says whether to use TLS. Connections use TLS, checked against
the system's roots (SSL_CERT_FILE or SSL_CERT_DIR name others), unless
--insecure or an http:// URL asks for plaintext.

The OpenTelemetry exporter variables are read as the SDK's exporters read
them, and a flag given wins over its variable:
  OTEL_EXPORTER_OTLP_ENDPOINT         a base URL; OTLP/HTTP appends /v1/traces
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT  the URL, used as it is
  OTEL_EXPORTER_OTLP_PROTOCOL         grpc, http/protobuf or http/json
  OTEL_EXPORTER_OTLP_HEADERS          key=value,key2=value2 (values %-encoded);
                                      --header adds to them, and wins per key
  OTEL_EXPORTER_OTLP_INSECURE         true: plaintext
  OTEL_EXPORTER_OTLP_TIMEOUT          milliseconds (--timeout)
  OTEL_EXPORTER_OTLP_COMPRESSION      gzip or none
  OTEL_EXPORTER_OTLP_CERTIFICATE      a PEM file of trusted roots
  OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE, _CLIENT_KEY   a client certificate
Each OTEL_EXPORTER_OTLP_TRACES_* form wins over the generic one. Without
--protocol or a variable, the protocol is grpc.

A server that answers in plaintext where TLS was asked (or the other way
round), an untrusted certificate, or a refused connection fails at once
with a hint, rather than after the retries.

--shift-to-now moves every timestamp of each input by the same amount, so
that its run ends now, keeping the times within it: Jaeger's trace search
looks back an hour by default and never finds a run recorded last month.

Each file's spans go in requests of at most --batch-spans spans and about
3 MiB. Each attempt of a request may take --timeout; failures the OTLP
specification calls retryable (gRPC UNAVAILABLE, HTTP 429, 502, 503, 504,
timeouts) are retried with exponential backoff for up to
--retry-max-elapsed (0: no retries). Other refusals (gRPC INVALID_ARGUMENT,
HTTP 400, ...) fail at once.

For each file, send prints how many spans it sent in how many requests,
then the total and the endpoint.

Exit status: 0 when the endpoint accepted every span; 1 when an input has
problems (bad lines are reported as file:line and skipped, and the other
spans are still sent); 2 on a usage error, an unreadable file (nothing is
sent), or a TLS setting the server contradicts (plaintext against TLS, or
an untrusted certificate); 3 when the endpoint refused spans or could not
be reached. Sending stops at the first request that fails; the spans of
earlier requests have been delivered.`,
		Example: `  agenttrace send run.jsonl --endpoint 127.0.0.1:4317 --insecure
  agenttrace send run.jsonl --endpoint 127.0.0.1:4317 --insecure --shift-to-now
  agenttrace send traces.json --endpoint otlp.example.com:443 --header authorization="Bearer $TOKEN"
  agenttrace send runs/*.jsonl --protocol http --endpoint http://127.0.0.1:4318/v1/traces
  OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318 OTEL_EXPORTER_OTLP_PROTOCOL=http/json agenttrace send run.jsonl`,
		Args: argsAtLeast(1, "input (a file, or - for standard input)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.inputs = args
			o.Given = func(flag string) bool { return cmd.Flags().Changed(flag) }
			p, err := o.plan(otlpsend.OSEnv)
			if err != nil {
				return err
			}
			return e.send(cmd.Context(), o, p)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Endpoint, "endpoint", "", "where to send: HOST:PORT, or a URL (required, unless OTEL_EXPORTER_OTLP_[TRACES_]ENDPOINT is set)")
	f.StringVar(&o.Protocol, "protocol", otlpsend.ProtoGRPC, "OTLP transport: grpc, http (protobuf over HTTP, also http/protobuf) or http/json")
	f.BoolVar(&o.Insecure, "insecure", false, "plaintext instead of TLS")
	f.StringArrayVar(&o.Headers, "header", nil, "a request header (gRPC metadata) as key=value; repeatable")
	f.DurationVar(&o.Timeout, "timeout", otlpsend.DefaultTimeout, "how long one attempt of a request may take")
	f.DurationVar(&o.RetryMax, "retry-max-elapsed", otlpsend.DefaultRetryMaxElapsed, "how long to keep retrying a request; 0 disables retries")
	f.StringVar(&o.Compression, "compression", "gzip", "request compression: gzip or none")
	f.IntVar(&o.BatchSpans, "batch-spans", otlpsend.DefaultBatchSpans, "at most this many spans per request")
	f.BoolVar(&o.shiftToNow, "shift-to-now", false, "move each input's timestamps so that its run ends now (relative times kept)")
	e.redactFlags(cmd)
	return cmd
}

// plan checks the command line and resolves it against the OTLP exporter
// variables of env, so a usage error is reported before any input is
// read or anything sent.
func (o sendOpts) plan(env otlpsend.Env) (*otlpsend.Plan, error) {
	if err := checkStdin(o.inputs); err != nil {
		return nil, err
	}
	p, err := otlpsend.Resolve(o.Settings, env)
	switch {
	case errors.Is(err, otlpsend.ErrUsage):
		return nil, &exitError{code: exitUsage, usage: true, err: err}
	case err != nil:
		return nil, ioError(err)
	}
	return p, nil
}

func (e *env) send(ctx context.Context, o sendOpts, p *otlpsend.Plan) error {
	// Every input is read before anything is sent, so that a missing file
	// does not leave the endpoint with half of a command line's traces.
	all, err := e.loadInputs(o.inputs)
	if err != nil {
		return err
	}
	s, err := otlpsend.Start(ctx, p)
	if err != nil {
		return &exitError{code: exitUnsent, err: err}
	}
	defer s.Stop()

	now := time.Now() // what --shift-to-now moves each run's end to
	var total otlpsend.Count
	for _, src := range all.sources {
		td := artifact.ToTraces(src.records)
		var shift time.Duration
		if o.shiftToNow {
			shift = shiftToNow(td, now)
		}
		n, err := s.Send(ctx, src.name, td)
		total.Spans += n.Spans
		total.Requests += n.Requests
		if err != nil {
			return sendFailed(s, p, total, err)
		}
		line := fmt.Sprintf("%s: %s in %s", src.name, plural(n.Spans, "span"), plural(n.Requests, "request"))
		if o.shiftToNow {
			line += fmt.Sprintf(", shifted %s later", shift.Round(time.Second))
		}
		fmt.Fprintln(e.stdout, line)
	}
	if _, err := fmt.Fprintf(e.stdout, "sent %s in %s to %s\n", plural(total.Spans, "span"), plural(total.Requests, "request"), p.Target); err != nil {
		return ioError(fmt.Errorf("write standard output: %w", err))
	}
	return e.noteSkipped(all)
}

// sendFailed is the error a send that stopped at err exits with. A
// connection problem is one line that says what to change (it names the
// endpoint), with what was sent before only when something was: a TLS
// setting or protocol the server contradicts is the command line's to fix
// (exit 2); a refused connection is an endpoint that cannot be reached
// (3), as is any other failure.
func sendFailed(s *otlpsend.Sender, p *otlpsend.Plan, total otlpsend.Count, err error) error {
	if cp := s.Problem(); cp != nil {
		msg := fmt.Errorf("send: %w", cp)
		if total.Spans > 0 {
			msg = fmt.Errorf("%w (%s in %s sent before)", msg, plural(total.Spans, "span"), plural(total.Requests, "request"))
		}
		code := exitUsage
		if errors.Is(cp, otlpsend.ErrRefused) {
			code = exitUnsent
		}
		return &exitError{code: code, err: msg}
	}
	return &exitError{code: exitUnsent, err: fmt.Errorf("send to %s: %w (%s in %s sent before)",
		p.Target, err, plural(total.Spans, "span"), plural(total.Requests, "request"))}
}

// plural writes n and a noun, "1 span" or "2 spans".
var plural = otlpsend.Plural
