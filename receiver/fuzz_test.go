package receiver_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agenttrace/agenttrace/receiver"
	"github.com/agenttrace/agenttrace/store"
)

// FuzzHTTPTraces: any body, in either encoding, gets one of OTLP's
// answers and never a panic; what is accepted is written.
func FuzzHTTPTraces(f *testing.F) {
	_, pb, js := goodRequest(&testing.T{}, "seed")
	f.Add(pb, false)
	f.Add(js, true)
	f.Add(pb[:len(pb)/2], false)
	f.Add([]byte(`{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"zz"}]}]}]}`), true)
	st, err := store.New(store.Options{Dir: f.TempDir()})
	require.NoError(f, err)
	f.Cleanup(func() { require.NoError(f, st.Close()) })
	h := receiver.New(st, receiver.WithMaxRequest(1<<16)).HTTPHandler()
	f.Fuzz(func(t *testing.T, body []byte, asJSON bool) {
		ct := "application/x-protobuf"
		if asJSON {
			ct = "application/json"
		}
		req := httptest.NewRequest(http.MethodPost, receiver.PathTraces, bytes.NewReader(body))
		req.Header.Set("Content-Type", ct)
		req.Host = "127.0.0.1:4318" // httptest's example.com is refused (DNS rebinding)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		switch rec.Code {
		case http.StatusOK, http.StatusBadRequest, http.StatusRequestEntityTooLarge:
		default:
			t.Fatalf("status %d for %d bytes of %s: %s", rec.Code, len(body), ct, rec.Body)
		}
		require.Equal(t, ct, rec.Header().Get("Content-Type"))
	})
}
