package otlpguard

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"

	spb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/agenttrace/agenttrace/converter"
)

// Middleware wraps an OTLP/HTTP handler: a POST body in protobuf or JSON
// is read (it must come decompressed and size-limited, as the collector's
// confighttp hands it to middlewares), checked with converter.GuardOTLP,
// and given to next again; a body the guard refuses is answered 400 with a
// google.rpc.Status, as OTLP/HTTP says. The signal comes from the path
// (/v1/traces, /v1/logs, /v1/metrics); on another path the body is
// checked as each.
func Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
		json := ct == "application/json"
		if r.Method != http.MethodPost || (!json && ct != "application/x-protobuf") {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(r.Body)
		_ = r.Body.Close()
		if err != nil {
			code := http.StatusBadRequest
			var mbe *http.MaxBytesError
			if errors.As(err, &mbe) {
				code = http.StatusRequestEntityTooLarge
			}
			writeStatus(w, json, code, fmt.Sprintf("reading request: %v", err))
			return
		}
		if err := check(r.URL.Path, body, json); err != nil {
			writeStatus(w, json, http.StatusBadRequest, fmt.Sprintf("refused OTLP request: %v", err))
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		next.ServeHTTP(w, r)
	})
}

// check guards body by the signal its path names.
func check(path string, body []byte, json bool) error {
	var f converter.Format
	switch {
	case strings.HasSuffix(path, "/v1/traces") && json:
		f = converter.FormatOTLPJSON
	case strings.HasSuffix(path, "/v1/traces"):
		f = converter.FormatOTLPProto
	case strings.HasSuffix(path, "/v1/logs") && json:
		f = converter.FormatOTLPLogsJSON
	case strings.HasSuffix(path, "/v1/logs"):
		f = converter.FormatOTLPLogsProto
	case strings.HasSuffix(path, "/v1/metrics") && !json:
		return converter.GuardOTLPMetricsProto(body)
	default:
		return converter.GuardOTLPAny(body, json)
	}
	return converter.GuardOTLP(body, f, converter.GuardOptions{})
}

// writeStatus answers code with a google.rpc.Status of InvalidArgument in
// the request's encoding.
func writeStatus(w http.ResponseWriter, json bool, code int, msg string) {
	st := &spb.Status{Code: int32(codes.InvalidArgument), Message: strings.ToValidUTF8(msg, "\uFFFD")}
	ct := "application/x-protobuf"
	var b []byte
	var err error
	if json {
		ct = "application/json"
		b, err = protojson.Marshal(st)
	} else {
		b, err = proto.Marshal(st)
	}
	if err != nil {
		http.Error(w, msg, code)
		return
	}
	w.Header().Set("Content-Type", ct)
	w.WriteHeader(code)
	_, _ = w.Write(b)
}
