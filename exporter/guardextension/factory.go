package guardextension

import (
	"context"
	"net/http"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/extension"
	"go.opentelemetry.io/collector/extension/extensionmiddleware"
	"google.golang.org/grpc"

	"github.com/agenttrace/agenttrace/internal/otlpguard"
)

// Type is the extension's type in a configuration: agenttrace_guard.
var Type = component.MustNewType("agenttrace_guard")

// Config has no settings: the limit is the artifact reader's, fixed so
// that nothing the collector accepts is unreadable later.
type Config struct{}

// NewFactory returns the factory of agenttrace_guard.
func NewFactory() extension.Factory {
	return extension.NewFactory(Type, func() component.Config { return &Config{} }, create, component.StabilityLevelAlpha)
}

func create(context.Context, extension.Settings, component.Config) (extension.Extension, error) {
	return guard{}, nil
}

// guard is the extension: stateless, so Start and Shutdown do nothing.
type guard struct {
	component.StartFunc
	component.ShutdownFunc
}

var (
	_ extensionmiddleware.HTTPServer = guard{}
	_ extensionmiddleware.GRPCServer = guard{}
)

// GetHTTPHandler wraps the receiver's OTLP/HTTP handler in the guard.
func (guard) GetHTTPHandler(context.Context) (extensionmiddleware.WrapHTTPHandlerFunc, error) {
	return func(_ context.Context, h http.Handler) (http.Handler, error) {
		return otlpguard.Middleware(h), nil
	}, nil
}

// GetGRPCServerOptions installs the guarding codec and its interceptor.
func (guard) GetGRPCServerOptions(context.Context) ([]grpc.ServerOption, error) {
	return otlpguard.ServerOptions(), nil
}
