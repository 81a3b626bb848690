package agenttraceexporter

import (
	"context"
	"errors"
	"sync"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/consumer/consumererror"
	"go.opentelemetry.io/collector/exporter"
	"go.opentelemetry.io/collector/pdata/plog"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/store"
)

// pushLogs writes a batch of log records, each into its trace's artifact
// (store.Store.WriteLogs: after its spans, held until the trace's
// artifact exists, a redelivered record skipped, records without a trace
// id in store.UntracedFileName). As for spans, when some artifacts cannot
// be written the others are, and only the failed records are returned to
// exporterhelper for retrying.
func (e *agenttraceExporter) pushLogs(_ context.Context, ld plog.Logs) error {
	if e.st == nil {
		return consumererror.NewPermanent(errShutdown)
	}
	err := e.st.WriteLogs(artifact.LogRecords(ld))
	var we *store.LogWriteError
	switch {
	case err == nil:
		return nil
	case errors.Is(err, store.ErrClosed):
		return consumererror.NewPermanent(errShutdown)
	case errors.As(err, &we):
		if errors.Is(err, store.ErrNotAppendable) {
			// Retrying will not change the file.
			return consumererror.NewPermanent(err)
		}
		// ToLogs copies: the batch the exporter was given is not its own.
		return consumererror.NewLogs(err, artifact.ToLogs(we.Failed))
	}
	return err
}

// shared is the one exporter of a component configuration: the same
// agenttrace component in a traces and a logs pipeline writes through one
// store, so that a trace's spans and log records share its artifact (and
// the directory has one owner). The collector creates the component once
// per pipeline signal; all get the same exporter, which starts with the
// first Start and shuts down with the last Shutdown.
type shared struct {
	*agenttraceExporter
	mu     sync.Mutex
	starts int
}

var (
	sharedMu  sync.Mutex
	exporters = map[*Config]*shared{}
)

// sharedExporter returns the exporter of c, making it when needed.
func sharedExporter(c *Config, set exporter.Settings) (*shared, error) {
	sharedMu.Lock()
	defer sharedMu.Unlock()
	if s, ok := exporters[c]; ok {
		return s, nil
	}
	tel, err := newTelemetry(set.MeterProvider)
	if err != nil {
		return nil, err
	}
	s := &shared{agenttraceExporter: newExporter(c, set.Logger, tel)}
	exporters[c] = s
	return s, nil
}

func (s *shared) start(ctx context.Context, host component.Host) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.starts == 0 {
		if err := s.agenttraceExporter.start(ctx, host); err != nil {
			return err
		}
	}
	s.starts++
	return nil
}

func (s *shared) shutdown(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.starts > 0 {
		s.starts--
	}
	if s.starts > 0 {
		return nil
	}
	sharedMu.Lock()
	if exporters[s.cfg] == s {
		delete(exporters, s.cfg)
	}
	sharedMu.Unlock()
	return s.agenttraceExporter.shutdown(ctx)
}
