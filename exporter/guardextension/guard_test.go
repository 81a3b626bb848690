package guardextension_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/extension/extensionmiddleware"
	"go.opentelemetry.io/collector/extension/extensiontest"
	"go.uber.org/goleak"

	"github.com/agenttrace/agenttrace/exporter/guardextension"
	"github.com/agenttrace/agenttrace/internal/otlpdeep"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestLifecycle: the factory makes an extension that starts, stops and
// offers both server middlewares; the HTTP one refuses the deep request
// of issue 22 and passes a good one to the receiver's handler. The gRPC
// side runs against the real collector in cmd/otelcol-agenttrace's e2e
// test.
func TestLifecycle(t *testing.T) {
	f := guardextension.NewFactory()
	assert.Equal(t, "agenttrace_guard", f.Type().String())
	require.NoError(t, componenttest.CheckConfigStruct(f.CreateDefaultConfig()))
	ext, err := f.Create(context.Background(), extensiontest.NewNopSettings(f.Type()), f.CreateDefaultConfig())
	require.NoError(t, err)
	require.NoError(t, ext.Start(context.Background(), componenttest.NewNopHost()))
	t.Cleanup(func() { require.NoError(t, ext.Shutdown(context.Background())) })

	opts, err := ext.(extensionmiddleware.GRPCServer).GetGRPCServerOptions(context.Background())
	require.NoError(t, err)
	assert.Len(t, opts, 2, "a codec and its interceptor")

	wrap, err := ext.(extensionmiddleware.HTTPServer).GetHTTPHandler(context.Background())
	require.NoError(t, err)
	served := 0
	h, err := wrap(context.Background(), http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		served++
		w.WriteHeader(http.StatusOK)
	}))
	require.NoError(t, err)
	cases := []struct {
		name string
		body []byte
		code int
	}{
		{"deep", otlpdeep.TracesProto(otlpdeep.AnyValueProto(1_300_000, false)), http.StatusBadRequest},
		{"good", otlpdeep.TracesProto(otlpdeep.AnyValueProto(2, false)), http.StatusOK},
	}
	for _, c := range cases {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodPost, "/v1/traces", bytes.NewReader(c.body))
		req.Header.Set("Content-Type", "application/x-protobuf")
		h.ServeHTTP(rec, req)
		assert.Equal(t, c.code, rec.Code, c.name)
	}
	assert.Equal(t, 1, served)
}
