package otlpsend

// The OTLP protocols, named as OTEL_EXPORTER_OTLP_PROTOCOL names them.
const (
	ProtoGRPC = "grpc"
	ProtoHTTP = "http/protobuf"
	ProtoJSON = "http/json"
)

// Protocols maps what a command line and OTEL_EXPORTER_OTLP_PROTOCOL
// accept to a protocol; "http", short for http/protobuf, is the command
// line's alone.
var Protocols = map[string]string{
	"grpc":          ProtoGRPC,
	"http":          ProtoHTTP,
	"http/protobuf": ProtoHTTP,
	"http/json":     ProtoJSON,
}

// Target is where spans go, as the OTLP clients want it.
type Target struct {
	protocol string // ProtoGRPC, ProtoHTTP or ProtoJSON
	hostPort string // host:port, always with a port
	urlPath  string // http only: the request path, escaped
	insecure bool   // plaintext instead of TLS
	scheme   string // the endpoint URL's scheme; "" for HOST:PORT
}

// Protocol is one of ProtoGRPC, ProtoHTTP and ProtoJSON.
func (t Target) Protocol() string { return t.protocol }

// HostPort is the endpoint's host:port, always with a port.
func (t Target) HostPort() string { return t.hostPort }

// Insecure reports whether spans go in plaintext rather than over TLS.
func (t Target) Insecure() bool { return t.insecure }

// IsHTTP reports whether t is OTLP/HTTP, protobuf or JSON.
func (t Target) IsHTTP() bool { return t.protocol != ProtoGRPC }

// URL is the URL an OTLP/HTTP request is posted to.
func (t Target) URL() string {
	scheme := "https"
	if t.insecure {
		scheme = "http"
	}
	return scheme + "://" + t.hostPort + t.urlPath
}

// String names the endpoint in messages: host:port for gRPC, the URL
// posted to for HTTP (so a wrong path shows), with the protocol.
func (t Target) String() string {
	switch t.protocol {
	case ProtoHTTP:
		return t.URL() + " (http)"
	case ProtoJSON:
		return t.URL() + " (http/json)"
	}
	return t.hostPort + " (grpc)"
}
